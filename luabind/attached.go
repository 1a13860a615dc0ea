package luabind

// Attached is the number of agents whose Lua tables (ctx, ctx.memory,
// ctx.agent) the engine holds: a cluster's conductor, which holds no
// agents, holds none.
func (e *Engine) Attached() int { return len(e.attached) }
