package luabind

import (
	"errors"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// laneScripts count in ctx.state per rule and log what each call sees.
const laneScripts = `
bt.action("count", {
  start = function(ctx, params) ctx.state.n = 0; ctx.state.who = ctx.rule end,
  run = function(ctx, params)
    local s = ctx.state
    s.n = s.n + 1
    log = (log or "") .. ctx.rule .. ":" .. s.who .. "=" .. s.n .. (ctx.firstRun and "!" or "") .. " "
    if s.n >= params:number("count.to", 3) then return bt.SUCCESS end
    return bt.RUNNING
  end,
  cancel = function(ctx, params) log = log .. ctx.rule .. ":cancel@" .. ctx.state.n .. " " end,
})`

const laneTree = `<sequence id='root' loop='true'>
  <parallel id='p' success='any'>
    <action id='.a' name='count'><parameter name='count.to'>3</parameter></action>
    <sequence id='.s'>
      <action id='.b' name='count'><parameter name='count.to'>2</parameter></action>
      <action id='.c' name='count'><parameter name='count.to'>5</parameter></action>
    </sequence>
  </parallel>
</sequence>`

// TestCtx_eachLaneHasItsOwnStateAndRule: ctx.rule, ctx.firstRun and
// ctx.state belong to the lane being run; a lane's cancel sees its own
// state.
func TestCtx_eachLaneHasItsOwnStateAndRule(t *testing.T) {
	f := newFixture(t, map[string]string{"count.lua": laneScripts})
	f.bind(tree(laneTree))
	a := f.agent("a1")
	for range 3 {
		if got := step(t, a); got != "running" {
			t.Fatal(got)
		}
	}
	// Step 3: a reaches 3 and wins (success any); the s lane is cancelled
	// at c, and the loop enters p again.
	expectGlobals(t, f, map[string]any{"log": "p.a:p.a=1! p.s.b:p.s.b=1! " +
		"p.a:p.a=2 p.s.b:p.s.b=2 p.s.c:p.s.c=1! " +
		"p.a:p.a=3 p.s.c:cancel@1 p.a:p.a=1! p.s.b:p.s.b=1! "})
}

// TestSaveHost_lanesStateComesBack: each running lane's ctx.state is saved
// with the agent and restored into the same lane.
func TestSaveHost_lanesStateComesBack(t *testing.T) {
	f := newFixture(t, map[string]string{"count.lua": laneScripts})
	f.bind(tree(laneTree))
	a := f.agent("a1")
	step(t, a)
	step(t, a) // lanes at p.a (n=2) and p.s.c (n=1)
	data, err := runtime.SaveAgents([]*runtime.Agent{a}, f.e)
	if err != nil {
		t.Fatal(err)
	}
	f.do(`log = ""`)
	step(t, a)
	step(t, a)
	want := luaGlobal(f, "log")

	b := f.agent("a1")
	if _, err := runtime.RestoreAgents(data, []*runtime.Agent{b}, f.e); err != nil {
		t.Fatal(err)
	}
	f.do(`log = ""`)
	step(t, b)
	step(t, b)
	if got := luaGlobal(f, "log"); got != want || want == "" {
		t.Errorf("after the restore: %q, want %q", got, want)
	}
}

// TestSaveHost_badLanesAreRejected: saved lane states of the wrong shape
// are refused before anything changes.
func TestSaveHost_badLanesAreRejected(t *testing.T) {
	f := newFixture(t, map[string]string{"count.lua": laneScripts})
	f.bind(tree(laneTree))
	a := f.agent("a1")
	str := func(s string) runtime.Value { return runtime.Value{Kind: runtime.StringValue, Str: s} }
	num := func(n float64) runtime.Value { return runtime.Value{Kind: runtime.NumberValue, Num: n} }
	table := func(fields ...runtime.Field) runtime.Value {
		return runtime.Value{Kind: runtime.TableValue, Table: fields}
	}
	field := func(k, v runtime.Value) runtime.Field { return runtime.Field{Key: k, Val: v} }
	base := []runtime.Field{field(str("agent"), table()), field(str("memory"), table())}
	for name, lanes := range map[string]runtime.Value{
		"a string key":        table(field(str("x"), table())),
		"a fraction":          table(field(num(1.5), table())),
		"position 0":          table(field(num(0), table())),
		"a state not a table": table(field(num(1), str("x"))),
		"lanes not a table":   str("x"),
	} {
		v := table(append(append([]runtime.Field(nil), base...), field(str("lanes"), lanes))...)
		enc := savecodec.NewEncoder()
		runtime.EncodeValue(enc, v)
		if err := f.e.CheckHost(a, savecodec.NewDecoder(enc.Bytes(), enc.Strings())); err == nil || !errors.Is(err, runtime.ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSaveHost_unsaveableLaneStateNamesItsPath: a value a save cannot hold
// in a lane's ctx.state is an error naming the agent and the lane's path.
func TestSaveHost_unsaveableLaneStateNamesItsPath(t *testing.T) {
	f := newFixture(t, map[string]string{"bad.lua": `
bt.action("keep", function(ctx) ctx.state.n = 1; return bt.RUNNING end)
bt.action("bad", function(ctx) ctx.state.f = function() end; return bt.RUNNING end)`})
	f.bind(tree(`<parallel id='p'><action id='.a' name='keep'/><action id='.b' name='bad'/></parallel>`))
	a := f.agent("a1")
	step(t, a)
	_, err := runtime.SaveAgents([]*runtime.Agent{a}, f.e)
	if err == nil || !strings.Contains(err.Error(), "agent a1: lanes[2].f: a function cannot be saved") {
		t.Errorf("got %v", err)
	}
}
