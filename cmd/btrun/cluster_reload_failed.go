package main

import (
	"fmt"
	"slices"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/game"
)

// A checkpoint taken after a failed reload (docs/cluster.md, "Reloads"):
// the run goes on with the files it had, and the run's folder holds the
// files that failed to load. So the checkpoint names, besides the files
// the run runs with (its "files" part), those the failed reload read (its
// "failed" part, game.Conductor.FailedReload): a recovery from it opens
// the game from the checkpoint's files, never the run's folder, and -watch
// tries the failed files again only once they change again, as one
// process's watcher does.

// failedPart names the part of a checkpoint that lists the files of a
// failed reload after the last applied one.
const failedPart = "failed"

// putFailed stores the failed part of checkpoint seq when the conductor's
// last reload failed, and reports whether it did.
func (s *clusterSession) putFailed(c *game.Conductor, seq uint64) (bool, error) {
	man := c.FailedReload()
	if man == nil {
		return false, nil
	}
	data, err := cluster.EncodeReload(&cluster.ReloadManifest{Config: man.Config, Files: man.Files})
	if err != nil {
		return false, err
	}
	return true, s.store.PutPart(seq, failedPart, data)
}

// failedFiles is the failed part of checkpoint from, nil for none.
func (s *clusterSession) failedFiles(from *cluster.Checkpoint) (*cluster.ReloadManifest, error) {
	if !slices.Contains(from.Parts, failedPart) {
		return nil, nil
	}
	data, err := s.store.Part(from.Seq, failedPart)
	if err != nil {
		return nil, err
	}
	man, err := cluster.DecodeReload(data)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %d of run %s: the files of its failed reload: %w", from.Seq, s.name, err)
	}
	return man, nil
}
