package luabind

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

const declsXML = `
<variables><variable name='Alert' default='false'/></variables>
<signals><signal name='OnAlert' variable='Alert' value='true'/></signals>
<timestamps><timestamp name='Seen'/><timestamp name='Lost' exclusiveTo='Seen'/></timestamps>`

// luaGlobal reads a global as a Go value: numbers, strings, booleans, nil.
func luaGlobal(f *fixture, path string) any {
	f.t.Helper()
	if err := f.e.DoString("get", "_get = "+path); err != nil {
		f.t.Fatal(err)
	}
	switch v := f.e.L.GetGlobal("_get").(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		return string(v)
	case lua.LBool:
		return bool(v)
	case *lua.LNilType:
		return nil
	default:
		return v
	}
}

func expectGlobals(t *testing.T, f *fixture, want map[string]any) {
	t.Helper()
	for path, w := range want {
		if got := luaGlobal(f, path); got != w {
			t.Errorf("%s = %#v, want %#v", path, got, w)
		}
	}
}

func TestCtx_fields(t *testing.T) {
	f := newFixture(t, map[string]string{"probe.lua": `
		bt.action("probe", function(ctx, params)
			seen = {id = ctx.id, tree = ctx.tree, rule = ctx.rule, time = ctx.time, dt = ctx.dt,
			        step = ctx.step, firstRun = ctx.firstRun, memory = type(ctx.memory), agent = type(ctx.agent),
			        str = tostring(ctx)}
			return bt.RUNNING
		end)`})
	f.bind(tree(`<sequence id='root'><action id='.probe' name='probe'/></sequence>`))
	a := f.agent("a1")
	if got := step(t, a); got != "running" {
		t.Fatal(got)
	}
	expectGlobals(t, f, map[string]any{
		"seen.id": "a1", "seen.tree": "test.xml", "seen.rule": "root.probe", "seen.time": 0.5, "seen.dt": 0.5,
		"seen.step": 1.0, "seen.firstRun": true, "seen.memory": "table", "seen.agent": "table", "seen.str": "ctx a1",
	})
	a.Step(0.25)
	expectGlobals(t, f, map[string]any{"seen.time": 0.75, "seen.dt": 0.25, "seen.step": 2.0, "seen.firstRun": false})
}

func TestCtx_treeNameAndRuleOfAListCondition(t *testing.T) {
	f := newFixture(t, map[string]string{"c.lua": `
		bt.condition("where", function(ctx) rules = (rules or "") .. ctx.rule .. ";" treeName = ctx.tree return true end)
		bt.action("ok", function() return bt.SUCCESS end)`})
	f.bind(tree(`<sequence id='root'><condition>where</condition><action id='.a' name='ok'><condition>where</condition></action></sequence>`))
	f.e.NameTree(f.tree.Tree, "guard")
	a := f.agent("a1")
	if got := step(t, a); got != "success" {
		t.Fatal(got)
	}
	// root entered, then .a's condition, then root re-checks its own after .a succeeded.
	expectGlobals(t, f, map[string]any{"rules": "root;root.a;root;", "treeName": "guard"})
}

func TestCtx_stateIsFreshOnEachArrivalMemoryLastsForTheAgentsLife(t *testing.T) {
	f := newFixture(t, map[string]string{"count.lua": `
		bt.action("count", function(ctx)
			ctx.state.n = (ctx.state.n or 0) + 1
			ctx.memory.total = (ctx.memory.total or 0) + 1
			log = (log or "") .. ctx.state.n .. "/" .. ctx.memory.total .. " "
			if ctx.state.n == 2 then return bt.SUCCESS end
			return bt.RUNNING
		end)
		bt.action("peek", function(ctx)
			log = log .. "peek:" .. tostring(ctx.state.n) .. " "
			return bt.SUCCESS
		end)`})
	f.bind(tree(`<sequence id='root'><action id='.count' name='count'/><action id='.peek' name='peek'/></sequence>`))
	a := f.agent("a1")
	b := f.agent("b1")
	for range 3 {
		step(t, a)
	}
	step(t, b)
	expectGlobals(t, f, map[string]any{"log": "1/1 2/2 peek:nil 1/3 1/1 "})
}

