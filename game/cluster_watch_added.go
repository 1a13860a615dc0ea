package game

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/plugins/host"
)

// What a recovery's -watch finds beside the checkpoint's files
// (docs/cluster.md, "Reloads"): a file added to the run's folder, or a
// plugin's source edited, while no conductor ran (the whole run stopped,
// then -resume) is no file of the checkpoint's manifest, which names only
// what the game read, and no watcher saw it. One process's watcher would
// have seen it and reloaded; so once the replay is over the conductor
// looks for what a reload would read and the run does not run with: the
// Lua files of the script folders and the files the config names that
// the manifest lacks, and each plugin built from Go sources whose build
// from the run's folder now is not the program the conductor runs.

// addedSince lists, as the watcher reports paths (absolute), what the
// run's folder holds that man (the files the run runs with) does not
// and a reload would read, and the folder of each plugin whose sources
// changed since its program was built.
func (c *Conductor) addedSince(man *cluster.ReloadManifest) []string {
	g := c.g
	root, err := filesRoot(g.cfg, man.Config)
	if err != nil {
		return nil
	}
	have := make(map[string]bool, len(man.Files))
	for _, f := range man.Files {
		have[filepath.Join(root, filepath.FromSlash(f.Path))] = true
	}
	src := g.watcher.sources.Load()
	var out []string
	for p := range src.files {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && !have[p] && src.plugin(p) == "" {
			out = append(out, p)
		}
	}
	for _, dir := range src.scripts {
		// As the script loader lists them (luabind's scriptFiles); an
		// unreadable folder is the reload's to report.
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lua") && !strings.HasSuffix(p, ".d.lua") && !have[p] {
				out = append(out, p)
			}
			return nil
		})
	}
	for _, name := range c.rebuiltSince() {
		out = append(out, src.plugins[name])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rebuiltSince names the plugins built from Go sources (a folder) whose
// build from the run's folder now is another program than the one the
// conductor runs: their sources changed while no watcher saw them. The
// build is btrun's cached one, keyed by the sources' hash, so an unchanged
// plugin is not built again; one that does not build is named too (the
// reload says why).
func (c *Conductor) rebuiltSince() []string {
	g := c.g
	if g.plugins == nil {
		return nil
	}
	var out []string
	for i, info := range g.plugins.Plugins() {
		pc := g.cfg.Plugins[i]
		if fi, err := os.Stat(g.cfg.Abs(pc.Path)); err != nil || !fi.IsDir() || info.Executable == "" {
			continue // a program, not sources: the files' comparison sees it
		}
		running, err := hashFile(info.Executable)
		if err != nil {
			continue
		}
		exe, err := host.Program(context.Background(), host.Spec{Name: pc.Name, Path: pc.Path, Dir: g.cfg.Dir}, "")
		if err != nil {
			out = append(out, pc.Name)
			continue
		}
		if h, err := hashFile(exe); err != nil || h != running {
			out = append(out, pc.Name)
		}
	}
	return out
}
