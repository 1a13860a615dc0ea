package luabind

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// lifecycleLua records every call of a long-form action as "rule:hook".
const lifecycleLua = `
	calls = {}
	local function rec(s) calls[#calls + 1] = s end
	bt.action("long", {
		start  = function(ctx, params) rec(ctx.rule .. ":start") ctx.state.started = true end,
		run    = function(ctx, params)
			rec(ctx.rule .. ":run")
			assert(ctx.state.started, "start runs before run")
			return params:string("result", bt.RUNNING)
		end,
		cancel = function(ctx, params) rec(ctx.rule .. ":cancel") end,
	})
	bt.action("short", function(ctx, params) rec(ctx.rule .. ":short") return params:string("result", bt.SUCCESS) end)
	bt.condition("flag", function(ctx) return ctx.memory.flag ~= false end)
	function take() local s = table.concat(calls, " ") calls = {} return s end
`

func (f *fixture) calls() string {
	f.t.Helper()
	if err := f.e.DoString("take", "_calls = take()"); err != nil {
		f.t.Fatal(err)
	}
	return f.e.L.GetGlobal("_calls").String()
}

func TestAction_shortAndLongForms(t *testing.T) {
	f := newFixture(t, map[string]string{"l.lua": lifecycleLua})
	f.bind(tree(`<sequence id='root'>
		<action id='.s' name='short'/>
		<action id='.l' name='long'><parameter name='result'>success</parameter></action>
	</sequence>`))
	a := f.agent("a1")
	if got := step(t, a); got != "success" {
		t.Fatal(got)
	}
	if got := f.calls(); got != "root.s:short root.l:start root.l:run" {
		t.Errorf("calls: %s", got)
	}
}

func TestAction_startOncePerArrivalCancelOnlyWhenInterrupted(t *testing.T) {
	f := newFixture(t, map[string]string{"l.lua": lifecycleLua})
	f.bind(tree(`<choice id='root'>
		<action id='.l' name='long'><condition>flag</condition></action>
		<action id='.idle' name='short'><parameter name='result'>running</parameter></action>
	</choice>`))
	a := f.agent("a1")
	st, _ := f.e.Data(a)
	step(t, a)
	step(t, a)
	if got := f.calls(); got != "root.l:start root.l:run root.l:run" {
		t.Errorf("running twice: %s", got)
	}
	// The condition fails while the action runs: cancel, then the choice
	// moves on.
	st.Memory().RawSetString("flag", lua.LFalse)
	step(t, a)
	if got := f.calls(); got != "root.l:cancel root.idle:short" {
		t.Errorf("interrupted by its condition: %s", got)
	}
	// A jump from outside cancels nothing: .idle is a short-form action.
	st.Memory().RawSetString("flag", lua.LTrue)
	if err := a.Jump("root.l"); err != nil {
		t.Fatal(err)
	}
	step(t, a)
	if got := f.calls(); got != "root.l:start root.l:run" {
		t.Errorf("after jumping back: %s", got)
	}
	// A jump away from the running long action cancels it at once.
	if err := a.Jump("root.idle"); err != nil {
		t.Fatal(err)
	}
	if got := f.calls(); got != "root.l:cancel" {
		t.Errorf("jumping away: %s", got)
	}
	// Closing the agent while the long action runs cancels it; a finished
	// action is never cancelled.
	a.Jump("root.l")
	step(t, a)
	a.Close()
	if got := f.calls(); got != "root.l:start root.l:run root.l:cancel" {
		t.Errorf("closing: %s", got)
	}
}

