package game

// copies reports whether the conductor holds a copy of every agent: only
// for a live view, which draws them (cluster_debug.go). Without, its game
// was opened with Options.Conductor and makes none (cluster_nocopy.go).
func (h *conductorHost) copies() bool { return h.g.held == nil }

// forgetCopy forgets the runtime agent the conductor made for ga (an agent
// added: the world's spawn runs on the conductor, and the agent's shard
// restores it from the conductor's save of it): its Lua tables, its place
// in the world's game.agents. Its directory entry stays.
func (g *Game) forgetCopy(ga *gameAgent) {
	if ga.a == nil {
		return
	}
	if e := luaEngineOf(ga.a); e != nil {
		e.Detach(ga.a)
	}
	delete(g.byPtr, ga.a)
	ga.a, ga.changes = nil, ga.changes[:0]
	g.worldTable(ga)
	g.activeStale = true
}

// AgentCount is the number of agents of the game: those it lists, made
// here or not (a shard's game, or a conductor's opened with
// Options.Conductor, makes some or none of them: Agents lists those).
func (g *Game) AgentCount() int { return len(g.agents) }
