package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/natsnet"
	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/internal/tempfile"
)

// A process lost during a reload (docs/cluster.md, "Reloads"): the run
// goes back to the checkpoint before it, whose files the game's folder no
// longer holds. Every checkpoint names the files it was taken with (its
// "files" part: a manifest of hashes in the run's own object store), so
// that going back over a journaled reload the conductor opens the game
// from those files, fetched into a folder of its own, and sends them to
// its shards as at the start; the replayed reload then brings every
// process to the reload's files at its step, as the first time.

// filesPart names the part of a checkpoint that lists its files, and
// programsPart the part that names the programs the conductor ran for its
// plugins (game.PluginPrograms): at a plugin's path the files hold what
// the shards got there (a plugin on the conductor's declarations), and a
// conductor opened from them needs the program. A program is found again
// on the conductor's machine, never stored (game.WriteCheckpointFiles).
const (
	filesPart    = "files"
	programsPart = "programs"
)

// programs are the programs the conductor's plugins run, for the files
// they were recorded with.
type programs struct {
	of   *cluster.ReloadManifest
	data []byte // game.EncodePrograms
}

// keepFiles remembers the files the link's game opened with (what a
// checkpoint records until a reload) and the programs its plugins run, and
// stores the files in the run's own object store, unless the link's is
// that one (it stored them). A plugin's program is not stored there: a
// recovery finds it again on this machine.
func (s *clusterSession) keepFiles(g *game.Game, files []natsnet.File, config, run string) error {
	src := make([]game.SourceFile, len(files))
	for i, f := range files {
		src[i] = game.SourceFile{Path: f.Path, Data: f.Data, Exec: f.Exec}
		if run != s.name && !f.Exec {
			if _, err := s.store.FileStore().Put(f.Data); err != nil {
				return fmt.Errorf("storing %s for the run's checkpoints: %w", f.Path, err)
			}
		}
	}
	s.opened = game.FilesManifest(src, config)
	progs, err := g.PluginPrograms(config)
	if err == nil {
		s.progs.of = s.opened
		s.progs.data, err = game.EncodePrograms(progs)
	}
	return err
}

// putFiles stores the files part of checkpoint seq: those of the last
// reload the conductor applied, else those its game opened with; and, for
// a game with plugins, the programs part: the programs they run now. It
// returns the parts it stored.
func (s *clusterSession) putFiles(c *game.Conductor, seq uint64) ([]string, error) {
	man := c.Reloaded()
	if man == nil {
		man = s.opened
	}
	if man == nil {
		return nil, fmt.Errorf("checkpoint %d of run %s: no link opened the game's files", seq, s.name)
	}
	data, err := cluster.EncodeReload(&cluster.ReloadManifest{Config: man.Config, Files: man.Files})
	if err != nil {
		return nil, err
	}
	if err := s.store.PutPart(seq, filesPart, data); err != nil {
		return nil, err
	}
	if s.progs.of != man { // a reload since: it may have rebuilt a plugin
		progs, err := c.PluginPrograms(man.Config)
		if err != nil {
			return nil, err
		}
		if s.progs.data, err = game.EncodePrograms(progs); err != nil {
			return nil, err
		}
		s.progs.of = man
	}
	parts := []string{filesPart}
	if failed, err := s.putFailed(c, seq); err != nil || failed { // cluster_reload_failed.go
		if err != nil {
			return nil, err
		}
		parts = append(parts, failedPart)
	}
	if len(s.progs.data) == 0 {
		return parts, nil
	}
	return append(parts, programsPart), s.store.PutPart(seq, programsPart, s.progs.data)
}

// checkpointConfig is the config the conductor opens the game with to go
// back to checkpoint from: the run's, or, when a reload follows from in
// the journal (a process lost during it) or with -watch (the run's folder
// may hold an edit not reloaded yet), a copy of it that opens the
// checkpoint's files, written into a folder of their own (the caller
// removes it: dir, "" for none).
func (s *clusterSession) checkpointConfig(from *cluster.Checkpoint) (cfg *game.Config, dir string, err error) {
	if from == nil {
		return s.r.cfg, "", nil
	}
	ins, err := s.inputs.From(from.Step)
	if err != nil {
		return nil, "", err
	}
	if err := beforeReload(from.Step, ins); err == nil {
		if !s.watchCopies(from) { // cluster_watch_recover.go: with -watch, the checkpoint's files too
			return s.r.cfg, "", nil
		}
	} else if !slices.Contains(from.Parts, filesPart) {
		return nil, "", err // a checkpoint that names no files
	}
	data, err := s.store.Part(from.Seq, filesPart)
	if err != nil {
		return nil, "", err
	}
	man, err := cluster.DecodeReload(data)
	if err != nil {
		return nil, "", fmt.Errorf("checkpoint %d of run %s: its files: %w", from.Seq, s.name, err)
	}
	var progs []game.PluginProgram
	if slices.Contains(from.Parts, programsPart) {
		data, err := s.store.Part(from.Seq, programsPart)
		if err == nil {
			progs, err = game.DecodePrograms(data)
		}
		if err != nil {
			return nil, "", fmt.Errorf("checkpoint %d of run %s: its plugins' programs: %w", from.Seq, s.name, err)
		}
	} else if len(s.r.cfg.Plugins) > 0 { // written by an older btrun
		return nil, "", fmt.Errorf("%w: checkpoint %d of run %s names no programs of the game's plugins (an older btrun wrote it), and its files hold what the shards got at their paths", errBeforeReload, from.Seq, s.name)
	}
	if dir, err = tempfile.Dir("btrun-checkpoint-files"); err != nil {
		return nil, "", err
	}
	path, err := game.WriteCheckpointFiles(s.store.FileStore(), man, progs, s.r.cfg, dir)
	if err != nil {
		return nil, "", errors.Join(err, os.RemoveAll(dir))
	}
	copied := *s.r.cfg
	copied.Path, copied.Dir = path, filepath.Dir(path)
	return &copied, dir, nil
}

// bothFiles is where the conductor stores a reload's files: its link's
// object store (its shards fetch them there) and the run's own (a later
// link's conductor fetches them there, replaying the reload).
type bothFiles struct{ link, run cluster.FileStore }

func (b bothFiles) Put(data []byte) (string, error) {
	h, err := b.link.Put(data)
	if err != nil {
		return "", err
	}
	if _, err := b.run.Put(data); err != nil {
		return "", err
	}
	return h, nil
}

func (b bothFiles) Get(hash string) ([]byte, error) { return b.run.Get(hash) }