// TestCtx_stateTableIsReusedEmptied: an agent's ctx.state table is emptied
// and given to the next rule that uses it (no allocation per arrival),
// whatever string keys and short array items the last rule left in it.
// It is replaced by a new table when the last rule left more than eight
// entries or a key gopher-lua would remember for good (a boolean, a
// table, 1.5, a big index).
func TestCtx_stateTableIsReusedEmptied(t *testing.T) {
	f := newFixture(t, map[string]string{"s.lua": `
		bt.action("fill", function(ctx, params)
			local s, n = ctx.state, params:number("n")
			log = (log or "") .. "fill" .. n .. ":" .. tostring(next(s)) .. " "
			if prev ~= nil then
				log = log .. (rawequal(prev, s) and "same " or "new ")
			end
			prev = s
			for i = 1, n do s["k" .. i] = i end
			s[1], s[2] = "array", "array"
			local odd = params:string("odd", "")
			if odd == "bool" then s[true] = 1 elseif odd == "table" then s[{}] = 1 elseif odd == "big" then s[100] = 1 end
			return bt.SUCCESS
		end)`})
	f.bind(tree(`<sequence id='root'>
		<action id='.a' name='fill'><parameter name='n'>3</parameter></action>
		<action id='.b' name='fill'><parameter name='n'>2</parameter><parameter name='odd'>bool</parameter></action>
		<action id='.c' name='fill'><parameter name='n'>1</parameter><parameter name='odd'>table</parameter></action>
		<action id='.d' name='fill'><parameter name='n'>1</parameter><parameter name='odd'>big</parameter></action>
		<action id='.e' name='fill'><parameter name='n'>9</parameter></action>
		<action id='.f' name='fill'><parameter name='n'>1</parameter></action>
		<action id='.g' name='fill'><parameter name='n'>1</parameter></action>
	</sequence>`))
	a := f.agent("a1")
	step(t, a)
	expectGlobals(t, f, map[string]any{"log": "fill3:nil fill2:nil same fill1:nil new fill1:nil new fill9:nil new " +
		"fill1:nil new fill1:nil same "})
}

// TestCtx_stateTableIsReplacedAfterManyVisits: gopher-lua remembers every
// key name a table ever had, so a rule that makes up a new name on each
// visit would grow the reused table for good; it serves 64 visits at most.
func TestCtx_stateTableIsReplacedAfterManyVisits(t *testing.T) {
	f := newFixture(t, map[string]string{"v.lua": `
		bt.action("visit", function(ctx)
			local s = ctx.state
			if next(s) ~= nil then error("ctx.state not empty") end
			if prev ~= nil and not rawequal(prev, s) then changes = (changes or 0) + 1 end
			prev = s
			visits = (visits or 0) + 1
			s["k" .. visits] = true -- a new key name on every visit
			return bt.SUCCESS
		end)`})
	f.bind(tree(`<action id='v' name='visit'/>`))
	a := f.agent("a1")
	for range 130 {
		if got := step(t, a); got != "success" {
			t.Fatal(got)
		}
	}
	expectGlobals(t, f, map[string]any{"visits": 130.0, "changes": 2.0})
}

// TestCtx_viewFollowsTheCalledAgent: ctx.agent and ctx.state live in a view
// shared by all agents, written when the called agent changes, and only
// once scripts use them. Whatever the order of first use, each agent sees
// its own tables: here b starts reading ctx.agent at its third step, a
// uses ctx.state and b never touches it until it peeks.
func TestCtx_viewFollowsTheCalledAgent(t *testing.T) {
	f := newFixture(t, map[string]string{"v.lua": `
		bt.action("probe", function(ctx, params)
			local mine = ctx.id
			if ctx.id == "a1" then
				ctx.state.secret = "a's"
				log = (log or "") .. mine .. ":" .. ctx.agent.name .. " "
			elseif ctx.step >= 3 then
				log = (log or "") .. mine .. ":" .. ctx.agent.name .. ":" .. tostring(ctx.state.secret) .. " "
			end
			return bt.RUNNING
		end)`})
	f.bind(tree(`<action id='p' name='probe'/>`))
	a, b := f.agent("a1"), f.agent("b1")
	for _, ag := range []*runtime.Agent{a, b} {
		st, err := f.e.Data(ag)
		if err != nil {
			t.Fatal(err)
		}
		st.Table().RawSetString("name", lua.LString(ag.ID()+"-table"))
	}
	for range 4 {
		step(t, b)
		step(t, a)
	}
	expectGlobals(t, f, map[string]any{"log": "a1:a1-table a1:a1-table b1:b1-table:nil a1:a1-table b1:b1-table:nil a1:a1-table "})
}

