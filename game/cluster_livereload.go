package game

import "errors"

// The live view's reloads on a cluster's conductor (docs/cluster.md, "The
// live view"): the page's Reload button (Game.ReloadAll) and the editor's
// save (DebugHost.Reload) reload the whole cluster through
// Conductor.Reload, as -watch does: journaled, then applied on every
// process between the same two steps as one process's reload, with one
// process's answer (a reload that fails changes nothing anywhere, and says
// why with the file's line and column). A replay applies it again from the
// journal, from the files it stored.
//
// A reload that fails the cluster (a shard lost as it reached it) is told
// to the page, and kept for the run's next step, which fails with it
// (runDebugged): the run then recovers as from any lost shard, the reload
// applied again from the journal.

// Reload is the editor's save's reload: the game's own.
func (h *debugHost) Reload(opts ReloadOptions) (*ReloadReport, error) {
	return (*Game)(h).Reload(opts)
}

// Reload on a conductor is the whole cluster's (Conductor.Reload).
func (h clusterHost) Reload(opts ReloadOptions) (*ReloadReport, error) {
	rep, err := h.d.c.Reload(opts)
	return rep, h.d.keep(err)
}

// reloadAll is Game.ReloadAll on a conductor: Conductor.ReloadAll.
func (d *clusterDebug) reloadAll() (string, error) {
	line, err := d.c.ReloadAll()
	return line, d.keep(err)
}

// keep keeps a reload's failure of the cluster for the next step, and
// returns err.
func (d *clusterDebug) keep(err error) error {
	if err != nil && !errors.Is(err, ErrReload) && d.failed == nil {
		d.failed = err
	}
	return err
}

// PageFailed is a page's reload that failed the cluster, which the run's
// next step fails with (nil for none): the run takes no checkpoint after
// it (its link is broken), and recovers at that step.
func (c *Conductor) PageFailed() error {
	if d := c.g.cl.debug; d != nil {
		return d.failed
	}
	return nil
}
