package game

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/btrun/btrun/internal/readfile"
)

// Where a game's sources are: the tree files, script folders and world
// script its config names. A config file's sources are on disk, relative
// to the config's folder (and confined to [scripts] root when it is set); a
// Go program that embeds the game may give them as an fs.FS instead
// (Options.Files: an embed.FS, sources in memory), where the config's
// paths are slash-separated paths inside it. Plugins, saves and the trace
// are files on disk either way.

// src is the path the game reads a source at: in Options.Files, or on disk.
func (g *Game) src(p string) string {
	if g.opts.Files != nil {
		return fsPath(p)
	}
	return g.cfg.Abs(p)
}

// fsPath is a config's path as an fs.FS names it.
func fsPath(p string) string { return path.Clean(filepath.ToSlash(p)) }

// reader reads a source file, refusing files larger than limit (and, on
// disk, outside [scripts] root).
func (g *Game) reader(limit int64, what string) func(string) ([]byte, error) {
	if fsys := g.opts.Files; fsys != nil {
		return func(p string) ([]byte, error) { return readfile.ReadFS(fsys, fsPath(p), limit, what) }
	}
	confine, _ := newConfinement(g.cfg) // checked with the config
	return confine.reader(limit, what)
}

// srcRoot is the folder display paths of sources are relative to.
func (g *Game) srcRoot() string {
	if g.opts.Files != nil {
		return ""
	}
	return g.cfg.Dir
}

// statSource is os.Stat of a config's source path, or fs.Stat in files.
func statSource(cfg *Config, files fs.FS, p string) (fs.FileInfo, error) {
	if files != nil {
		return fs.Stat(files, fsPath(p))
	}
	return os.Stat(cfg.Abs(p))
}

// treeReader reads tree files, taking a reload's Override (g.override, by
// absolute path) before the disk.
func (g *Game) treeReader() func(string) ([]byte, error) {
	read := g.reader(readfile.TreeLimit, "tree file")
	if g.override == nil {
		return read
	}
	return func(p string) ([]byte, error) {
		if abs, err := filepath.Abs(p); err == nil {
			if data, ok := g.override[abs]; ok {
				return data, nil
			}
		}
		return read(p)
	}
}
