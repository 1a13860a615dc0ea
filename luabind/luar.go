package luabind

import (
	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// Exposing a game's Go values to scripts.
//
// A game that embeds the runtime from Go often has its own objects (a
// physics body, a navigation query) that scripts should call. Wrap turns
// any Go value into a Lua value with gopher-luar: struct fields and methods,
// maps, slices and functions become usable from Lua. It is convenient but
// slower than ctx (about 1 µs and a dozen allocations per method call
// against ctx's table reads), so keep it off the per-step hot path when
// you can, and remember that saves (SPEC §6) hold only plain Lua data: a
// wrapped value in ctx.agent or ctx.memory cannot be saved.

// Wrap converts a Go value to a Lua value with gopher-luar.
func (e *Engine) Wrap(v any) lua.LValue { return luar.New(e.L, v) }

// SetGlobal makes a Go value a global of every script.
func (e *Engine) SetGlobal(name string, v any) { e.L.SetGlobal(name, luar.New(e.L, v)) }
