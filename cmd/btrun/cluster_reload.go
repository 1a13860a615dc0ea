package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/game"
)

// -watch, -explain and -realtime in a cluster (docs/cluster.md, "Reloads"):
// the shards explain their agents' steps (btrun shard -explain), whose
// lines reach the trace in the single run's order as every line does; the
// conductor keeps the pace and watches the game's files, reloading the
// whole cluster between two steps (game.Conductor.Reload). After every
// reload the run takes a checkpoint, before any other input of that step:
// a recovery then goes back to before a reload only when a process was
// lost during it, and then opens the checkpoint's files from the store
// (cluster_reload_recover.go), never a disk where they changed since.

// liveOptions are btrun run's -watch, -explain and -realtime.
type liveOptions struct {
	watch, explain, realtime bool
}

// watch starts the conductor's watcher (-watch), saying so on the run's
// first link only: a recovery's link watches silently.
func (s *clusterSession) watch(c *game.Conductor, say bool) error {
	if !s.r.live.watch {
		return nil
	}
	return c.Watch(say)
}

// between is what one process does between two steps before the inputs:
// the pace, and the reload of what the watcher saw change, with the
// checkpoint that follows a reload.
func (s *clusterSession) between(c *game.Conductor, until uint64) error {
	if s.r.live.realtime { // a paced run is watched while it runs: what it wrote so far is written out
		var err error
		s.writers(func(w *runWriter) { err = errors.Join(err, w.buf.Flush()) })
		if err != nil {
			return err
		}
	}
	n := c.Reloads()
	if err := c.BetweenSteps(); err != nil {
		return err
	}
	return s.afterReload(c, n, until)
}

// afterReload takes a checkpoint after the reloads journaled since there
// were n, holding them: the journal forgets every input of the step done
// so far (none but the reloads: they come first among a step's inputs).
func (s *clusterSession) afterReload(c *game.Conductor, n, until uint64) error {
	if c.Reloads() == n {
		return nil
	}
	s.fault.at("reload", c.Step()) // cluster_faults.go: the reload journaled and applied, its checkpoint not taken
	s.reloading = true
	err := s.checkpoint(c, until)
	s.reloading = false
	if err != nil {
		return err
	}
	return s.inputs.Prune(c.Step() + 1)
}

// reloadedPart names the (empty) part of a checkpoint taken after the
// reload lines of its step: a resumed run's inputs file goes on after
// them.
const reloadedPart = "reloaded"

// reloadedAt reports whether the run's last checkpoint, of step step,
// holds the reload lines of that step.
func (s *clusterSession) reloadedAt(step uint64) bool {
	cp, ok, err := s.store.Latest()
	return err == nil && ok && cp.Step == step && slices.Contains(cp.Parts, reloadedPart)
}

// errBeforeReload is a run that would go back to a checkpoint before a
// reload (a process lost during the reload itself, before the checkpoint
// that follows it was committed) from a checkpoint that names no files
// (cluster_reload_recover.go: one written by an older btrun).
var errBeforeReload = errors.New("cannot go back to before a reload yet")

// beforeReload refuses a replay from the checkpoint of step from over a
// journaled reload.
func beforeReload(from uint64, ins []cluster.Input) error {
	for _, in := range ins {
		if in.Kind == cluster.InputReload {
			return fmt.Errorf("%w: the run's last checkpoint is of step %d, and a reload followed step %d (a process was lost during it): the game's files are those after the reload", errBeforeReload, from, in.Step)
		}
	}
	return nil
}