func TestCtx_stateOfAnActionRunningAcrossSteps(t *testing.T) {
	f := newFixture(t, map[string]string{"w.lua": `
		bt.action("waitLua", {
			start = function(ctx, params) ctx.state.untilTime = ctx.time + params:number("wait.seconds", 1) end,
			run = function(ctx) return ctx.time >= ctx.state.untilTime and bt.SUCCESS or bt.RUNNING end,
		})`})
	f.bind(tree(`<action id='w' name='waitLua'><parameter name='wait.seconds'>1.2</parameter></action>`))
	a := f.agent("a1")
	var got []string
	for range 4 {
		got = append(got, step(t, a))
	}
	// Started at 0.5, so it waits until 1.7: steps at 0.5, 1.0, 1.5 run, 2.0 succeeds.
	if strings.Join(got, " ") != "running running running success" {
		t.Errorf("got %v", got)
	}
}

func TestCtx_variablesTimestampsSignals(t *testing.T) {
	f := newFixture(t, map[string]string{"v.lua": `
		bt.action("vars", function(ctx)
			if ctx.step == 1 then
				r = {before = ctx:var("Alert")}
				ctx:setVar("Alert", true)
				r.after = ctx:var("Alert")
				r.unset = ctx:since("Seen")
				ctx:stamp("Seen")
				r.now = ctx:since("Seen")
				return bt.RUNNING
			elseif ctx.step == 2 then
				r.later = ctx:since("Seen")
				ctx:setVar("Alert", false)
				ctx:stamp("Lost")            -- exclusive to Seen
				r.cleared = ctx:since("Seen")
				ctx:clearStamp("Lost")
				r.lost = ctx:since("Lost")
				ctx:signal("OnAlert")
				r.signalled = ctx:var("Alert")
				return bt.SUCCESS
			end
		end)`})
	f.bind(tree(declsXML + `<action id='v' name='vars'/>`))
	a := f.agent("a1")
	step(t, a)
	step(t, a)
	expectGlobals(t, f, map[string]any{
		"r.before": false, "r.after": true, "r.unset": nil, "r.now": 0.0,
		"r.later": 0.5, "r.cleared": nil, "r.lost": nil, "r.signalled": true,
	})
	if v, _ := a.Var("Alert"); !v {
		t.Error("Alert is false in the agent")
	}
}

func TestCtx_sendBroadcastJumpLog(t *testing.T) {
	f := newFixture(t, map[string]string{"s.lua": `
		bt.action("talk", function(ctx)
			ctx:send("b2", "Hello")
			ctx:send("self", "OnAlert")
			bt.broadcast("Everyone")
			ctx:log("said", 3, "things", true)
			ctx:jump("root.other")
			return bt.SUCCESS
		end)
		bt.action("other", function(ctx) reached = ctx.rule return bt.RUNNING end)`})
	f.bind(tree(declsXML + `<choice id='root'><action id='.talk' name='talk'/><action id='.other' name='other'/></choice>`))
	a := f.agent("a1")
	if got := step(t, a); got != "running" {
		t.Fatal(got)
	}
	if got := strings.Join(f.sends.sent, " "); got != "a1->b2:Hello a1->all:Everyone" {
		t.Errorf("routed %q", got)
	}
	if v, _ := a.Var("Alert"); !v {
		t.Error("ctx:send to self did not apply OnAlert at once")
	}
	if got := strings.Join(f.log.lines, "|"); got != "a1 root.talk: said 3 things true" {
		t.Errorf("log %q", got)
	}
	expectGlobals(t, f, map[string]any{"reached": "root.other"})
}

// TestCtx_errorsCarryTheScriptPosition checks misuse of ctx through a real
// step: the error names the script line, the rule and the tree position.
func TestCtx_errorsCarryTheScriptPosition(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`ctx:var("Nope")`, `e.lua:3: ctx:var("Nope"): the tree test.xml declares no variable "Nope"`},
		{`ctx:setVar("Alert", 1)`, `e.lua:3: bad argument #3 to setVar (true or false expected, got number)`},
		{`ctx:setVar("Alret")`, `e.lua:3: ctx:setVar("Alret"): the tree test.xml declares no variable "Alret"; did you mean "Alert"?`},
		{`ctx:var("alert")`, `e.lua:3: ctx:var("alert"): the tree test.xml declares no variable "alert"; did you mean "Alert"?`},
		{`ctx:stamp("Sen")`, `e.lua:3: ctx:stamp("Sen"): the tree test.xml declares no timestamp "Sen"; did you mean "Seen"?`},
		{`ctx:stamp("Nope")`, `e.lua:3: ctx:stamp("Nope"): the tree test.xml declares no timestamp "Nope"`},
		{`ctx:since("Nope")`, `e.lua:3: ctx:since("Nope"): the tree test.xml declares no timestamp "Nope"`},
		{`ctx:clearStamp("Nope")`, `e.lua:3: ctx:clearStamp("Nope"): the tree test.xml declares no timestamp "Nope"`},
		{`ctx:jump("nowhere")`, `e.lua:3: ctx:jump("nowhere"): the tree has no rule with that id`},
		{`ctx.var("Alert")`, `e.lua:3: ctx:var: call it as a method, with a colon: ctx:var(...)`},
		{`local x = ctx.frstRun`, `e.lua:3: ctx has no field "frstRun"`},
		{`ctx.time = 3`, `e.lua:3: ctx is read-only (ctx.time = ...)`},
		{`ctx.agent = {}`, `e.lua:3: ctx is read-only (ctx.agent = ...)`},
	} {
		f := newFixture(t, map[string]string{"e.lua": "bt.action('bad', function(ctx, params)\n  local unused = 1\n  " + c.body + "\n  return bt.SUCCESS\nend)"})
		f.bind(tree(declsXML + "\n<action id='bad' name='bad'/>"))
		a := f.agent("a1")
		got := step(t, a)
		want := `error: test.xml:6:1: agent a1: rule bad: action "bad": ` + c.want
		if !strings.HasPrefix(got, want) {
			t.Errorf("%s:\n got  %s\n want %s...", c.body, got, want)
		}
	}
}

