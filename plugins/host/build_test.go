package host

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/runtime"
)

// TestBuild_navPackageBuiltOnceAndRun starts the nav example from its Go
// package: the first Start builds it into the cache, the second reuses the
// binary; then nav.moveTo walks an agent across the arena in a real tree.
func TestBuild_navPackageBuiltOnceAndRun(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cache := t.TempDir()
	spec := Spec{Name: "nav", Path: "plugins/nav", Dir: "../.."}
	var logs logCapture
	start := time.Now()
	set, err := Start(context.Background(), []Spec{spec}, Options{CacheDir: cache, Logger: logs.log})
	if err != nil {
		t.Fatal(err)
	}
	first := time.Since(start)
	exe := set.Plugins()[0].Executable
	set.Close()
	if !strings.HasPrefix(exe, cache) || !strings.Contains(logs.text(), "plugin nav: building ./plugins/nav") {
		t.Fatalf("not built into the cache: %s\n%s", exe, logs.text())
	}
	entries, _ := filepath.Glob(filepath.Join(filepath.Dir(exe), "*"))
	if len(entries) != 1 {
		t.Errorf("cache folder holds %v; temporary files left behind?", entries)
	}

	logs = logCapture{}
	start = time.Now()
	w := newWorld(t, `<behaviorTree><sequence id="root">
  <action id=".go" name="nav.moveTo"><parameter name="nav.target">player</parameter><parameter name="nav.speed">8</parameter>
    <condition>nav.reachable</condition></action>
</sequence></behaviorTree>`, []Spec{spec}, Options{CacheDir: cache, Logger: logs.log}, 1,
		func(int) fields { return fields{"x": 2.5, "y": 2.5, "playerX": 37.5, "playerY": 27.5} })
	second := time.Since(start)
	if got := w.set.Plugins()[0].Executable; got != exe || strings.Contains(logs.text(), "building") {
		t.Errorf("second start rebuilt (%s):\n%s", got, logs.text())
	}
	t.Logf("first start (build) %v, second start (cached) %v", first.Round(time.Millisecond), second.Round(time.Millisecond))
	data := w.agents[0].UserData().(fields)
	for i := range 200 {
		out := w.step()
		if out[0].Err != nil {
			t.Fatal(out[0].Err)
		}
		if out[0].Status == runtime.Success {
			t.Logf("arrived after %d steps at (%.2f, %.2f)", i+1, data["x"], data["y"])
			return
		}
	}
	t.Fatalf("not arrived: %v", data)
}

// TestBuild_keyFollowsSources: the cache key changes with a source file,
// go.mod, or a file of a package the plugin imports from its module.
func TestBuild_keyFollowsSources(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/p\n\ngo 1.22\n")
	write("lib/lib.go", "package lib\n\nconst N = 1\n")
	write("cmd/p/main.go", "package main\n\nimport _ \"example.com/p/lib\"\n\nfunc main() {}\n")
	write("other/other.go", "package other\n")
	key := func() string {
		k, err := sourceKey(context.Background(), goBin, dir, "./cmd/p")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key()
	write("other/other.go", "package other\n\nconst M = 2\n")
	if key() != k0 {
		t.Error("a package the plugin does not import changed the key")
	}
	write("lib/lib.go", "package lib\n\nconst N = 2\n")
	k1 := key()
	if k1 == k0 {
		t.Error("an imported package changed, the key did not")
	}
	write("cmd/p/main.go", "package main\n\nimport _ \"example.com/p/lib\"\n\nfunc main() { println() }\n")
	k2 := key()
	if k2 == k1 {
		t.Error("the main package changed, the key did not")
	}
	write("go.mod", "module example.com/p\n\ngo 1.23\n")
	if key() == k2 {
		t.Error("go.mod changed, the key did not")
	}
}

func TestResolve_folderWithoutMainPackage(t *testing.T) {
	_, err := Start(context.Background(), []Spec{{Name: "sdk", Path: "../sdk"}}, Options{Logger: func(string, string) {}})
	if err == nil || !strings.Contains(err.Error(), "plugins/sdk is a folder without a Go main package") {
		t.Errorf("got %v", err)
	}
}
