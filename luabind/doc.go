// Package luabind makes Lua (gopher-lua, Lua 5.1) the first-class way to
// write btrun actions, conditions and scorers. It owns one sandboxed
// *lua.LState per Engine, loads the scripts of the configured folders,
// exposes the `bt` module they register through, gives each agent a `ctx`
// object and each bound rule a `params` object, and adapts the registered
// Lua functions to runtime.Action, runtime.Condition and runtime.Scorer.
// docs/lua.md is the scripts' manual; SPEC §4 is the contract.
//
// # Life of an engine
//
//	e, err := luabind.New(luabind.Options{Paths: []string{"scripts/ai"}, Seed: 1})
//	err = e.Load()            // compile every .lua, run them in path order
//	err = e.Register(reg)     // bt.action / bt.condition / bt.scorer -> registry, plus bt.lua
//	bound, err := runtime.Bind(tree, reg, runtime.BindOptions{})
//	a := bound.NewAgent("wanderer-1", env) // env.Seed seeds the agents' generators
//	err = e.Attach(a)         // ctx, ctx.memory, ctx.agent (in a.UserData)
//	w, err := e.LoadWorld("world")
//	err = w.Spawn(a)          // the world script fills ctx.agent
//	st, err := a.Step(0.1)    // Lua actions and conditions run inside
//	e.Close()
//
// # Hot path
//
// A Lua action's Run is one protected call into Lua with the agent's ctx
// userdata and the rule's params userdata. Both are made once (ctx per agent
// at Attach, params per rule at bind time) and are hand-written userdata
// whose reads resolve to plain table hits, so reading ctx.time, ctx.agent or
// params["x"] costs no allocation and no Go call. gopher-luar (Wrap,
// SetGlobal) is for a host game's own Go objects, not for ctx.
//
// # Bounded calls
//
// Every call into Lua (actions, conditions, scorers, the world's spawn,
// save and load, loading) is bounded by Options.CallTimeout, and the
// world's init and tick by budgets of their own (World.SetTimeouts,
// budget.go): a runaway script is stopped with an error at its position,
// and the LState stays usable. See guard.go for the mechanism and what it
// costs. The state's memory is bounded by
// Options.MemoryLimit (memory.go: measured by walks the watchdog asks for
// when the heap grows), no string may pass an eighth of it (stringlib.go,
// concat.go), pattern matching checks the timeout as it goes (pattern.go),
// and sources are checked before they are parsed so that no chunk can
// overflow the parser's stack (precheck.go), nor take the compiler time
// that grows faster than its size or memory over the budget (compile.go,
// bigtables.go, compilecost.go).
//
// # Compiled code
//
// A CodeCache given to several engines (Options.Code) compiles each
// source once for all of them: gopher-lua shares a compiled chunk between
// states, read-only. A game gives one to every worker's engine and to its
// hot reloads.
//
// # Several engines, one game
//
// Freeze makes the module tables read-only (readonly.go), so that agents
// spread over several engines share nothing mutable through them.
//
// # Random numbers
//
// bt.random and math.random called for an agent draw from the agent's own
// generator (runtime.Agent.Rand), and otherwise from the world's, seeded
// with Options.Seed (random.go).
//
// # Errors
//
// Errors in scripts are *ScriptError values whose text starts with the
// script position ("scripts/ai/wander.lua:14: attempt to index a nil
// value"), wrapping one of the Err* sentinels; the runtime adds the agent,
// rule label and tree position when one happens during a step. Errors of
// the package itself start with "luabind: ". Load and Register report every
// problem they find as a runtime.ErrorList.
//
// # Concurrency
//
// An Engine is not safe for concurrent use: one goroutine loads, binds and
// steps all agents attached to it (gopher-lua's LState is single-threaded).
// The only other goroutine is the engine's watchdog, which touches nothing
// but atomic values: a call counter, the context it stops and the memory
// budget's request for a measurement (done by the engine's own goroutine). Agents of different
// engines may be stepped in parallel. Close stops the watchdog.
package luabind
