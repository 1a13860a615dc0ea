package game

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseConfig: no config text makes the parser panic, and every error
// names the config file.
func FuzzParseConfig(f *testing.F) {
	for _, p := range []string{"../../config.toml", "../../tests/testdata/fixtures/alarm/config.toml"} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(minimalConfig))
	f.Add([]byte("[run]\nsteps = \"x\"\n[[agents]]\ncount = -1\n"))
	dir := f.TempDir()
	os.MkdirAll(filepath.Join(dir, "ai"), 0o755)
	os.WriteFile(filepath.Join(dir, "ai", "guard.xml"), []byte(`<behaviorTree/>`), 0o644)
	path := filepath.Join(dir, "config.toml")
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(path, data)
		if err == nil && cfg == nil {
			t.Fatal("no config and no error")
		}
		if err != nil && len(err.Error()) < len(path) {
			t.Fatalf("error without the file name: %v", err)
		}
	})
}