func TestCtx_agentFieldsForPlugins(t *testing.T) {
	f := newFixture(t, map[string]string{"m.lua": `
		bt.action("move", function(ctx) ctx.agent.x = ctx.agent.x + 1; ctx.agent.tag = "moved"; return bt.SUCCESS end)`})
	f.bind(tree(`<action id='m' name='move'/>`))
	a := f.agent("a1")
	st := a.UserData().(interface {
		GetField(string) (any, bool)
		SetField(string, any) error
	})
	if err := st.SetField("x", 2.5); err != nil {
		t.Fatal(err)
	}
	st.SetField("alive", true)
	st.SetField("count", 3) // ints are stored as numbers
	step(t, a)
	for name, want := range map[string]any{"x": 3.5, "tag": "moved", "alive": true, "count": 3.0} {
		if got, ok := st.GetField(name); !ok || got != want {
			t.Errorf("GetField(%q) = %v, %v; want %v", name, got, ok, want)
		}
	}
	st.SetField("tag", nil)
	if _, ok := st.GetField("tag"); ok {
		t.Error("SetField(nil) did not delete the field")
	}
	f.e.L.SetField(a.UserData().(*AgentData).Table(), "pos", f.e.L.NewTable())
	if _, ok := st.GetField("pos"); ok {
		t.Error("GetField reported a table field")
	}
	if _, ok := st.GetField("missing"); ok {
		t.Error("GetField reported a missing field")
	}
	if err := st.SetField("bad", []int{1}); err == nil || !strings.HasPrefix(err.Error(), "luabind: ") {
		t.Errorf("SetField([]int) = %v", err)
	}
}

func TestAttach_checksUserData(t *testing.T) {
	f := newFixture(t, map[string]string{"m.lua": `bt.action("ok", function() return bt.SUCCESS end)`})
	f.bind(tree(`<action id='m' name='ok'/>`))
	a := f.tree.NewAgent("a1", f.env)
	a.SetUserData("game data")
	if err := f.e.Attach(a); !errors.Is(err, ErrAgent) {
		t.Errorf("Attach over foreign user data: %v", err)
	}
	if got := step(t, a); !strings.Contains(got, "luabind: agent not attached: agent a1 already holds user data of type string") {
		t.Errorf("step: %s", got)
	}
	b := f.tree.NewAgent("b1", f.env) // never attached: attached at its first call
	if got := step(t, b); got != "success" {
		t.Errorf("step of an unattached agent: %s", got)
	}
	f.e.Detach(b)
	if b.UserData() != nil {
		t.Error("Detach left user data")
	}
	var _ runtime.Action
}

// TestCtx_reusedStateTableIsWalkedAsANewOne: pairs() walks a reused
// ctx.state in the order this visit set its keys, as it walks a new table,
// not in the order an earlier visit first set them: a run restored from a
// save (where ctx.state is made anew) walks it as the run that was saved.
func TestCtx_reusedStateTableIsWalkedAsANewOne(t *testing.T) {
	f := newFixture(t, map[string]string{"o.lua": `
		bt.action("set", function(ctx, params)
			for name in string.gmatch(params:string("keys"), "%a+") do ctx.state[name] = 1 end
			local order = ""
			for k in pairs(ctx.state) do order = order .. k end
			log = (log or "") .. order .. " "
			return bt.SUCCESS
		end)`})
	f.bind(tree(`<sequence id='root'>
		<action id='.first' name='set'><parameter name='keys'>a b c</parameter></action>
		<action id='.then' name='set'><parameter name='keys'>c a</parameter></action>
		<action id='.last' name='set'><parameter name='keys'>b d a</parameter></action>
	</sequence>`))
	step(t, f.agent("a1"))
	expectGlobals(t, f, map[string]any{"log": "abc ca bda "})
}

