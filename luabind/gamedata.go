package luabind

import (
	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// A game's own agent data (runtime.AgentData) as ctx.agent: a userdata
// whose reads and writes go to the game's Go values (Field, SetField), for
// games that embed btrun and keep their units in Go. Scripts use it as the
// table it replaces (ctx.agent.x, ctx.agent.x = 1), but for pairs() and
// rawget, which a userdata does not have. A save writes the data's own
// bytes (MarshalBinary) in place of the agent table: the host Value is
// {data = {go = BYTES}, memory = ..., state = ...}.
//
// Agents attached without data keep the Lua table, and pay nothing for
// this: the one cost is a nil check where ctx.agent is handed out and where
// the plugin host reads fields.

// AttachData attaches the agent (Attach) with the game's data d as its
// ctx.agent. It must be given before the agent's first Lua call and
// before a restore; a nil d keeps the Lua table.
func (e *Engine) AttachData(a *runtime.Agent, d runtime.AgentData) error {
	st, err := e.attach(a)
	if err != nil {
		return err
	}
	if d == nil {
		st.game, st.gameUD = nil, nil
		return nil
	}
	st.game = d
	st.gameUD = &lua.LUserData{Value: st, Env: e.L.Env, Metatable: e.dataMeta()}
	if v := &e.ctxKit.view; v.holder == st {
		v.holder = nil // the view's ctx.agent is handed out again at the next call
	}
	return nil
}

// GameData is the game's data of the agent, or nil when ctx.agent is a Lua
// table (runtime.DataHolder).
func (st *AgentData) GameData() runtime.AgentData { return st.game }

// AgentValue is ctx.agent as scripts see it: the game's data as a
// userdata, or the Lua table.
func (st *AgentData) AgentValue() lua.LValue {
	if st.game != nil {
		return st.gameUD
	}
	return st.data
}

// dataMeta is the metatable of every game data userdata, made once.
func (e *Engine) dataMeta() *lua.LTable {
	if e.gameMeta != nil {
		return e.gameMeta
	}
	L := e.L
	m := L.NewTable()
	m.RawSetString("__index", L.NewFunction(e.dataIndex))
	m.RawSetString("__newindex", L.NewFunction(e.dataNewIndex))
	m.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		st := checkData(L)
		L.Push(lua.LString("agent data " + st.agent.ID()))
		return 1
	}))
	m.RawSetString("__metatable", lua.LString("agent data"))
	e.gameMeta = m
	return m
}

func checkData(L *lua.LState) *AgentData {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if st, ok := ud.Value.(*AgentData); ok && st.agent != nil && st.game != nil {
			return st
		}
	}
	L.RaiseError("ctx.agent: the agent was detached")
	return nil
}

// dataIndex is ctx.agent.NAME: the game's field, nil when it has none.
func (e *Engine) dataIndex(L *lua.LState) int {
	st := checkData(L)
	name, ok := L.Get(2).(lua.LString)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	v := st.game.Field(string(name))
	switch v.Kind {
	case runtime.NilValue:
		L.Push(lua.LNil)
	case runtime.BoolValue:
		L.Push(lua.LBool(v.Bool))
	case runtime.NumberValue:
		L.Push(e.nums.box(v.Num))
	case runtime.StringValue:
		L.Push(lua.LString(v.Str))
	default:
		L.Push(e.tableField(L, st, string(name), v)) // a table, written back when the call returns (gamedata_copies.go)
	}
	return 1
}

// dataNewIndex is ctx.agent.NAME = VALUE.
func (e *Engine) dataNewIndex(L *lua.LState) int {
	st := checkData(L)
	name, ok := L.Get(2).(lua.LString)
	if !ok {
		L.RaiseError("ctx.agent: the game's agent data has named fields; cannot set the key %s", L.Get(2).String())
	}
	var v runtime.Value
	switch x := L.Get(3).(type) {
	case *lua.LNilType:
	case lua.LBool:
		v = runtime.Bool(bool(x))
	case lua.LNumber:
		v = runtime.Number(float64(x))
	case lua.LString:
		v = runtime.String(string(x))
	default:
		var err error
		if v, err = e.ToValue(x, "ctx.agent."+string(name)); err != nil {
			L.RaiseError("%v", err)
		}
	}
	if len(e.dataCopies) > 0 {
		e.forgetField(st, string(name))
	}
	if err := st.game.SetField(string(name), v); err != nil {
		L.RaiseError("ctx.agent.%s: %v", string(name), err)
	}
	return 0
}
