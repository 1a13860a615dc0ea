package game

// The memory budget of a Lua state (run.lua_memory) covers every agent's
// tables on it (ctx.agent, ctx.memory, ctx.state), which a world's spawn
// fills for every agent: by the budget's own estimate (luabind/memory.go)
// those of 200,000 agents of the example game alone pass the 256 MB that
// suit the scripts of a smaller game (the spawn of one of them was stopped
// for it). Left out of the config, the budget is the default or an
// allowance per agent of the game, whichever is more: a game of up to
// 65,536 agents keeps the default exactly (and the string limit, an eighth
// of it, stays a round 32 MB), a bigger one grows with its agents. A value
// the config writes is taken as it is.

// LuaMemoryPerAgent is what each agent of the game is allowed by the
// default memory budget of a Lua state.
const LuaMemoryPerAgent = 4 << 10

// luaMemory is the memory budget of each of the game's Lua states.
func (g *Game) luaMemory() int64 {
	r := &g.cfg.Run
	if g.cfg.luaMemorySet || r.LuaMemory != DefaultLuaMemory {
		return int64(r.LuaMemory)
	}
	agents := max(len(g.agents), g.cfg.agentCount())
	return min(max(int64(r.LuaMemory), int64(agents)*LuaMemoryPerAgent), MaxLuaMemory)
}

// agentCount is how many agents the [[agents]] entries make.
func (c *Config) agentCount() int {
	n := 0
	for _, a := range c.Agents {
		n += max(a.Count, 0)
	}
	return n
}
