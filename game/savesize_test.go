package game

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/internal/readfile"
)

// withSaveLimit makes the save files of the test at most n bytes, for the
// writer and the reader alike (they share maxSaveSize).
func withSaveLimit(t *testing.T, n int64) {
	old := maxSaveSize
	maxSaveSize = n
	t.Cleanup(func() { maxSaveSize = old })
}

// TestSave_refusesWhatLoadWouldRefuse: a run whose save would take more
// than a save file may hold is a save error, nothing is written (a good
// save there stays as it was, no temporary file is left), and Run ends
// with it; a save of exactly the limit is written and loads.
func TestSave_refusesWhatLoadWouldRefuse(t *testing.T) {
	if MaxSaveSize != readfile.SaveLimit || maxSaveSize != MaxSaveSize {
		t.Fatalf("the writer's bound %d is not the reader's %d", maxSaveSize, readfile.SaveLimit)
	}
	g := exampleGame(t, 3, 5)
	dir := t.TempDir()
	path := filepath.Join(dir, "run.sav")
	if err := g.Save(path); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(good))

	withSaveLimit(t, size-1)
	err = g.Save(path)
	if !errors.Is(err, ErrSave) || !strings.Contains(err.Error(), "the run takes ") || !strings.Contains(err.Error(), " bytes saved, more than the ") {
		t.Fatalf("a save one byte over the limit: %v", err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(good) {
		t.Error("the refused save changed the good save")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left beside the save: %v", ents)
	}
	if _, err := g.Load(path); !errors.Is(err, ErrLoad) || !errors.Is(err, readfile.ErrTooLarge) {
		t.Errorf("the reader shares the limit: loading %d bytes with %d allowed: %v", size, size-1, err)
	}
	g.opts.SavePath = filepath.Join(dir, "end.sav")
	if err := g.Run(1); !errors.Is(err, ErrSave) {
		t.Errorf("Run with a save over the limit: %v", err)
	}
	if _, err := os.Stat(g.opts.SavePath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Run wrote a save it refused: %v", err)
	}

	g = exampleGame(t, 3, 5)
	withSaveLimit(t, size)
	if err := g.Save(path); err != nil {
		t.Fatalf("a save of exactly the limit: %v", err)
	}
	if _, err := g.Load(path); err != nil {
		t.Errorf("loading a save of exactly the limit: %v", err)
	}
}
