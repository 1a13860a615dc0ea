package game

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/btrun/btrun/cluster"
)

// A plugin's new build on a cluster's reload (docs/cluster.md, "Reloads").
// The conductor journals a reload's manifest before it applies it, so the
// manifest names the plugins' programs (or declarations) as they ran
// before the reload rebuilt any. Once the conductor's reload has applied
// and restarted plugins with new builds (ReloadReport.Plugins), what the
// shards get at those plugins' paths is taken again from the builds that
// now run (ClusterFiles): a shardable plugin's new program, stored in the
// run's object store by its content's hash as every file of the game is
// (a shard needs no Go toolchain), or the new declarations of one that
// runs on the conductor. Each shard brings its files to that manifest and
// restarts, through the same Prepare and Commit one process uses, each
// plugin whose file at its path changed, so every shard binds what the
// new build declares before the next step. A reload that fails on the
// conductor (a build that does not build or start) sends the shards
// nothing: every process goes on with the old build, as one process does.
// The manifest with the new builds is the one the run then runs with
// (Reloaded): a checkpoint after the reload records it, and its programs
// part names the new build, which a recovery restarts.

// withNewBuilds is man with, at the paths of the plugins rep restarted
// with a new build, what the shards get for them now; man itself when the
// reload restarted none.
func (c *Conductor) withNewBuilds(man *cluster.ReloadManifest, rep *ReloadReport) (*cluster.ReloadManifest, error) {
	if rep == nil || len(rep.Plugins) == 0 {
		return man, nil
	}
	g := c.g
	files, _, err := g.ClusterFiles()
	if err != nil {
		return nil, fmt.Errorf("game: a reload's new plugin builds: %w", err)
	}
	root, err := filesRoot(g.cfg, man.Config)
	if err != nil {
		return nil, err
	}
	paths := map[string]bool{}
	for _, p := range g.cfg.Plugins {
		if !slices.Contains(rep.Plugins, p.Name) {
			continue
		}
		at, err := filepath.Abs(g.cfg.Abs(p.Path))
		if err != nil {
			return nil, err
		}
		if rel, err := filepath.Rel(root, at); err == nil && filepath.IsLocal(rel) {
			paths[filepath.ToSlash(rel)] = true
		}
	}
	out := *man
	out.Files = slices.Clone(man.Files)
	for _, f := range files {
		if !paths[f.Path] {
			continue
		}
		h := cluster.HashOf(f.Data)
		if c.files != nil {
			if h, err = c.files.Put(f.Data); err != nil {
				return nil, fmt.Errorf("game: storing plugin program %s for the shards: %w", f.Path, err)
			}
		}
		i := slices.IndexFunc(out.Files, func(r cluster.ReloadFile) bool { return r.Path == f.Path })
		if i < 0 {
			return nil, fmt.Errorf("game: a reload's new build at %s, which its manifest does not name", f.Path)
		}
		out.Files[i] = cluster.ReloadFile{Path: f.Path, Hash: h, Exec: f.Exec}
	}
	return &out, nil
}

// changedPlugins names the plugins of g whose file at their path among
// m's files (a program or declarations) is not the one g's folder holds:
// a shard restarts them with what m brings (a new build on the conductor).
func (g *Game) changedPlugins(m *cluster.ReloadManifest) ([]string, error) {
	if g.plugins == nil || len(g.cfg.Plugins) == 0 {
		return nil, nil
	}
	root, err := filesRoot(g.cfg, m.Config)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range g.cfg.Plugins {
		at, err := filepath.Abs(g.cfg.Abs(p.Path))
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(root, at)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		i := slices.IndexFunc(m.Files, func(r cluster.ReloadFile) bool { return r.Path == filepath.ToSlash(rel) })
		if i < 0 {
			continue
		}
		if h, err := hashFile(at); err == nil && h == m.Files[i].Hash {
			continue
		}
		out = append(out, p.Name)
	}
	return out, nil
}

// PluginOf names the plugin whose folder of Go sources holds path
// (relative to the config's folder), or "" for none: a reload after an
// edit there (an inputs file's `AFTER reload PATH FROM` line) builds that
// plugin again, as -watch does when its sources change.
func (g *Game) PluginOf(path string) string {
	if path == "" || len(g.cfg.Plugins) == 0 {
		return ""
	}
	abs, err := filepath.Abs(g.cfg.Abs(path))
	if err != nil {
		return ""
	}
	return g.sources().plugin(abs)
}

// PluginOf is Game.PluginOf for the conductor's game.
func (c *Conductor) PluginOf(path string) string { return c.g.PluginOf(path) }
