package luabind

import (
	"math"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// Random numbers. bt.random and math.random draw from one of two kinds of
// generator, both SplitMix64 (runtime.Rand):
//
//   - called for an agent (its action, condition, scorer, start or cancel
//     hook, or the world's spawn for it), from that agent's own generator,
//     runtime.Agent.Rand: seeded from the run's seed and the agent's id,
//     saved with the agent. One agent's draws never shift another's, so
//     adding an agent or stepping agents on other threads changes nobody
//     else's numbers;
//   - otherwise (the world's init, tick, save and load, a chunk run with
//     DoString), from the world's generator, seeded with Options.Seed and
//     saved through RandomState.

// RandomState is the state of the world's generator (the one bt.random and
// math.random use outside an agent's calls).
func (e *Engine) RandomState() uint64 { return e.rng.State() }

// SetRandomState restores a state returned by RandomState.
func (e *Engine) SetRandomState(s uint64) { e.rng.SetState(s) }

// generator is the generator a call to bt.random draws from now.
func (e *Engine) generator() *runtime.Rand {
	if e.cur != nil && e.cur.agent != nil {
		return e.cur.agent.Rand()
	}
	return &e.rng
}

// luaRandom is bt.random and math.random, with Lua 5.1's semantics:
// random() is a number in [0, 1), random(m) an integer in [1, m],
// random(m, n) an integer in [m, n]; arguments are truncated to integers.
func (e *Engine) luaRandom(L *lua.LState) int {
	r := e.generator().Float64()
	switch L.GetTop() {
	case 0:
		L.Push(e.nums.box(r))
	case 1:
		u := math.Trunc(float64(L.CheckNumber(1)))
		if u < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(e.nums.box(math.Floor(r*u) + 1))
	case 2:
		l := math.Trunc(float64(L.CheckNumber(1)))
		u := math.Trunc(float64(L.CheckNumber(2)))
		if l > u {
			L.ArgError(2, "interval is empty")
		}
		L.Push(e.nums.box(math.Floor(r*(u-l+1)) + l))
	default:
		L.RaiseError("wrong number of arguments to random (0, 1 or 2)")
	}
	return 1
}

// luaRandomSeed is math.randomseed(x): it reseeds, with the integer part of
// x, the generator the caller draws from: an agent's (as the runtime seeds
// it, x standing for the run's seed, so that agents reseeded alike still
// draw apart) or the world's. Scripts rarely need it: every generator is
// already seeded from the run's seed.
func (e *Engine) luaRandomSeed(L *lua.LState) int {
	x := int64(L.CheckNumber(1))
	if e.cur != nil && e.cur.agent != nil {
		e.cur.agent.Rand().SetState(runtime.AgentRandState(x, e.cur.agent.ID()))
		return 0
	}
	e.rng.SetState(uint64(x))
	return 0
}
