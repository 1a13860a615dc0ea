package luabind

import (
	"errors"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

const scorerLua = `
	scored = {}
	bt.scorer("urge", function(ctx, params)
		scored[#scored + 1] = ctx.rule
		return params:number("urge.base", 0) + (ctx.memory.bonus or 0)
	end)
	bt.scorer("word", function(ctx, params) return "high" end)
	bt.scorer("broken", function(ctx, params) return 0 / 0 end)
	bt.scorer("huge", function(ctx, params) return math.huge end)
	bt.scorer("tiny", function(ctx, params) return -math.huge end)
	bt.action("try", function(ctx, params) tried[#tried + 1] = ctx.rule return bt.FAILURE end)
	tried = {}
	function take()
		local s = table.concat(scored, " ") .. " | " .. table.concat(tried, " ")
		scored, tried = {}, {}
		return s
	end
`

// TestScorer_luaScorersOrderAScoreChoice: bt.scorer functions score the
// children whose choice.score names them, with the child's parameters and as
// the child's rule, in document order; the children are tried by score.
func TestScorer_luaScorersOrderAScoreChoice(t *testing.T) {
	f := newFixture(t, map[string]string{"s.lua": scorerLua})
	f.bind(tree(`<choice id='root' order='score'>
		<action id='.a' name='try'><parameter name='choice.score'>urge</parameter><parameter name='urge.base'>1</parameter></action>
		<action id='.b' name='try'><parameter name='choice.score'>2</parameter></action>
		<action id='.c' name='try'><parameter name='choice.score'>urge</parameter><parameter name='urge.base'>-1</parameter></action>
	</choice>`))
	a := f.agent("a1")
	if got := step(t, a); got != "failure" {
		t.Fatal(got)
	}
	if got := f.calls(); got != "root.a root.c | root.b root.a" {
		t.Errorf("scored | tried: %s", got)
	}
	st, _ := f.e.Data(a)
	st.Memory().RawSetString("bonus", lnum(3))
	step(t, a)
	if got := f.calls(); got != "root.a root.c | root.a root.b root.c" {
		t.Errorf("with a bonus, scored | tried: %s", got)
	}
}

// TestScorer_badScoresAreErrorsOfTheStep: a scorer returning something that
// is not a number, or not a finite one, ends the step with an error naming
// the scorer, its line and the child.
func TestScorer_badScoresAreErrorsOfTheStep(t *testing.T) {
	for _, c := range []struct{ scorer, want string }{
		{"word", `rule root.x: scorer "word": s.lua:7: scorer "word" (defined here) returned string "high"; a scorer returns a number`},
		{"broken", `rule root.x: scorer "broken": returned NaN; a scorer returns a finite number`},
		{"huge", `rule root.x: scorer "huge": returned +Inf; a scorer returns a finite number`},
		{"tiny", `rule root.x: scorer "tiny": returned -Inf; a scorer returns a finite number`},
	} {
		f := newFixture(t, map[string]string{"s.lua": scorerLua})
		f.bind(tree(`<choice id='root' order='score'><action id='.x' name='try'><parameter name='choice.score'>` + c.scorer + `</parameter></action></choice>`))
		a := f.agent("a1")
		got := step(t, a)
		wantContains(t, got, c.want)
	}
}

// TestScorer_unknownNamesAreBindErrors: a choice.score that names no scorer
// is a bind error with the child's position and a suggestion.
func TestScorer_unknownNamesAreBindErrors(t *testing.T) {
	f := newFixture(t, map[string]string{"s.lua": scorerLua})
	_, err := f.bindErr(tree(`<choice id='root' order='score'><action id='.x' name='try'><parameter name='choice.score'>urgee</parameter></action></choice>`))
	want := `test.xml:3:33: rule root.x: unknown scorer "urgee" (parameter choice.score): not registered by a script, a plugin or Go; did you mean "urge"?`
	if err == nil || err.Error() != want || !errors.Is(err, runtime.ErrUnbound) {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestScorer_registration: bt.scorer is checked like bt.condition.
func TestScorer_registration(t *testing.T) {
	cases := []struct{ src, want string }{
		{`bt.scorer("s", function() return 1 end) bt.scorer("s", function() return 2 end)`, `scorer "s" is already registered at`},
		{`bt.scorer("s", 3)`, "a function(ctx, params) returning a number"},
		{`bt.scorer("", function() return 1 end)`, "a scorer name must be non-empty"},
	}
	for _, c := range cases {
		f := newFixtureNoLoad(t, map[string]string{"s.lua": c.src})
		err := f.e.Load()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.src, err, c.want)
		}
	}
	f := newFixtureNoLoad(t, map[string]string{"s.lua": `bt.scorer("bt.mine", function() return 1 end)`})
	if err := f.e.Load(); err != nil {
		t.Fatal(err)
	}
	if err := f.e.Register(f.reg); err == nil || !strings.Contains(err.Error(), `scorer "bt.mine" from lua`) {
		t.Errorf("a reserved name: %v", err)
	}
	f = newFixture(t, map[string]string{"s.lua": scorerLua})
	if err := f.e.DoString("late", `bt.scorer("late", function() return 1 end)`); err == nil || !strings.Contains(err.Error(), "bt.scorer may only be called while the scripts load") {
		t.Errorf("bt.scorer after loading: %v", err)
	}
}

// TestInterrupt_luaCancelRunsOnceOnAbortAndPreemption: an interrupted Lua
// action gets its cancel call exactly once.
func TestInterrupt_luaCancelRunsOnceOnAbortAndPreemption(t *testing.T) {
	for _, c := range []struct{ name, xml, l string }{
		{"preemption", `<choice id='root'>
			<action id='.alarm' name='short' abort='lower'><condition>alarm</condition></action>
			<action id='.l' name='long'/>
		</choice>`, "root.l"},
		{"abort", `<choice id='root'>
			<sequence id='.s' abort='self'><condition>!alarm</condition><action id='.l' name='long'/></sequence>
			<action id='.alarm' name='short'/>
		</choice>`, "root.s.l"},
		{"timeout", `<choice id='root'>
			<action id='.l' name='long' timeout='1'/>
			<action id='.alarm' name='short'/>
		</choice>`, "root.l"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"l.lua": lifecycleLua + `
				bt.condition("alarm", function(ctx) return ctx.memory.alarm == true end)`})
			f.bind(tree(c.xml))
			a := f.agent("a1")
			step(t, a)
			step(t, a)
			if got, want := f.calls(), c.l+":start "+c.l+":run "+c.l+":run"; got != want {
				t.Fatalf("before: %s", got)
			}
			st, _ := f.e.Data(a)
			st.Memory().RawSetString("alarm", ltrue())
			if got := step(t, a); got != "success" {
				t.Fatal(got)
			}
			if got, want := f.calls(), c.l+":cancel root.alarm:short"; got != want {
				t.Errorf("calls %q, want %q", got, want)
			}
		})
	}
}

func lnum(v float64) lua.LValue { return lua.LNumber(v) }
func ltrue() lua.LValue         { return lua.LTrue }
