package game

// The live view's reloads on a cluster's conductor (docs/cluster.md, "The
// live view"): the page's Reload button (Game.ReloadAll) and the editor's
// save (DebugHost.Reload) reload the whole cluster through
// Conductor.Reload, as -watch does: journaled, then applied on every
// process between the same two steps as one process's reload, with one
// process's answer (a reload that fails changes nothing anywhere, and says
// why with the file's line and column). A replay applies it again from the
// journal, from the files it stored.

// Reload is the editor's save's reload: the game's own.
func (h *debugHost) Reload(opts ReloadOptions) (*ReloadReport, error) {
	return (*Game)(h).Reload(opts)
}

// Reload on a conductor is the whole cluster's (Conductor.Reload).
func (h clusterHost) Reload(opts ReloadOptions) (*ReloadReport, error) {
	return h.d.c.Reload(opts)
}
