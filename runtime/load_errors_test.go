package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoad_invalidCorpus loads every testdata/invalid/NAME.xml and compares
// the whole error text with NAME.err. Run with -update to rewrite the .err
// files, then review them by eye: each line must name FILE:LINE:COL and say
// what is wrong and what is allowed.
func TestLoad_invalidCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("only %d invalid files; the corpus should hold at least 30", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".xml")
		t.Run(name, func(t *testing.T) {
			tree, err := LoadFile(file, LoadOptions{Root: "testdata/invalid"})
			if err == nil {
				t.Fatalf("loaded without error (%d rules); want errors", len(tree.Rules))
			}
			if tree != nil {
				t.Errorf("got a tree along with the error")
			}
			checkErrorList(t, err)
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(file, ".xml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("errors differ from %s\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// checkErrorList checks what every load error must be: an ErrorList of
// *Error, each with a position and wrapping ErrInvalidTree.
func checkErrorList(t testing.TB, err error) {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is %T, want ErrorList: %v", err, err)
	}
	if len(list) == 0 {
		t.Fatalf("empty ErrorList")
	}
	if !errors.Is(err, ErrInvalidTree) {
		t.Errorf("errors.Is(err, ErrInvalidTree) is false: %v", err)
	}
	for _, e := range list {
		if e.Pos.File == "" || e.Pos.Line <= 0 || e.Pos.Col <= 0 {
			t.Errorf("error without a full position: %q (%+v)", e.Error(), e.Pos)
		}
		if !errors.Is(e, ErrInvalidTree) {
			t.Errorf("error does not wrap ErrInvalidTree: %v", e)
		}
		if e.Msg == "" {
			t.Errorf("error without a message at %s", e.Pos)
		}
	}
}
