package game

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/btrun/btrun/internal/readfile"
)

// SourceFile is one of the files a cluster's shard opens the game from:
// its path, slash-separated and relative to the folder that holds the
// game's files, and its content.
type SourceFile struct {
	Path string
	Data []byte
	Exec bool // a plugin's program: written executable
}

// ClusterFiles are the files a shard needs to open this game as it is
// opened here, so that a shard on another machine needs only the btrun
// binary: the config, the tree files (subtree files included), the .lua
// files of the script folders, the world script, and each plugin's program
// as built (a shard then needs neither Go nor the plugin's sources; the
// program stands at the plugin's path, which names it on the shard). The
// paths are relative to the folder holding them all; config is the
// config's among them. A config whose paths are absolute, or a game whose
// sources are an fs.FS (Options.Files), cannot be sent this way.
func (g *Game) ClusterFiles() (files []SourceFile, config string, err error) {
	c := g.cfg
	if g.opts.Files != nil {
		return nil, "", fmt.Errorf("%w: a game whose sources are an fs.FS (Options.Files) sends no files to its shards", ErrClusterFeature)
	}
	if c.Path == "" {
		return nil, "", fmt.Errorf("%w: a config made in Go has no file to send to the shards", ErrClusterFeature)
	}
	named := []string{}
	for _, tc := range c.Trees {
		named = append(named, tc.File)
	}
	named = append(named, c.Scripts.Paths...)
	if c.Scripts.World != "" {
		named = append(named, c.Scripts.World)
	}
	for _, p := range c.Plugins {
		named = append(named, p.Path)
	}
	for _, p := range named {
		if filepath.IsAbs(p) {
			return nil, "", fmt.Errorf("%w: the config names %s, an absolute path: a shard opens the game's files from a folder of its own, so every path in the config must be relative to the config's folder", ErrClusterFeature, p)
		}
	}
	abs := func(p string) (string, error) { return filepath.Abs(c.Abs(p)) }
	type source struct {
		path, read string // where it is sent from: a plugin's program, or path
		exec       bool
		data       []byte // what is sent, when it is no file's (a plugin's declarations)
	}
	cfgAbs, err := filepath.Abs(c.Path)
	if err != nil {
		return nil, "", err
	}
	srcs := []source{{path: cfgAbs}}
	plugins := map[string]bool{}
	if g.plugins != nil {
		for i, info := range g.plugins.Plugins() {
			// The program stands where the config names the plugin: a
			// folder of Go sources here, the program built from them there.
			p, err := abs(c.Plugins[i].Path)
			if err != nil {
				return nil, "", err
			}
			plugins[p] = true
			if d, err := g.shardPlugin(i, &info.Description); err != nil {
				return nil, "", err
			} else if d != nil { // it runs on the conductor (cluster_plugins.go)
				srcs = append(srcs, source{path: p, data: d})
				continue
			}
			srcs = append(srcs, source{path: p, read: info.Executable, exec: true})
		}
	}
	src := g.sources()
	for f := range src.files {
		if !plugins[f] {
			srcs = append(srcs, source{path: f})
		}
	}
	for _, dir := range src.scripts {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && strings.HasSuffix(p, ".lua") {
				srcs = append(srcs, source{path: p})
			}
			return nil
		})
		if err != nil {
			return nil, "", fmt.Errorf("game: the files for the shards: %w", err)
		}
	}
	root := filepath.Dir(cfgAbs)
	for _, s := range srcs {
		for !within(root, s.path) {
			root = filepath.Dir(root)
		}
	}
	slices.SortFunc(srcs, func(a, b source) int { return strings.Compare(a.path, b.path) })
	srcs = slices.CompactFunc(srcs, func(a, b source) bool { return a.path == b.path })
	total := int64(0)
	for _, s := range srcs {
		read := s.path
		if s.read != "" {
			read = s.read
		}
		data, err := s.data, error(nil)
		if data == nil {
			data, err = readfile.Read(read, maxClusterFiles-total, "file for the shards")
		}
		if err != nil {
			return nil, "", fmt.Errorf("game: the files for the shards: %w", err)
		}
		total += int64(len(data))
		rel, err := filepath.Rel(root, s.path)
		if err != nil {
			return nil, "", err
		}
		files = append(files, SourceFile{Path: filepath.ToSlash(rel), Data: data, Exec: s.exec})
	}
	rel, _ := filepath.Rel(root, cfgAbs)
	return files, filepath.ToSlash(rel), nil
}

// maxClusterFiles bounds the game's files sent to the shards, together (as
// the transport does: natsnet.MaxFiles).
const maxClusterFiles = 1 << 30

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && filepath.IsLocal(rel)
}
