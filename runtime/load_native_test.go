package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nativeSeeds are the seed documents of testdata/native: every example of
// the Lumberyard MBT and CryEngine BHS seeds.
func nativeSeeds(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/native/*.xml")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if filepath.Base(f) != "Common.xml" {
			out = append(out, f)
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d seed documents", len(out))
	}
	return out
}

func TestNative_seedsLoad(t *testing.T) {
	for _, f := range nativeSeeds(t) {
		tree, err := LoadFile(f, LoadOptions{Root: "testdata/native"})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		var b strings.Builder
		tree.Format(&b)
		if os.Getenv("SHOW") != "" {
			t.Logf("%s:\n%s", f, b.String())
		}
	}
}

func TestConvert_seeds(t *testing.T) {
	for _, f := range nativeSeeds(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		conv, err := Convert(f, data, LoadOptions{Root: "testdata/native"})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if os.Getenv("SHOW") != "" {
			t.Logf("%s:\n%s", f, conv.Text)
		}
		if _, err := LoadBytes(f, conv.Text, LoadOptions{Root: "testdata/native"}); err != nil {
			t.Errorf("%s: the converted document does not load: %v\n%s", f, err, conv.Text)
		}
	}
}
