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
}

// watchCopies reports whether going back to checkpoint from, with no
// reload journaled after it, opens the game from the checkpoint's files:
// with -watch, when the checkpoint names them (and its plugins' programs).
func (s *clusterSession) watchCopies(from *cluster.Checkpoint) bool {
	return s.r.live.watch && slices.Contains(from.Parts, filesPart) &&
		(len(s.r.cfg.Plugins) == 0 || slices.Contains(from.Parts, programsPart))
}

// watchRecovered tells the conductor that goes on from checkpoint from
// (nil: the run's start) which files the run ran with there, what the
// lost link's watcher held and how far the lost link went.
func (s *clusterSession) watchRecovered(c *game.Conductor, from *cluster.Checkpoint) error {
	carry := s.carry
	s.carry.held = nil // the link's conductor holds them now; the step stays (a replay lost in turn)
	if !s.r.live.watch || from == nil {
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
	c.Recovered(man, carry.held, carry.to)
	return nil
}

// keepUnreloaded keeps what a link's watcher saw and no reload read, as
// the link ends in failure, for the next link (watchRecovered).
func (s *clusterSession) keepUnreloaded(c *game.Conductor) {
	if s.r.live.watch {
		s.carry = watchCarry{held: c.Unreloaded(), to: max(s.carry.to, c.Step())}
	}
}