func TestAction_wrongReturnValueNamesActionAndLine(t *testing.T) {
	for _, c := range []struct{ ret, want string }{
		{"", `r.lua:2: the run function of action "odd" (defined here) returned nil; an action returns bt.SUCCESS, bt.FAILURE or bt.RUNNING`},
		{"return true", `returned boolean "true"`},
		{"return 'done'", `returned string "done"`},
		{"return 1", `returned number "1"`},
	} {
		f := newFixture(t, map[string]string{"r.lua": "\nbt.action('odd', function(ctx)\n " + c.ret + "\nend)"})
		f.bind(tree(`<action id='odd' name='odd'/>`))
		got := step(t, f.agent("a1"))
		if !strings.Contains(got, `rule odd: action "odd": `) || !strings.Contains(got, c.want) {
			t.Errorf("%q:\n got  %s\n want ...%s", c.ret, got, c.want)
		}
	}
	f := newFixture(t, map[string]string{"c.lua": "bt.condition('maybe', function(ctx) return nil end)\nbt.action('ok', function() return bt.SUCCESS end)"})
	f.bind(tree(`<action id='x' name='ok'><condition>maybe</condition></action>`))
	got := step(t, f.agent("a1"))
	wantContains(t, got, `condition "maybe": c.lua:1: condition "maybe" (defined here) returned nil; a condition returns true or false`)
}

// TestAction_luaErrorEndsOnlyThatAgentsStep runs a real step through a
// Lua error and checks the full message: tree position, agent, rule label,
// action, script position.
func TestAction_luaErrorEndsOnlyThatAgentsStep(t *testing.T) {
	f := newFixture(t, map[string]string{"scripts/wander.lua": `local bt = require("bt")

bt.action("wander", function(ctx, params)
  if ctx.id == "bad" then
    local target = ctx.memory.target
    return target.x > 0 and bt.SUCCESS or bt.RUNNING
  end
  return bt.RUNNING
end)
`}, func(o *Options) { o.Paths = []string{o.Paths[0] + "/scripts"} })
	f.bind(tree(`<choice id='root'>
  <action id='.wander' name='wander'/>
</choice>`))
	good1, bad, good2 := f.agent("good1"), f.agent("bad"), f.agent("good2")
	if got := step(t, good1); got != "running" {
		t.Errorf("good1: %s", got)
	}
	_, err := bad.Step(0.5)
	want := `test.xml:4:3: agent bad: rule root.wander: action "wander": scripts/wander.lua:6: attempt to index a non-table object(nil) with key 'x'`
	if err == nil || err.Error() != want {
		t.Errorf("bad agent:\n got  %v\n want %s", err, want)
	}
	var se *ScriptError
	if !errors.As(err, &se) || se.File != "scripts/wander.lua" || se.Line != 6 || !strings.Contains(se.Traceback, "stack traceback") {
		t.Errorf("ScriptError %+v", se)
	}
	if !errors.Is(err, ErrScript) || !errors.Is(err, runtime.ErrAction) {
		t.Error("want errors.Is ErrScript and runtime.ErrAction")
	}
	if got := step(t, good2); got != "running" {
		t.Errorf("good2 after bad: %s", got)
	}
	if got := step(t, good1); got != "running" {
		t.Errorf("good1 after bad: %s", got)
	}
}

func TestAction_errorWithoutPositionGetsTheFunctions(t *testing.T) {
	f := newFixture(t, map[string]string{"e.lua": "\n\nbt.action('raw', function(ctx)\n  error({code = 1})\nend)"})
	f.bind(tree(`<action id='x' name='raw'/>`))
	got := step(t, f.agent("a1"))
	wantContains(t, got, `action "raw": e.lua:3: (error object is a table value)`)
}

func TestAction_runawayActionIsStoppedAndTheEngineGoesOn(t *testing.T) {
	f := newFixture(t, map[string]string{"spin.lua": `
bt.action("spin", function(ctx)
  if ctx.id == "stuck" then
    while true do end
  end
  return bt.SUCCESS
end)`}, func(o *Options) { o.CallTimeout = 30 * time.Millisecond })
	f.bind(tree(`<action id='s' name='spin'/>`))
	stuck, fine := f.agent("stuck"), f.agent("fine")
	got := step(t, stuck)
	wantContains(t, got, `rule s: action "spin": spin.lua:4: script ran longer than the call timeout (30ms)`)
	if got := step(t, fine); got != "success" {
		t.Errorf("after a timeout: %s", got)
	}
}
