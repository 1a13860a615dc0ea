package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormat_golden compares Tree.Format with testdata/print/NAME.golden.
// Run with -update to rewrite the golden files.
func TestFormat_golden(t *testing.T) {
	tests := []struct{ name, file, root string }{
		{"dragengine-exampleapp", "../scripts/ai/dragengine-exampleapp.xml", ".."},
		{"guard", "testdata/valid/guard/main.xml", "testdata/valid/guard"},
		{"empty", "testdata/valid/empty.xml", "testdata/valid"},
		{"interrupt", "testdata/valid/interrupt.xml", "testdata/valid"},
		{"parallel", "testdata/valid/parallel.xml", "testdata/valid"},
		{"gates", "testdata/valid/gates.xml", "testdata/valid"},
		{"typed", "testdata/valid/typed.xml", "testdata/valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := LoadFile(tt.file, LoadOptions{Root: tt.root})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := tree.Format(&b); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "print", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("Format differs from %s\ngot:\n%s\nwant:\n%s", golden, b.String(), want)
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestFormat_returnsWriteError(t *testing.T) {
	tree, err := LoadBytes("a.xml", []byte(bt(`<success/>`)), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.Format(failingWriter{}); err != os.ErrClosed {
		t.Errorf("Format returned %v, want the writer's error", err)
	}
}
