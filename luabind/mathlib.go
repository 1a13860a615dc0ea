package luabind

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua's math functions push their result as a fresh LNumber, which
// Go boxes with an allocation per call: a script that steers with
// math.sqrt and math.atan2 allocates several times per step. The engine
// replaces the one- and two-argument functions with versions that box
// through its number slab (numbox.go), and math.max and math.min with
// versions that return the winning argument itself. Results are the same
// computations as gopher-lua's, bit for bit. math.huge is infinity, as in
// Lua 5.1.

var mathUnary = map[string]func(float64) float64{
	"abs": math.Abs, "acos": math.Acos, "asin": math.Asin, "atan": math.Atan,
	"ceil": math.Ceil, "cos": math.Cos, "cosh": math.Cosh, "exp": math.Exp,
	"floor": math.Floor, "log": math.Log, "log10": math.Log10, "sin": math.Sin,
	"sinh": math.Sinh, "sqrt": math.Sqrt, "tan": math.Tan, "tanh": math.Tanh,
	"deg": func(x float64) float64 { return x * 180 / math.Pi },
	"rad": func(x float64) float64 { return x * math.Pi / 180 },
}

var mathBinary = map[string]func(float64, float64) float64{
	"atan2": math.Atan2, "fmod": math.Mod, "pow": math.Pow,
}

func (e *Engine) openFastMath(t *lua.LTable) {
	L := e.L
	// Lua 5.1's math.huge is HUGE_VAL, infinity (math.huge == 1/0);
	// gopher-lua's is the largest finite number, which a check for finite
	// numbers (a scorer's result) would let through.
	t.RawSetString("huge", lua.LNumber(math.Inf(1)))
	for name, f := range mathUnary {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			L.Push(e.nums.box(f(float64(L.CheckNumber(1)))))
			return 1
		}))
	}
	for name, f := range mathBinary {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			L.Push(e.nums.box(f(float64(L.CheckNumber(1)), float64(L.CheckNumber(2)))))
			return 1
		}))
	}
	t.RawSetString("max", L.NewFunction(func(L *lua.LState) int { return pickNumber(L, func(a, b lua.LNumber) bool { return a > b }) }))
	t.RawSetString("min", L.NewFunction(func(L *lua.LState) int { return pickNumber(L, func(a, b lua.LNumber) bool { return a < b }) }))
}

// pickNumber returns the argument that better prefers over all others (the
// first of equals), checking every argument is a number.
func pickNumber(L *lua.LState, better func(a, b lua.LNumber) bool) int {
	top := L.GetTop()
	if top == 0 {
		L.RaiseError("wrong number of arguments")
	}
	best, bi := L.CheckNumber(1), 1
	for i := 2; i <= top; i++ {
		if v := L.CheckNumber(i); better(v, best) {
			best, bi = v, i
		}
	}
	if _, ok := L.Get(bi).(lua.LNumber); ok {
		L.Push(L.Get(bi))
	} else {
		L.Push(best) // a numeric string argument, converted (rare: allocates)
	}
	return 1
}