// TestCtx_gateSlotGivesRolesInTakeOrder: ctx:gateSlot is the agent's place
// among a gate's holders in the order they took it (1, 2, ...), nil when
// it does not hold the gate; an undeclared gate is a Lua error that names
// the declared ones.
func TestCtx_gateSlotGivesRolesInTakeOrder(t *testing.T) {
	f := newFixture(t, map[string]string{"roles.lua": `
		slots = {}
		bt.action("role", function(ctx)
			slots[ctx.id] = ctx:gateSlot("team") or "none"
			return bt.RUNNING
		end)
		bt.action("outside", function(ctx)
			slots[ctx.id] = ctx:gateSlot("team") or "none"
			return bt.RUNNING
		end)`})
	f.bind(tree(`<gates><gate name='team' users='2'/></gates>
<choice id='root'>
  <action id='in' name='role' gate='team'/>
  <action id='out' name='outside'/>
</choice>`))
	gates := runtime.NewGates()
	if err := gates.Add(f.tree); err != nil {
		t.Fatal(err)
	}
	f.env.Gates = gates
	agents := []*runtime.Agent{f.agent("b"), f.agent("a"), f.agent("c")}
	rounds := runtime.Rounds{Resolvers: []runtime.Resolver{gates}}
	if _, err := rounds.Step(agents, func(a *runtime.Agent) (runtime.Status, error) { return a.Step(0.5) }); err != nil {
		t.Fatal(err)
	}
	expectGlobals(t, f, map[string]any{"slots.b": 1.0, "slots.a": 2.0, "slots.c": "none"})

	f2 := newFixture(t, map[string]string{"typo.lua": `
		bt.action("typo", function(ctx)
			ctx:gateSlot("taem")
			return bt.SUCCESS
		end)`})
	f2.bind(tree(`<gates><gate name='team'/></gates><action id='root' name='typo'/>`))
	_, err := f2.agent("x").Step(0.5)
	if err == nil || !strings.Contains(err.Error(), `ctx:gateSlot("taem"): the tree test.xml declares no gate "taem"; did you mean "team"?`) {
		t.Errorf("an undeclared gate: %v", err)
	}
}

// TestCtx_logOfOneValueLogsItsText: ctx:log of one string logs it as it
// is (the path that copies nothing), and one value of another kind as
// tostring would show it.
func TestCtx_logOfOneValueLogsItsText(t *testing.T) {
	f := newFixture(t, map[string]string{"s.lua": `
		local named = setmetatable({}, {__tostring = function() return "a named table" end})
		bt.action("talk", function(ctx)
			ctx:log("shots: " .. 3)
			ctx:log("")
			ctx:log(2.5)
			ctx:log(named)
			return bt.SUCCESS
		end)`})
	f.bind(tree(declsXML + `<sequence id='root'><action id='.talk' name='talk'/></sequence>`))
	step(t, f.agent("a1"))
	want := "a1 root.talk: shots: 3|a1 root.talk: |a1 root.talk: 2.5|a1 root.talk: a named table"
	if got := strings.Join(f.log.lines, "|"); got != want {
		t.Errorf("log %q, want %q", got, want)
	}
}

// TestCtxKeys_areTheScriptsConstants: the keys of ctx's view are the
// strings the compiler keeps for a script's ctx.time, ctx.agent, ... (read
// by comparing pointers: gopher-lua patch "internconst").
func TestCtxKeys_areTheScriptsConstants(t *testing.T) {
	proto, err := compile("keys.lua", "return function(ctx) return ctx.agent, ctx.state, ctx.time, ctx.dt, ctx.step end")
	if err != nil {
		t.Fatal(err)
	}
	inner := proto.FunctionPrototypes[0]
	found := 0
	for _, c := range inner.Constants {
		s, ok := c.(lua.LString)
		if !ok {
			continue
		}
		for _, key := range []string{keyAgent, keyState, keyTime, keyDt, keyStep} {
			if string(s) == key {
				found++
				if unsafe.StringData(string(s)) != unsafe.StringData(key) {
					t.Errorf("the script's constant %q is another string than ctx's key", key)
				}
			}
		}
	}
	if found != 5 {
		t.Fatalf("found %d of the 5 keys among the constants", found)
	}
}
