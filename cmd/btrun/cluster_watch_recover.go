package main

import (
	"fmt"
	"slices"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/game"
)

// -watch over a recovery (docs/cluster.md, "Reloads"): a lost link's
// watcher takes what it saw and had not reloaded with it, and the next
// link's watcher sees only what changes after it starts. One process with
// -watch never loses an edit, so after any recovery (a new link after a
// lost shard, or -resume) the conductor opens the checkpoint's files, as
// over a reload (the run's folder may hold an edit not reloaded, which the
// replay must not read), and is told which files the run ran with there
// and what the lost watcher held (game.Conductor.Recovered): once the
// replay is over, what differs in the run's folder is reloaded at the next
// step boundary, journaled as any -watch reload.

// watchCarry is what -watch carries from a lost link to the next.
type watchCarry struct {
	held []string // the paths the lost link's watcher saw and no reload read
	to   uint64   // the step the lost link reached: its replay writes again what a stream holds

	reload *game.ReloadOptions // a reload that waited for the lost link's replay (the page's)
}

// watchCopies reports whether going back to checkpoint from, with no
// reload journaled after it, opens the game from the checkpoint's files:
// with -watch, or after a failed reload (the run's folder holds the files
// that failed to load: cluster_reload_failed.go), when the checkpoint
// names them (and its plugins' programs).
func (s *clusterSession) watchCopies(from *cluster.Checkpoint) bool {
	return (s.r.live.watch || slices.Contains(from.Parts, failedPart)) && slices.Contains(from.Parts, filesPart) &&
		(len(s.r.cfg.Plugins) == 0 || slices.Contains(from.Parts, programsPart))
}

// watchRecovered tells the conductor that goes on from checkpoint from
// (nil: the run's start) which files the run ran with there (with those
// a failed reload read over them: -watch saw those), what the lost link's
// watcher held and how far the lost link went. A conductor opened from a
// copy of the checkpoint's files (copied) is told without -watch too: it
// reads the run's folder again once the replay is over.
func (s *clusterSession) watchRecovered(c *game.Conductor, from *cluster.Checkpoint, copied bool) error {
	carry := s.carry
	s.carry.held, s.carry.reload = nil, nil // the link's conductor holds them now; the step stays (a replay lost in turn)
	if carry.reload != nil {
		defer c.WaitReload(*carry.reload) // after Recovered: it waits for this link's replay
	}
	if from == nil {
		return nil
	}
	failed, err := s.failedFiles(from) // cluster_reload_failed.go
	if err != nil {
		return err
	}
	c.RecoveredFailed(failed)
	if !s.r.live.watch && !copied {
		return nil
	}
	var man *cluster.ReloadManifest // a checkpoint an older btrun wrote names no files: only what was held
	if slices.Contains(from.Parts, filesPart) {
		data, err := s.store.Part(from.Seq, filesPart)
		if err != nil {
			return err
		}
		if man, err = cluster.DecodeReload(data); err != nil {
			return fmt.Errorf("checkpoint %d of run %s: its files: %w", from.Seq, s.name, err)
		}
	}
	c.Recovered(game.SeenFiles(man, failed), carry.held, carry.to)
	return nil
}

// keepUnreloaded keeps what a link's watcher saw and no reload read, as
// the link ends in failure, for the next link (watchRecovered).
func (s *clusterSession) keepUnreloaded(c *game.Conductor) {
	if s.r.live.watch {
		s.carry = watchCarry{held: c.Unreloaded(), to: max(s.carry.to, c.Step())}
	}
	s.carry.reload = c.WaitingReload() // game/cluster_reload_held.go
}
