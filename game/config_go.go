package game

import (
	"io/fs"
	"path/filepath"
)

// A config made in Go: a program that embeds the game fills a Config as
// config.toml would (every key of the file is a field) without any file of
// btrun's own, and Open checks it as LoadConfig checks a file, against the
// same limits. Such a config may have no [[agents]]: the program adds its
// agents itself (AddAgent).

// NewConfig returns a config holding the defaults of every key, as a file
// that leaves them all out would. Dir is the folder relative paths are
// taken from ("" is the current directory); with Options.Files, tree and
// script paths are paths in Files instead.
func NewConfig(dir string) *Config {
	c := defaults()
	c.Dir = dir
	c.Path = filepath.Join(dir, "(config made in Go)")
	return &c
}

// checkGo checks a config that was not read from a file (LoadConfig and
// ParseConfig check theirs), against the sources in files when they are
// there.
func (c *Config) checkGo(files fs.FS) error {
	if c.checked {
		return nil
	}
	name := c.Path
	if name == "" {
		name = "(config made in Go)"
	}
	d := &decoder{probs: problems{path: name}, src: newKeyFinder(""), bad: map[string]bool{}, files: files, goConfig: true}
	d.check(c)
	return d.probs.err()
}
