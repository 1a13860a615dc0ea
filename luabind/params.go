package luabind

import (
	"math"
	"strconv"
	"strings"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// The params object: one read-only table per bound rule (gopher-lua patch
// "readonly"), shared by the rule's action and its conditions, built at
// bind time. Raw reads (params["wait.seconds"]) are hits in it, with no
// metatable on the way (it used to be a userdata whose metatable's __index
// held the table: a metatable look-up at every read); params:number and
// params:bool return values parsed once at bind time, so no call parses or
// allocates. The three methods are entries of the same table, first (a
// table of a few string keys is searched in order: gopher-lua patch
// "smallstr"), each a closure over the rule's parsed values. A parameter
// named number, bool or string would hide the method, so those three are
// left out of the table; read them with params:string("number"). A write is
// the read-only error at the script's line (readOnlyWrite).

type paramsKey struct {
	tree *runtime.Tree
	rule int32
}

type paramsData struct {
	label  string
	table  *lua.LTable // what scripts see as params
	params runtime.Params
	nums   []lua.LValue // nil where the value is not a number
	bools  []int8       // -1 not a boolean, 0 false, 1 true
	strs   []lua.LValue
}

// paramsFor returns the params table of the rule being bound, creating it
// on first use.
func (e *Engine) paramsFor(s *runtime.Site) *lua.LTable {
	key := paramsKey{s.Tree, s.Rule}
	if t, ok := e.params[key]; ok {
		return t
	}
	L := e.L
	p := s.Tree.Rules[s.Rule].Params
	values := L.CreateTable(0, len(p)+3)
	pd := &paramsData{label: s.Label(), table: values, params: p,
		nums: make([]lua.LValue, len(p)), bools: make([]int8, len(p)), strs: make([]lua.LValue, len(p))}
	values.RawSetString("number", L.NewFunction(pd.number))
	values.RawSetString("bool", L.NewFunction(pd.bool))
	values.RawSetString("string", L.NewFunction(pd.string))
	for i, kv := range p {
		pd.strs[i] = lua.LString(kv.Value)
		if v, ok := parseNumber(kv.Value); ok {
			pd.nums[i] = lua.LNumber(v)
		}
		switch kv.Value {
		case "true":
			pd.bools[i] = 1
		case "false":
			pd.bools[i] = 0
		default:
			pd.bools[i] = -1
		}
		switch kv.Name {
		case "number", "bool", "string":
		default:
			values.RawSetString(kv.Name, pd.strs[i])
		}
	}
	meta := L.CreateTable(0, 2)
	meta.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("params of " + pd.label))
		return 1
	}))
	meta.RawSetString("__metatable", lua.LString("params"))
	values.Metatable = meta
	values.SetReadOnly(true)
	e.frozen.of[values] = &frozenTable{name: "params of " + pd.label, params: true}
	e.params[key] = values
	return values
}

// parseNumber accepts what a designer means by a number: decimal, with
// optional sign, fraction and exponent, surrounding spaces allowed; not
// NaN or infinities.
func parseNumber(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// find is a binary search over the rule's sorted parameters (no closure, so
// nothing escapes).
func (pd *paramsData) find(name string) int {
	lo, hi := 0, len(pd.params)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if pd.params[m].Name < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(pd.params) && pd.params[lo].Name == name {
		return lo
	}
	return -1
}

// check raises the error of a method called without a colon: its self is
// not this rule's params.
func (pd *paramsData) check(L *lua.LState, method string) {
	if L.Get(1) != pd.table {
		L.RaiseError("params:%s: call it as a method, with a colon: params:%s(name, default)", method, method)
	}
}

// pushDefault pushes argument 3 (the default) after checking its type.
func pushDefault(L *lua.LState, method string, want lua.LValueType) int {
	d := L.Get(3)
	if d != lua.LNil && d.Type() != want {
		L.ArgError(3, "params:"+method+": the default must be a "+want.String()+" or nil, not a "+d.Type().String())
	}
	L.Push(d)
	return 1
}

// number is params:number(name, default).
func (pd *paramsData) number(L *lua.LState) int {
	pd.check(L, "number")
	name := L.CheckString(2)
	i := pd.find(name)
	if i < 0 {
		return pushDefault(L, "number", lua.LTNumber)
	}
	if pd.nums[i] == nil {
		L.RaiseError("params:number: rule %s: parameter %q = %q is not a number", pd.label, name, pd.params[i].Value)
	}
	L.Push(pd.nums[i])
	return 1
}

// bool is params:bool(name, default): "true" or "false".
func (pd *paramsData) bool(L *lua.LState) int {
	pd.check(L, "bool")
	name := L.CheckString(2)
	i := pd.find(name)
	if i < 0 {
		return pushDefault(L, "bool", lua.LTBool)
	}
	if pd.bools[i] < 0 {
		L.RaiseError("params:bool: rule %s: parameter %q = %q is not a boolean (true or false)", pd.label, name, pd.params[i].Value)
	}
	L.Push(lua.LBool(pd.bools[i] == 1))
	return 1
}

// string is params:string(name, default).
func (pd *paramsData) string(L *lua.LState) int {
	pd.check(L, "string")
	name := L.CheckString(2)
	i := pd.find(name)
	if i < 0 {
		return pushDefault(L, "string", lua.LTString)
	}
	L.Push(pd.strs[i])
	return 1
}
