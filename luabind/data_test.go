package luabind

import (
	"errors"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// TestData_everyLuaSenderCarriesData: ctx:send, ctx:signal and
// bt.broadcast take data; tables reach the Router (and the agent itself)
// with their keys in the canonical order.
func TestData_everyLuaSenderCarriesData(t *testing.T) {
	f := newFixture(t, map[string]string{"s.lua": `
		bt.action("talk", function(ctx)
			ctx:send("b2", "OnHealed", {hp = 10, by = ctx.id, pos = {3, 4}, [10] = true})
			ctx:send("b2", "Plain")
			bt.broadcast("Alarm", "loud")
			ctx:signal("Mine", 2.5)
			ctx:send("self", "Told", {who = "me"})
			return bt.SUCCESS
		end)`})
	f.bind(tree(declsXML + `<action id='talk' name='talk'/>`))
	a := f.agent("a1")
	if got := step(t, a); got != "success" {
		t.Fatal(got)
	}
	want := `a1->b2:OnHealed={[10] = true, by = "a1", hp = 10, pos = {[1] = 3, [2] = 4}} a1->b2:Plain a1->all:Alarm="loud"`
	if got := strings.Join(f.sends.sent, " "); got != want {
		t.Errorf("routed\n got  %s\n want %s", got, want)
	}
	for name, want := range map[string]string{"Alarm": `"loud"`, "Mine": "2.5", "Told": `{who = "me"}`} {
		if d, _, ok := a.Stimulus(name); !ok || runtime.DataText(d, 100) != want {
			t.Errorf("stimulus %s = %s, %v; want %s", name, runtime.DataText(d, 100), ok, want)
		}
	}
}

// TestData_refusedAtTheSendingLine: a value a signal cannot carry is an
// error at the script line that sends it, naming the part; nothing is sent.
func TestData_refusedAtTheSendingLine(t *testing.T) {
	deep := "{" + strings.Repeat("{", runtime.MaxDataDepth) + strings.Repeat("}", runtime.MaxDataDepth) + "}"
	for _, c := range []struct{ value, want string }{
		{`{onHit = function() end}`, `data.onHit: a function cannot be sent`},
		{`{target = {self = ctx}}`, `data.target.self: a userdata cannot be sent`},
		{`cyclic`, `data.me: the table is inside itself (a cycle)`},
		{`{[1.5] = "x"}`, `data: key 1.5 is not an integer; keys are strings or integers`},
		{`{[true] = "x"}`, `data: a boolean key cannot be sent`},
		{`{[{}] = "x"}`, `data: a table key cannot be sent`},
		{deep, `data[1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1]: tables nested more than 16 deep`},
		{`string.rep("x", 70000)`, `data takes more than 65536 bytes (64 KiB) once encoded`},
	} {
		for _, call := range []struct{ code, what string }{
			{`ctx:send("b2", "Hurt", v)`, `ctx:send("b2", "Hurt", data)`},
			{`ctx:signal("Hurt", v)`, `ctx:signal("Hurt", data)`},
			{`bt.broadcast("Hurt", v)`, `bt.broadcast("Hurt", data)`},
		} {
			f := newFixture(t, map[string]string{"e.lua": "bt.action('bad', function(ctx, params)\n  local cyclic = {} cyclic.me = cyclic\n  local v = " + c.value + "\n  " + call.code + "\n  return bt.SUCCESS\nend)"})
			f.bind(tree(declsXML + "\n<action id='bad' name='bad'/>"))
			a := f.agent("a1")
			got := step(t, a)
			if want := "e.lua:4: " + call.what + ": " + c.want; !strings.Contains(got, want) {
				t.Errorf("%s with %s:\n got  %s\n want %s", call.code, c.value, got, want)
			}
			if len(f.sends.sent) > 0 || a.Held("Hurt") {
				t.Errorf("%s with %s: sent anyway", call.code, c.value)
			}
		}
	}
}

// TestData_theReceiversCopyIsItsOwn: the sender changing its table after
// sending, or a receiver changing what it read, changes nothing held.
func TestData_theReceiversCopyIsItsOwn(t *testing.T) {
	f := newFixture(t, map[string]string{"s.lua": `
		bt.action("check", function(ctx)
			local msg = {pos = {x = 1}}
			ctx:signal("Seen", msg)
			msg.pos.x = 99                       -- the sender's table, after sending
			local got = ctx:stimulus("Seen")
			assert(got.pos.x == 1, "the stimulus followed the sender's table")
			got.pos.x = 7                        -- the receiver's copy
			local again = ctx:stimulus("Seen")
			assert(again.pos.x == 1 and again ~= got, "a read changed the stimulus")
			return bt.SUCCESS
		end)`})
	f.bind(tree(declsXML + `<action id='check' name='check'/>`))
	if got := step(t, f.agent("a1")); got != "success" {
		t.Fatal(got)
	}
}

func TestCtx_stimulusAndForget(t *testing.T) {
	f := newFixture(t, map[string]string{"s.lua": `
		bt.action("read", function(ctx)
			out = {}
			local d, age = ctx:stimulus("OnAlert")
			out.alert, out.alertAge = d, age
			d, age = ctx:stimulus("Data")
			out.data, out.dataAge = d and d.hp, age
			out.none = ctx:stimulus("Never") == nil
			out.forgot = ctx:forget("Data")
			out.again = ctx:forget("Data")
			out.gone = ctx:stimulus("Data") == nil
			return bt.SUCCESS
		end)`})
	f.bind(tree(declsXML + `<action id='read' name='read'/>`))
	a := f.agent("a1")
	a.Signal("OnAlert")
	step(t, a) // time 0.5
	if err := a.SignalData("Data", runtime.Value{Kind: runtime.TableValue, Table: []runtime.Field{{Key: runtime.Value{Kind: runtime.StringValue, Str: "hp"}, Val: runtime.Value{Kind: runtime.NumberValue, Num: 10}}}}); err != nil {
		t.Fatal(err)
	}
	if got := step(t, a); got != "success" { // time 1
		t.Fatal(got)
	}
	f.do(`result = string.format("%s %s %s %s %s %s %s %s", tostring(out.alert), out.alertAge, out.data, out.dataAge, tostring(out.none), tostring(out.forgot), tostring(out.again), tostring(out.gone))`)
	expectGlobals(t, f, map[string]any{"result": "true 1 10 0.5 true true false true"})
}

// handlerLua: "guard" runs until a signal's handler finishes it.
const handlerLua = `
	calls = {}
	local function rec(s) calls[#calls + 1] = s end
	bt.action("guard", {
		run = function(ctx) rec(ctx.rule .. ":run") ctx.state.runs = (ctx.state.runs or 0) + 1 return bt.RUNNING end,
		cancel = function(ctx) rec(ctx.rule .. ":cancel") end,
		on = {
			Hurt = function(ctx, params, data)
				rec(ctx.rule .. ":Hurt(" .. tostring(data and data.hp) .. ")")
				ctx.memory.lastHp = data and data.hp
				ctx.state.hurt = true
				if data and data.hp < 5 then return bt.FAILURE end
				if data and data.hp > 50 then return bt.SUCCESS end
			end,
			Poke = function(ctx, params, data) rec(ctx.rule .. ":Poke") ctx:signal("Tell", "poked") end,
			Bad = function(ctx) return 42 end,
			Boom = function(ctx)
				error("no medkit")
			end,
			Leap = function(ctx) ctx:jump("root.after") end,
		},
	})
	bt.action("fine", function(ctx) rec(ctx.rule .. ":fine") return bt.SUCCESS end)
	function take() local s = table.concat(calls, " ") calls = {} return s end
`

func hp(n float64) runtime.Value {
	return runtime.Value{Kind: runtime.TableValue, Table: []runtime.Field{{Key: runtime.Value{Kind: runtime.StringValue, Str: "hp"}, Val: runtime.Value{Kind: runtime.NumberValue, Num: n}}}}
}

func TestAction_onHandlersFinishOrLetTheActionGoOn(t *testing.T) {
	f := newFixture(t, map[string]string{"h.lua": handlerLua})
	f.bind(tree(declsXML + `<sequence id='root'><action id='.watch' name='guard'/><action id='.after' name='fine'/></sequence>`))
	a := f.agent("a1")
	step(t, a)
	if err := a.SignalData("Hurt", hp(20)); err != nil { // goes on
		t.Fatal(err)
	}
	if err := a.Signal("Poke"); err != nil {
		t.Fatal(err)
	}
	if got := f.calls(); got != "root.watch:run root.watch:Hurt(20) root.watch:Poke" {
		t.Errorf("calls: %s", got)
	}
	if d, _, _ := a.Stimulus("Tell"); d.Str != "poked" {
		t.Error("a handler's ctx:signal did not reach the agent")
	}
	if got := step(t, a); got != "running" || f.calls() != "root.watch:run" {
		t.Errorf("after handlers that returned nothing: %s", got)
	}
	if err := a.SignalData("Hurt", hp(80)); err != nil {
		t.Fatal(err)
	}
	st, _ := f.e.Data(a)
	if st.State().RawGetString("hurt").String() != "true" || st.Memory().RawGetString("lastHp").String() != "80" {
		t.Error("the handler's ctx.state and ctx.memory writes are lost")
	}
	if got := step(t, a); got != "success" || f.calls() != "root.watch:Hurt(80) root.after:fine" {
		t.Errorf("after a handler that returned bt.SUCCESS: %s, %s", got, f.calls())
	}
}

func TestAction_onHandlerOfALanesAction(t *testing.T) {
	f := newFixture(t, map[string]string{"h.lua": handlerLua})
	f.bind(tree(declsXML + `<parallel id='root' success='any'>
		<action id='.a' name='guard'/>
		<action id='.b' name='guard'/>
	</parallel>`))
	a := f.agent("a1")
	step(t, a)
	f.calls()
	if err := a.SignalData("Hurt", hp(3)); err != nil {
		t.Fatal(err)
	}
	if got := f.calls(); got != "root.a:Hurt(3) root.b:Hurt(3)" {
		t.Errorf("both lanes' handlers, in document order: %s", got)
	}
	if got := step(t, a); got != "failure" {
		t.Errorf("both lanes failed through their handlers: %s (%s)", got, f.calls())
	}
}

func TestAction_onHandlerErrorsCarryTheirLine(t *testing.T) {
	for _, c := range []struct{ signal, want string }{
		{"Boom", `h.lua:18: no medkit`},
		{"Bad", `the Bad handler of action "guard" (defined here) returned number "42"`},
		{"Leap", `h.lua:20: ctx:jump("root.after"): agent a1: cannot jump to root.after from a signal handler`},
	} {
		f := newFixture(t, map[string]string{"h.lua": handlerLua})
		f.bind(tree(declsXML + `<sequence id='root'><action id='.watch' name='guard'/><action id='.after' name='fine'/></sequence>`))
		a := f.agent("a1")
		step(t, a)
		f.calls()
		err := a.Signal(c.signal)
		var re *runtime.Error
		if !errors.As(err, &re) || re.Label != "root.watch" || !strings.Contains(err.Error(), c.want) ||
			!strings.Contains(err.Error(), `handler for signal "`+c.signal+`" of action "guard"`) {
			t.Errorf("%s: got %v\nwant %s", c.signal, err, c.want)
		}
		if got := f.calls(); got != "root.watch:cancel" || a.CursorLabel() != "root" {
			t.Errorf("%s: the agent is reset: %s, cursor %s", c.signal, got, a.CursorLabel())
		}
	}
}

func TestLoad_badSignalHandlers(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`bt.action("x", {run = function() end, on = 5})`, `on must be a table of signal handlers`},
		{`bt.action("x", {run = function() end, on = {Hurt = 5}})`, `on["Hurt"] must be a function(ctx, params, data), not a number`},
		{`bt.action("x", {run = function() end, on = {function() end}})`, `on is keyed by signal names (strings), not a number`},
	} {
		f := newFixtureNoLoad(t, map[string]string{"r.lua": c.src})
		err := f.e.Load()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.src, err)
		}
	}
	f := newFixture(t, map[string]string{"h.lua": handlerLua})
	d, _ := f.reg.LookupAction("guard")
	if got := strings.Join(d.Handles, ","); got != "Bad,Boom,Hurt,Leap,Poke" {
		t.Errorf("Handles = %s", got)
	}
}
