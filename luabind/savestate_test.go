package luabind

import (
	"errors"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// A script that fills memory, agent and state with every kind of value.
const saveScripts = `
local bt = require("bt")
bt.action("fill", function(ctx, params)
  local m = ctx.memory
  m.int, m.float, m.neg0, m.big = 3, 2.5, -0.0, 2^60
  m.nan, m.inf, m.ninf = 0/0, 1/0, -1/0
  m.list = {10, 20, 30}
  m[1], m["1"] = "number key", "string key"
  m.nested = {a = {b = {c = "deep"}}, empty = {}}
  m.flag, m.off = true, false
  ctx.agent.x, ctx.agent.name = 4.25, "scout"
  ctx.state.step = ctx.step
  return bt.RUNNING
end)
bt.action("check", function(ctx, params)
  local m = ctx.memory
  assert(m.int == 3 and m.float == 2.5 and 1/m.neg0 == -1/0 and m.big == 2^60, "numbers")
  assert(m.nan ~= m.nan and m.inf == 1/0 and m.ninf == -1/0, "nan and inf")
  assert(#m.list == 3 and m.list[3] == 30, "list")
  assert(m[1] == "number key" and m["1"] == "string key", "keys stay apart")
  assert(m.nested.a.b.c == "deep" and next(m.nested.empty) == nil, "nested and empty")
  assert(m.flag == true and m.off == false, "booleans")
  assert(ctx.agent.x == 4.25 and ctx.agent.name == "scout", "agent")
  return bt.SUCCESS
end)
`

// TestSaveHost_luaValuesComeBackExactly saves an agent whose Lua tables hold
// every kind of value and restores it into a fresh agent.
func TestSaveHost_luaValuesComeBackExactly(t *testing.T) {
	f := newFixture(t, map[string]string{"fill.lua": saveScripts})
	f.bind(`<behaviorTree><sequence id="root"><action id="fill" name="fill"/><action id="check" name="check"/></sequence></behaviorTree>`)
	a := f.agent("a1")
	if got := step(t, a); got != "running" {
		t.Fatal(got)
	}
	data, err := runtime.SaveAgents([]*runtime.Agent{a}, f.e)
	if err != nil {
		t.Fatal(err)
	}
	b := f.agent("a1")
	if _, err := runtime.RestoreAgents(data, []*runtime.Agent{b}, f.e); err != nil {
		t.Fatal(err)
	}
	// b is at "fill" with fill's ctx.state; then check asserts every value.
	st, _ := f.e.Data(b)
	if s := st.State(); s == nil || s.RawGetString("step").String() != "1" {
		t.Errorf("ctx.state was not restored: %v", s)
	}
	if err := b.Jump("check"); err != nil {
		t.Fatal(err)
	}
	if got := step(t, b); got != "success" {
		t.Fatalf("the restored values differ: %s", got)
	}
	again, err := runtime.SaveAgents([]*runtime.Agent{a}, f.e)
	if err != nil || string(again) != string(data) {
		t.Error("saving the same agent twice gives different bytes")
	}
}

// TestSaveHost_unsaveableValuesNameAgentAndPath: functions, userdata and
// tables reachable twice are errors naming the agent and the path.
func TestSaveHost_unsaveableValuesNameAgentAndPath(t *testing.T) {
	cases := []struct{ lua, want string }{
		{`m.target = {onHit = function() end}`, `agent a1: memory.target.onHit: a function cannot be saved`},
		{`m.ctx = ctx`, `agent a1: memory.ctx: a userdata cannot be saved`},
		{`local t = {}; m.a = t; m.b = t`, `agent a1: memory.b: the table is also at memory.a; a table reachable twice`},
		{`m.self = m`, `agent a1: memory.self: the table is also at memory`},
		{`m[{}] = 1`, `agent a1: memory[table: `},
		{`ctx.agent.back = m`, `agent a1: memory: the table is also at agent.back`},
	}
	for _, c := range cases {
		f := newFixture(t, map[string]string{"bad.lua": `
local bt = require("bt")
bt.action("bad", function(ctx, params)
  local m = ctx.memory
  ` + c.lua + `
  return bt.RUNNING
end)`})
		f.bind(`<behaviorTree><action id="root" name="bad"/></behaviorTree>`)
		a := f.agent("a1")
		step(t, a)
		_, err := runtime.SaveAgents([]*runtime.Agent{a}, f.e)
		if err == nil || !errors.Is(err, ErrSave) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got  %v\n want ...%s...", c.lua, err, c.want)
		}
	}
}

// TestSaveHost_sharedBetweenAgentsIsAnErrorInOneSave: within BeginSave, a
// table reachable from two agents cannot be saved either.
func TestSaveHost_sharedBetweenAgentsIsAnErrorInOneSave(t *testing.T) {
	f := newFixture(t, map[string]string{"share.lua": `
local bt = require("bt")
local shared = {}
bt.action("share", function(ctx, params) ctx.memory.s = shared; return bt.RUNNING end)`})
	f.bind(`<behaviorTree><action id="root" name="share"/></behaviorTree>`)
	a, b := f.agent("a1"), f.agent("a2")
	step(t, a)
	step(t, b)
	f.e.BeginSave()
	defer f.e.EndSave()
	_, err := runtime.SaveAgents([]*runtime.Agent{a, b}, f.e)
	if err == nil || !strings.Contains(err.Error(), "agent a2: memory.s: the table is also reachable from agent a1 memory.s") {
		t.Errorf("got %v", err)
	}
}

// TestCheckHost_refusesAStateOfTheWrongShape without changing the agent.
func TestCheckHost_refusesAStateOfTheWrongShape(t *testing.T) {
	f := newFixture(t, map[string]string{"x.lua": `require("bt").action("x", function() return "running" end)`})
	f.bind(`<behaviorTree><action id="root" name="x"/></behaviorTree>`)
	a := f.agent("a1")
	for _, v := range []runtime.Value{
		{},
		{Kind: runtime.TableValue},
		{Kind: runtime.TableValue, Table: []runtime.Field{{Key: runtime.Value{Kind: runtime.StringValue, Str: "agent"}, Val: runtime.Value{Kind: runtime.NumberValue, Num: 1}}}},
	} {
		enc := savecodec.NewEncoder()
		runtime.EncodeValue(enc, v)
		if err := f.e.CheckHost(a, savecodec.NewDecoder(enc.Bytes(), enc.Strings())); err == nil || !errors.Is(err, runtime.ErrCorrupt) {
			t.Errorf("%+v: %v", v, err)
		}
	}
}
