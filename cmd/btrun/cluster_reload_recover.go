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

// filesPart names the part of a checkpoint that lists its files.
const filesPart = "files"

// keepFiles remembers the files the link's game opened with (what a
// checkpoint records until a reload) and stores them in the run's own
// object store, unless the link's is that one (it stored them).
func (s *clusterSession) keepFiles(files []natsnet.File, config, run string) error {
	src := make([]game.SourceFile, len(files))
	for i, f := range files {
		src[i] = game.SourceFile{Path: f.Path, Data: f.Data, Exec: f.Exec}
		if run != s.name {
			if _, err := s.store.FileStore().Put(f.Data); err != nil {
				return fmt.Errorf("storing %s for the run's checkpoints: %w", f.Path, err)
			}
		}
	}
	s.opened = game.FilesManifest(src, config)
	return nil
}

// putFiles stores the files part of checkpoint seq: those of the last
// reload the conductor applied, else those its game opened with.
func (s *clusterSession) putFiles(c *game.Conductor, seq uint64) error {
	man := c.Reloaded()
	if man == nil {
		man = s.opened
	}
	if man == nil {
		return fmt.Errorf("checkpoint %d of run %s: no link opened the game's files", seq, s.name)
	}
	data, err := cluster.EncodeReload(&cluster.ReloadManifest{Config: man.Config, Files: man.Files})
	if err != nil {
		return err
	}
	return s.store.PutPart(seq, filesPart, data)
}

// checkpointConfig is the config the conductor opens the game with to go
// back to checkpoint from: the run's, or, when a reload follows from in
// the journal (a process lost during it), a copy of it that opens the
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
		return s.r.cfg, "", nil
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
	if dir, err = tempfile.Dir("btrun-checkpoint-files"); err != nil {
		return nil, "", err
	}
	path, err := game.WriteStoredFiles(s.store.FileStore(), man, dir)
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
