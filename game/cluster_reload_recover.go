package game

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/btrun/btrun/cluster"
)

// A process lost during a reload (docs/cluster.md, "Reloads"): the run
// goes back to the checkpoint before the reload, whose files the game's
// folder no longer holds (the reload read them edited). So a checkpoint
// names the files it was taken with, by hash in the run's FileStore
// (FilesManifest); going back to it, the conductor opens the game from a
// copy of those files (WriteStoredFiles, then SetFilesCopy), as its
// shards do, and the replayed reload brings that copy to the reload's
// files (fetched by hash) before it applies it again at its step.

// FilesManifest names files, the game's files as a shard opens them
// (ClusterFiles), by the hash of each: what a checkpoint taken before any
// reload records.
func FilesManifest(files []SourceFile, config string) *cluster.ReloadManifest {
	man := &cluster.ReloadManifest{Config: config}
	for _, f := range files {
		man.Files = append(man.Files, cluster.ReloadFile{Path: f.Path, Hash: cluster.HashOf(f.Data), Exec: f.Exec})
	}
	return man
}

// Reloaded is the manifest of the last reload this conductor applied (a
// failed one changes nothing: it is not), nil before any: the files a
// checkpoint taken now records.
func (c *Conductor) Reloaded() *cluster.ReloadManifest { return c.applied }

// SetFilesCopy tells the conductor that its game opened from a copy of a
// checkpoint's files (WriteStoredFiles) and that home is the run's own
// config: a replayed reload writes its files into the copy, fetched from
// the FileStore (SetFiles), and stores them again for the shards; once the
// last journaled reload is replayed, the game's files are those of the
// run's folder as it read them, and a new reload reads that folder again.
// Without it, a replayed reload checks that the game's folder holds the
// reload's files, and writes nothing there.
func (c *Conductor) SetFilesCopy(home *Config) { c.home = home }

// leaveCopy points the game back at the run's folder after the last
// journaled reload's replay (man), noting which of its files changed
// there since the reload read them (cluster_reload_watch.go).
func (c *Conductor) leaveCopy(man *cluster.ReloadManifest) {
	if c.home == nil || slices.ContainsFunc(c.pending, func(in cluster.Input) bool { return in.Kind == cluster.InputReload }) {
		return
	}
	skip := c.programPaths(man)
	c.g.cfg.Path, c.g.cfg.Dir = c.home.Path, c.home.Dir
	c.home = nil
	c.stale = changedSince(c.g.cfg, man, skip, c.stale)
}

// replayFiles brings the conductor's files to those of a replayed reload.
func (c *Conductor) replayFiles(man *cluster.ReloadManifest) error {
	if c.home == nil {
		return c.sameFiles(man)
	}
	if err := syncFiles(c.g, c.files, man, true, c.programPaths(man)); err != nil {
		return fmt.Errorf("game: replaying a reload: %w", err)
	}
	return c.rebuiltPrograms(man) // cluster_reload_programs.go
}

// WriteStoredFiles writes the files man names, fetched from files by
// hash, into dir (a new, empty folder), and returns the path of the
// config among them: the game as it was when man was recorded.
func WriteStoredFiles(files cluster.FileStore, man *cluster.ReloadManifest, dir string) (string, error) {
	return writeStored(files, man, dir, nil)
}

// writeStored is WriteStoredFiles but for the paths in skip (a
// conductor's plugins: WriteCheckpointFiles).
func writeStored(files cluster.FileStore, man *cluster.ReloadManifest, dir string, skip map[string]bool) (string, error) {
	total := int64(0)
	for _, f := range man.Files {
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return "", fmt.Errorf("game: a checkpoint's files name %s, which would leave the game's folder", f.Path)
		}
		if skip[f.Path] {
			continue
		}
		data, err := files.Get(f.Hash)
		if err != nil {
			return "", fmt.Errorf("game: fetching the checkpoint's %s: %w", f.Path, err)
		}
		if cluster.HashOf(data) != f.Hash {
			return "", fmt.Errorf("game: the checkpoint's %s fetched with another hash", f.Path)
		}
		if total += int64(len(data)); total > maxClusterFiles {
			return "", fmt.Errorf("game: a checkpoint's files pass %d bytes at %s", maxClusterFiles, f.Path)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		mode := os.FileMode(0o644)
		if f.Exec {
			mode = 0o755
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			return "", fmt.Errorf("game: writing the checkpoint's %s: %w", f.Path, err)
		}
	}
	if !filepath.IsLocal(filepath.FromSlash(man.Config)) {
		return "", fmt.Errorf("game: a checkpoint's config %s would leave the game's folder", man.Config)
	}
	return filepath.Join(dir, filepath.FromSlash(man.Config)), nil
}
