package game

// copies reports whether the conductor holds a copy of every agent: only
// for a live view, which draws them (cluster_debug.go). Without, its game
// was opened with Options.Conductor and makes none (cluster_nocopy.go).
func (h *conductorHost) copies() bool { return h.g.held == nil }
