package luabind

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The sandbox (STYLE lesson 9): only the base, table, string and math
// libraries are opened. From base, the functions that reach files or
// compile code at run time are removed (dofile, loadfile, load,
// loadstring), as are collectgarbage (a script calling it every step would
// stall the game) and gopher-lua's debugging _printregs. There is no io,
// os, package, debug, coroutine or channel library; os.time and os.clock
// are therefore absent, which keeps runs deterministic. print writes to
// Options.Output; require is the engine's own (modules.go); math.random and
// math.randomseed are the engine's deterministic generator (random.go); most
// other math functions are allocation-free copies (mathlib.go).
// LState.SetMx is never called: it would exit the process.

var removedGlobals = []string{
	"dofile", "loadfile", "load", "loadstring", "collectgarbage", "_printregs",
	"module",
}

func (e *Engine) openSandbox() {
	L := e.L
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
	} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	for _, name := range removedGlobals {
		L.SetGlobal(name, lua.LNil)
	}
	L.SetGlobal("print", L.NewFunction(e.luaPrint))
	L.SetGlobal("require", L.NewFunction(e.luaRequire))
	L.SetGlobal(concatGlobal, L.NewFunction(e.luaConcat))
	L.SetGlobal(fillGlobal, L.NewFunction(e.luaFill))
	math := L.GetGlobal("math").(*lua.LTable)
	math.RawSetString("random", L.NewFunction(e.luaRandom))
	math.RawSetString("randomseed", L.NewFunction(e.luaRandomSeed))
	e.openFastMath(math)
}

// luaPrint is print: its arguments through tostring, separated by tabs.
func (e *Engine) luaPrint(L *lua.LState) int {
	var b strings.Builder
	for i := 1; i <= L.GetTop(); i++ {
		if i > 1 {
			b.WriteByte('\t')
		}
		b.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	b.WriteByte('\n')
	_, _ = e.out.Write([]byte(b.String()))
	return 0
}
