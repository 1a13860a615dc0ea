package game

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/btrun/btrun/internal/readfile"
)

// [scripts] root confines a game to a folder: a game that loads configs
// written by others (mods) sets it, and then every tree file, subtree file,
// script folder, script file and world script must lie inside that folder,
// symbolic links resolved. A path that leads out of it is an error where
// it is written (the config's line, the <subtree> tag), never read. Plugins
// are not confined: a plugin is a program, and a game that takes configs
// from others should not take their [[plugins]].

// confinement is the resolved root folder, or "" when the game is not
// confined.
type confinement struct {
	root    string // absolute, symbolic links resolved
	written string // as the config wrote it, for messages
}

// newConfinement resolves [scripts] root (relative to the config's folder).
func newConfinement(cfg *Config) (confinement, error) {
	if cfg.Scripts.Root == "" {
		return confinement{}, nil
	}
	abs, err := filepath.Abs(cfg.Abs(cfg.Scripts.Root))
	if err != nil {
		return confinement{}, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return confinement{}, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return confinement{}, err
	}
	if !fi.IsDir() {
		return confinement{}, fmt.Errorf("%s is not a folder", cfg.Scripts.Root)
	}
	return confinement{root: real, written: cfg.Scripts.Root}, nil
}

// check returns an error when path (which must exist) lies outside the
// root, symbolic links resolved; nil when it is inside or the game is not
// confined.
func (c confinement) check(path string) error {
	if c.root == "" {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return err
	}
	if real == c.root || strings.HasPrefix(real, c.root+string(filepath.Separator)) {
		return nil
	}
	return fmt.Errorf("it lies outside the game's folder %s ([scripts] root)", c.written)
}

// reader reads files as readfile.Read does, refusing those outside the
// root.
func (c confinement) reader(limit int64, what string) func(string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		if err := c.check(path); err != nil {
			return nil, &readfile.Error{Path: path, Msg: err.Error(), Err: ErrConfined}
		}
		return readfile.Read(path, limit, what)
	}
}
