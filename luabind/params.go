package luabind

import (
	"math"
	"strconv"
	"strings"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// The params object: one userdata per bound rule, shared by the rule's
// action and its conditions, built at bind time. Raw reads
// (params["wait.seconds"]) are hits in a per-rule table of strings;
// params:number and params:bool return values parsed once at bind time, so
// no call parses or allocates. The three methods are entries of that same
// table, first (a table of a few string keys is searched in order: gopher-lua
// patch "smallstr"), so that a call finds its method at the first link of
// the chain rather than through a further metatable. A parameter named
// number, bool or string would hide the method, so those three are left out
// of the raw table; read them with params:string("number").

type paramsKey struct {
	tree *runtime.Tree
	rule int32
}

type paramsData struct {
	label  string
	params runtime.Params
	nums   []lua.LValue // nil where the value is not a number
	bools  []int8       // -1 not a boolean, 0 false, 1 true
	strs   []lua.LValue
}

type paramsKit struct {
	number, bool, string lua.LValue // the methods
	newindex             *lua.LFunction
	tostring             *lua.LFunction
}

func (k *paramsKit) init(e *Engine) {
	L := e.L
	k.number = L.NewFunction(paramsNumber)
	k.bool = L.NewFunction(paramsBool)
	k.string = L.NewFunction(paramsString)
	k.newindex = L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("params are read-only (params[%q] = ...)", lua.LVAsString(L.Get(2)))
		return 0
	})
	k.tostring = L.NewFunction(func(L *lua.LState) int {
		pd := L.CheckUserData(1).Value.(*paramsData)
		L.Push(lua.LString("params of " + pd.label))
		return 1
	})
}

// paramsFor returns the params userdata of the rule being bound, creating
// it on first use.
func (e *Engine) paramsFor(s *runtime.Site) *lua.LUserData {
	key := paramsKey{s.Tree, s.Rule}
	if ud, ok := e.params[key]; ok {
		return ud
	}
	L := e.L
	p := s.Tree.Rules[s.Rule].Params
	pd := &paramsData{label: s.Label(), params: p,
		nums: make([]lua.LValue, len(p)), bools: make([]int8, len(p)), strs: make([]lua.LValue, len(p))}
	values := L.CreateTable(0, len(p)+3)
	values.RawSetString("number", e.paramsKit.number)
	values.RawSetString("bool", e.paramsKit.bool)
	values.RawSetString("string", e.paramsKit.string)
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
	meta := L.NewTable()
	meta.RawSetString("__index", values)
	meta.RawSetString("__newindex", e.paramsKit.newindex)
	meta.RawSetString("__tostring", e.paramsKit.tostring)
	meta.RawSetString("__metatable", lua.LString("params"))
	ud := &lua.LUserData{Value: pd, Env: L.Env, Metatable: meta}
	e.params[key] = ud
	return ud
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

func checkParams(L *lua.LState, method string) *paramsData {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if pd, ok := ud.Value.(*paramsData); ok {
			return pd
		}
	}
	L.RaiseError("params:%s: call it as a method, with a colon: params:%s(name, default)", method, method)
	return nil
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

// paramsNumber is params:number(name, default).
func paramsNumber(L *lua.LState) int {
	pd := checkParams(L, "number")
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

// paramsBool is params:bool(name, default): "true" or "false".
func paramsBool(L *lua.LState) int {
	pd := checkParams(L, "bool")
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

// paramsString is params:string(name, default).
func paramsString(L *lua.LState) int {
	pd := checkParams(L, "string")
	name := L.CheckString(2)
	i := pd.find(name)
	if i < 0 {
		return pushDefault(L, "string", lua.LTString)
	}
	L.Push(pd.strs[i])
	return 1
}
