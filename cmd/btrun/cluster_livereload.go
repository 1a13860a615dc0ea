package main

import (
	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/game"
)

// The live view's reloads in a cluster (docs/cluster.md, "The live view"):
// the page's Reload button and the editor's save reload the whole cluster
// between two steps (game.Game.ReloadAll and game.DebugHost.Reload are
// game.Conductor.Reload on a conductor: journaled, then applied on every
// process), in the page's moment before the step. As after -watch's
// reloads, the run then takes a checkpoint, so that a lost process goes
// back to before a reload only when it was lost during it. The page's
// moment may have applied other inputs before the reload (a signal, a
// jump): a checkpoint taken between steps would not hold the signals
// their handlers sent for the next step, so the run then takes it at the
// end of that step instead, and a process lost before goes back over the
// reload, replaying it from the files it journaled
// (cluster_reload_recover.go).

// afterPage follows the live view's moment: when the page reloaded, it
// takes the checkpoint after the reload, now if the step's journaled
// inputs are only reloads, else at the end of the next step (pageDue).
func (s *clusterSession) afterPage(c *game.Conductor, until uint64) error {
	v := s.view
	if v == nil || c.Reloads() == v.reloads {
		return nil
	}
	v.reloads = c.Reloads()
	s.fault.at("reload", c.Step()) // cluster_faults.go: the reload journaled and applied, its checkpoint not taken
	ins, err := s.inputs.From(c.Step())
	if err != nil {
		return err
	}
	for _, in := range ins {
		if in.Step == c.Step() && in.Kind != cluster.InputReload {
			v.due = true
			return nil
		}
	}
	if err := s.checkpoint(c, until); err != nil {
		return err
	}
	return s.inputs.Prune(c.Step() + 1) // the checkpoint holds the step's reloads
}

// pageDue reports whether a checkpoint deferred by afterPage is due now,
// at the end of a step, and forgets it.
func (s *clusterSession) pageDue() bool {
	v := s.view
	if v == nil || !v.due {
		return false
	}
	v.due = false
	return true
}
