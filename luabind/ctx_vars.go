package luabind

import (
	"fmt"
	"math"
	"strconv"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// ctx:get(name) and ctx:set(name, value): a declared variable of any type
// (runtime's typed variables), typed both ways. A boolean is a Lua
// boolean, a number a number, a string a string, a vector a table {x=,
// y=, z=}. ctx:set with a value of another type, a number that is not
// finite, or an undeclared name is the step's error: nothing is converted.

func (e *Engine) ctxGet(L *lua.LState) int {
	st := checkCtx(L, "get")
	name := L.CheckString(2)
	v, err := st.agent.VarValue(name)
	if err != nil {
		L.RaiseError("ctx:get(%q): %s", name, undeclared("variable", name, st))
	}
	L.Push(e.varToLua(L, v))
	return 1
}

func (e *Engine) ctxSet(L *lua.LState) int {
	st := checkCtx(L, "set")
	name := L.CheckString(2)
	i, ok := st.agent.Tree().Tree.VarIndex(name)
	if !ok {
		L.RaiseError("ctx:set(%q): %s", name, undeclared("variable", name, st))
	}
	typ := st.agent.Tree().Tree.Vars[i].Type
	v, ok := varFromLua(typ, L.Get(3))
	if !ok {
		L.RaiseError("ctx:set(%q): variable %q is a %s; got %s (%s)", name, name, typ, L.Get(3).Type().String(), typeHint(typ))
	}
	if !finite(v) {
		L.RaiseError("ctx:set(%q): variable %q is a %s; got %s (%s)", name, name, typ, luaNumberText(L.Get(3)), typeHint(typ))
	}
	if err := st.agent.SetVarValueAt(i, v); err != nil {
		L.RaiseError("ctx:set(%q): %v", name, err)
	}
	return 0
}

// notBoolean says that ctx:var or ctx:setVar met a typed variable.
func notBoolean(st *AgentData, name, other string) string {
	t := st.agent.Tree().Tree
	i, _ := t.VarIndex(name)
	return fmt.Sprintf("variable %q is a %s, not a boolean; %s any type", name, t.Vars[i].Type, other)
}

func finite(v runtime.VarValue) bool {
	ok := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	return ok(v.Num) && ok(v.Vec.X) && ok(v.Vec.Y) && ok(v.Vec.Z)
}

// luaNumberText names a value that is not finite: nan, inf, or a table
// holding one.
func luaNumberText(v lua.LValue) string {
	if n, ok := v.(lua.LNumber); ok {
		return "the number " + strconv.FormatFloat(float64(n), 'g', -1, 64)
	}
	return "a " + v.Type().String() + " with a number that is not finite"
}

func typeHint(t runtime.VarType) string {
	switch t {
	case runtime.VarNumber:
		return "expected a finite number"
	case runtime.VarString:
		return "expected a string"
	case runtime.VarVector:
		return "expected a table {x=, y=, z=} of finite numbers"
	}
	return "expected true or false"
}

// varToLua is a variable's value in Lua.
func (e *Engine) varToLua(L *lua.LState, v runtime.VarValue) lua.LValue {
	switch v.Type {
	case runtime.VarNumber:
		return e.nums.box(v.Num)
	case runtime.VarString:
		return lua.LString(v.Str)
	case runtime.VarVector:
		t := L.CreateTable(0, 3)
		t.RawSetString("x", lua.LNumber(v.Vec.X))
		t.RawSetString("y", lua.LNumber(v.Vec.Y))
		t.RawSetString("z", lua.LNumber(v.Vec.Z))
		return t
	}
	return lua.LBool(v.Bool)
}

// varFromLua reads a Lua value as a value of type t, without conversion:
// false when it has another type (finiteness is SetVarValueAt's check).
func varFromLua(t runtime.VarType, lv lua.LValue) (runtime.VarValue, bool) {
	switch t {
	case runtime.VarBoolean:
		b, ok := lv.(lua.LBool)
		return runtime.BoolVar(bool(b)), ok
	case runtime.VarNumber:
		n, ok := lv.(lua.LNumber)
		return runtime.NumberVar(float64(n)), ok
	case runtime.VarString:
		s, ok := lv.(lua.LString)
		return runtime.StringVar(string(s)), ok
	}
	tb, ok := lv.(*lua.LTable)
	if !ok {
		return runtime.VarValue{}, false
	}
	var xyz [3]float64
	n := 0
	ok = true
	tb.ForEach(func(k, v lua.LValue) {
		ks, isStr := k.(lua.LString)
		num, isNum := v.(lua.LNumber)
		idx := -1
		if isStr {
			switch ks {
			case "x":
				idx = 0
			case "y":
				idx = 1
			case "z":
				idx = 2
			}
		}
		if idx < 0 || !isNum {
			ok = false
			return
		}
		xyz[idx] = float64(num)
		n++
	})
	if !ok || n != 3 {
		return runtime.VarValue{}, false
	}
	return runtime.VectorVar(xyz[0], xyz[1], xyz[2]), true
}
