package main

import (
	"errors"
	"fmt"

	"github.com/btrun/btrun/game"
)

// A cluster's inputs from outside (-inputs): each is journaled before it
// is applied (game.Conductor.Signal), the journal is pruned with every
// checkpoint, and a run that goes back to a checkpoint (a lost shard, or
// -resume) applies the journal's inputs again after their steps; the
// inputs file's lines go on after those the journal holds.

// sendInputs sends the inputs file's lines that follow the step just done.
func (s *clusterSession) sendInputs(c *game.Conductor) error {
	return s.r.feed.send(c.Step(), false, conductorInputs{c, s}, func(err error) bool {
		var refused *game.InputError
		return !errors.As(err, &refused) && !errors.Is(err, game.ErrReload) // a reload not applied: the output says why
	}, func(err error) { fmt.Fprintln(s.stderr, "btrun:", err) })
}

// replayInputs gives the conductor, gone back to the checkpoint of step
// from, the journal's inputs since; a resumed run's inputs file goes on
// after them.
func (s *clusterSession) replayInputs(c *game.Conductor, from uint64) error {
	ins, err := s.inputs.From(from)
	if err != nil {
		return err
	}
	if err := c.Replay(ins); err != nil {
		return err
	}
	if s.r.resume && s.links == 1 && s.r.feed != nil {
		s.r.feed.skip(from, s.reloadedAt(from), ins) // cluster_reload.go
	}
	return nil
}

// restartInputs forgets the journal when the run starts again from its
// beginning (a shard lost before the first checkpoint): the inputs file
// is read again from its first line.
func (s *clusterSession) restartInputs() error {
	if s.r.feed != nil {
		s.r.feed.next = 0
	}
	return s.inputs.Prune(^uint64(0))
}
