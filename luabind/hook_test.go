package luabind

import (
	"strings"
	"testing"
)

const hookLua = `
	seen = {}
	bt.hook("note", function(ctx, params, how)
		seen[#seen + 1] = ctx.rule .. ":" .. how .. ":" .. params:string("tag", "-")
		ctx.memory.hooked = (ctx.memory.hooked or 0) + 1
	end)
	bt.hook("broken", function(ctx, params, how) error("cleanup failed") end)
	bt.action("work", function(ctx, params) seen[#seen + 1] = ctx.rule return bt.SUCCESS end)
	function take()
		local s = table.concat(seen, " ")
		seen = {}
		return s
	end
`

// TestHook_luaHooksRunWithTheRuleAndHow: bt.hook functions run as the rule
// whose enter or exit attribute names them, with its parameters and how;
// an error in an exit hook does not stop the step.
func TestHook_luaHooksRunWithTheRuleAndHow(t *testing.T) {
	f := newFixture(t, map[string]string{"h.lua": hookLua})
	f.bind(tree(`<sequence id='root' enter='note' exit='note'><parameter name='tag'>outer</parameter>
		<action id='.a' name='work' exit='broken'/>
		<action id='.b' name='work' enter='note' exit='note'/>
	</sequence>`))
	a := f.agent("a1")
	if got := step(t, a); got != "success" {
		t.Fatal(got)
	}
	if got := f.calls(); got != "root:enter:outer root.a root.b:enter:- root.b root.b:success:- root:success:outer" {
		t.Errorf("calls: %s", got)
	}
	if got := strings.Join(f.log.lines, "\n"); !strings.Contains(got, `a1 root.a: error: exit hook "broken" (success): `) || !strings.Contains(got, "h.lua:7: cleanup failed") {
		t.Errorf("the exit hook's error is not in the agent's log with its line: %s", got)
	}
	st, _ := f.e.Data(a)
	if n := st.Memory().RawGetString("hooked").String(); n != "4" {
		t.Errorf("ctx.memory.hooked = %s", n)
	}
}

// TestHook_registrationErrors: bt.hook needs a function, a name not
// registered twice, and only while the scripts load.
func TestHook_registrationErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`bt.hook("x", 3)`, "a function(ctx, params, how)"},
		{`bt.hook("x", function() end) bt.hook("x", function() end)`, `hook "x" is already registered at`},
		{`bt.hook("bt.x", function() end)`, ""},
	} {
		f := newFixtureNoLoad(t, map[string]string{"h.lua": c.src})
		err := f.e.Load()
		if c.want == "" {
			if err == nil {
				err = f.e.Register(f.reg)
			}
			if err == nil || !strings.Contains(err.Error(), "reserved for the built-ins") {
				t.Errorf("%s: %v", c.src, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.src, err, c.want)
		}
	}
}
