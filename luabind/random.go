package luabind

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// rng is the run's random generator: SplitMix64. Its whole state is one
// uint64 (any value is valid), so saving and restoring a run needs only
// RandomState and SetRandomState. One generator serves bt.random and
// math.random for every agent, in the order the scripts call it, which is
// deterministic because agents are stepped in a fixed order.
type rng struct{ s uint64 }

func (r *rng) seed(seed int64) { r.s = uint64(seed) }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a number in [0, 1) with 53 random bits.
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// RandomState is the state of the generator behind bt.random and
// math.random.
func (e *Engine) RandomState() uint64 { return e.rng.s }

// SetRandomState restores a state returned by RandomState.
func (e *Engine) SetRandomState(s uint64) { e.rng.s = s }

// luaRandom is bt.random and math.random, with Lua 5.1's semantics:
// random() is a number in [0, 1), random(m) an integer in [1, m],
// random(m, n) an integer in [m, n]; arguments are truncated to integers.
func (e *Engine) luaRandom(L *lua.LState) int {
	r := e.rng.float()
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

// luaRandomSeed is math.randomseed(x): it reseeds the run's generator with
// the integer part of x, deterministically. Scripts rarely need it: the
// generator is already seeded from the run's seed.
func (e *Engine) luaRandomSeed(L *lua.LState) int {
	e.rng.seed(int64(L.CheckNumber(1)))
	return 0
}
