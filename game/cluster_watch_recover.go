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

// watchRecovery is what a conductor that went on from a checkpoint knows
// of the run it replays (Recovered).
type watchRecovery struct {
	since *cluster.ReloadManifest // the checkpoint's files, until the replay is over
	to    uint64                  // the step the lost link reached

	failed *cluster.ReloadManifest // the last reload's files when it failed (FailedReload: cluster_reload_failed.go)
	held   *ReloadOptions          // a reload asked for during the replay (cluster_reload_held.go)
}

// Recovered tells a conductor that goes on from a checkpoint which files
// the run ran with there: man, the checkpoint's files (those of the last
// reload applied before it, or those the run started with; nil: not
// known), held, the paths a lost link's watcher saw change that no reload
// read (Unreloaded; absolute, as the watcher reports them), and to, the
// step the lost link reached (0: not known, as after the conductor's
// loss). Once the replay is over (the run past step to, and no journaled
// input following a later step), every file of man whose content in the
// run's folder is not man's, and every held path but those whose content
// is man's, is reloaded together at the next step boundary (BetweenSteps,
// with Watch), journaled as any reload. Until then what the watcher sees
// waits too: the replay writes again what the lost link wrote, which an
// output that is a stream cannot cut. A replayed reload compares the
// run's folder with its own files instead (leaveCopy). Call it before
// the first step.
func (c *Conductor) Recovered(man *cluster.ReloadManifest, held []string, to uint64) {
	c.rec.since, c.rec.to = man, to
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

// replaying reports whether the replay goes on after the step just done:
// the lost link went further (a reload now would write its lines among
// bytes a stream holds already), or a journaled input follows a later
// step (a reload journaled now would come before it in the journal, and a
// later replay would meet the two out of order). The inputs of the step
// just done are applied before any new one (replayDue).
func (c *Conductor) replaying() bool {
	n := len(c.pending)
	return c.g.step < c.rec.to || n > 0 && c.pending[n-1].Step > c.g.step
}

// settle, once the replay is over, points a conductor opened from a copy
// of the checkpoint's files back at the run's folder, and notes which of
// the checkpoint's files changed there (Recovered).
func (c *Conductor) settle() {
	man := c.rec.since
	c.rec.since = nil
	switch {
	case c.reloads > 0: // a replayed reload compared the run's folder with its own files (leaveCopy)
	case c.home != nil:
		c.leaveCopy(man)
	case man != nil:
		c.stale = changedSince(c.g.cfg, man, c.programPaths(man), c.stale)
	}
	if c.reloads > 0 && c.applied != nil {
		man = c.applied // the files of the last replayed reload
	}
	if man != nil && c.g.watcher != nil {
		c.stale = append(c.stale, c.addedSince(SeenFiles(man, c.rec.failed))...) // cluster_watch_added.go
	}
}
