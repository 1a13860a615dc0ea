package main

import (
	"github.com/btrun/btrun/game"
)

// The live view's reloads in a cluster (docs/cluster.md, "The live view"):
// the page's Reload button and the editor's save reload the whole cluster
// between two steps (game.Game.ReloadAll and game.DebugHost.Reload are
// game.Conductor.Reload on a conductor: journaled, then applied on every
// process), in the page's moment before the step. As after -watch's
// reloads, the run then takes a checkpoint at once, so that a lost process
// goes back to before a reload only when it was lost during it. The page's
// moment may have applied other inputs before the reload (a signal, a
// jump): the checkpoint holds what they did, and the signals their
// handlers and the reload's cancel hooks sent for the next step
// (game/cluster_checkpoint.go), so the journal forgets the step's inputs
// so far.

// afterPage follows the live view's moment: when the page reloaded, it
// takes the checkpoint after the reload, unless the reload failed the
// cluster (the next step then fails with it, and the run recovers).
func (s *clusterSession) afterPage(c *game.Conductor, until uint64) error {
	v := s.view
	if v == nil || c.Reloads() == v.reloads {
		return nil
	}
	v.reloads = c.Reloads()
	s.fault.at("reload", c.Step()) // cluster_faults.go: the reload journaled and applied, its checkpoint not taken
	if c.PageFailed() != nil {     // a shard lost during the reload: the step meets the loss and recovers
		return nil
	}
	if err := s.checkpoint(c, until); err != nil {
		return err
	}
	return s.inputs.Prune(c.Step() + 1) // the checkpoint holds the step's inputs so far
}
