package game

// The conductor without agents: a cluster's conductor
// runs the world, game.shared, the schedule, the gates, the directory of
// agents and the plugins, not the agents: its game is opened with
// Options.Conductor, which lists every agent (id, tree, place) and makes
// none, as a shard's game of an empty range (cluster_range.go). What read
// its copies of the agents before reads the directory: Route names a
// sender by its id, the gates end rounds from every agent's part by place
// (runtime.Gates.EndRoundParts, as a shard does for others' agents), the
// start is an exchange (cluster_nocopy_start.go), a save joins the shards'
// parts (cluster_saveparts.go), a load cuts the save file into the
// agents' saves (cluster_nocopy_load.go), and an agent added is made here
// only for the world's spawn and forgotten once its save is made.

// copies reports whether the conductor holds a copy of every agent: only
// for a live view, which draws them (cluster_debug.go). Without, its game
// was opened with Options.Conductor and makes none.
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
