package game

import (
	"slices"

	"github.com/btrun/btrun/cluster"
)

// -watch over a recovery (docs/cluster.md, "Reloads"): a lost process
// takes its watcher's pending changes with it, and a new link's watcher
// sees only what changes after it starts. One process with -watch never
// loses an edit, so a conductor that goes on from a checkpoint (a new link
// after a lost shard, or -resume after a lost conductor) is told which
// files the run ran with there (Recovered: the checkpoint's files, by
// hash) and what the old watcher had seen and no reload had read; once
// the replay is over, what differs in the run's folder is reloaded at the
// next step boundary, journaled as any -watch reload, so that a later
// replay meets it at the same step.

// Recovered tells a conductor that goes on from a checkpoint which files
// the run ran with there: man, the checkpoint's files (those of the last
// reload applied before it, or those the run started with; nil: not
// known), and held, the paths a lost link's watcher saw change that no
// reload read (Unreloaded; absolute, as the watcher reports them). Once
// the replay is over (no journaled input follows a later step), every
// file of man whose content in the run's folder is not man's, and every
// held path but those whose content is man's, is reloaded together at the
// next step boundary (BetweenSteps, with Watch). A replayed reload
// compares the run's folder with its own files instead
// (cluster_reload_watch.go). Call it before the first step.
func (c *Conductor) Recovered(man *cluster.ReloadManifest, held []string) {
	c.since = man
	c.hold(held)
}

// Unreloaded is what the watcher saw change and no reload read yet: the
// paths held during a replay and the watcher's batch if one is ready. A
// conductor that lost a shard gives them to the next link's (Recovered).
func (c *Conductor) Unreloaded() []string {
	if w := c.g.watcher; w != nil {
		select {
		case batch := <-w.w.Changes():
			c.hold(batch)
		default:
		}
	}
	return slices.Clone(c.stale)
}

// hold keeps paths the watcher saw for a later reload, each once however
// long the wait.
func (c *Conductor) hold(paths []string) {
	if len(paths) == 0 {
		return
	}
	c.stale = append(c.stale, paths...)
	slices.Sort(c.stale)
	c.stale = slices.Compact(c.stale)
}

// replaying reports whether a journaled input follows a later step than
// the one just done: a reload journaled now would come before it in the
// journal, and a later replay would meet the two out of order. The inputs
// of the step just done are applied before any new one (replayDue).
func (c *Conductor) replaying() bool {
	n := len(c.pending)
	return n > 0 && c.pending[n-1].Step > c.g.step
}

// settle, once the replay is over, points a conductor opened from a copy
// of the checkpoint's files back at the run's folder, and notes which of
// the checkpoint's files changed there (Recovered).
func (c *Conductor) settle() {
	man := c.since
	c.since = nil
	switch {
	case c.reloads > 0: // a replayed reload compared the run's folder with its own files (leaveCopy)
	case c.home != nil:
		c.leaveCopy(man)
	case man != nil:
		c.stale = changedSince(c.g.cfg, man, c.programPaths(man), c.stale)
	}
}
