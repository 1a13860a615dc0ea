package game

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The live view's Open save: the save files beside the config, and one of
// them loaded into the running game between two steps (Load: all or
// nothing). Only files in the config's folder are listed and loaded, by
// name: the page names no other path.

// maxListedSaves bounds the list (a folder of thousands of files).
const maxListedSaves = 200

// Saves lists the save files in the config's folder (those that begin with
// the saves' magic), by name, sorted.
func (h *debugHost) Saves() ([]string, error) {
	g := (*Game)(h)
	entries, err := os.ReadDir(g.cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("game: listing the saves: %w", err)
	}
	var out []string
	for _, e := range entries {
		if len(out) == maxListedSaves {
			break
		}
		if e.Type().IsRegular() && isSave(filepath.Join(g.cfg.Dir, e.Name())) {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out, nil
}

func isSave(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(SaveMagic))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == SaveMagic
}

// LoadSave loads the save called name in the config's folder (Load); a
// name with a folder in it is refused.
func (h *debugHost) LoadSave(name string) ([]string, error) {
	g := (*Game)(h)
	if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, fmt.Errorf("%w: %q is not the name of a file in the config's folder", ErrLoad, name)
	}
	return g.Load(filepath.Join(g.cfg.Dir, name))
}
