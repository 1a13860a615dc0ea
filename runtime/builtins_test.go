package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

type routeRecorder struct{ routed []string }

func (r *routeRecorder) Route(from *Agent, to, signal string, data Value) error {
	s := from.ID() + "->" + to + ":" + signal
	if data.Kind != NilValue {
		s += "=" + DataText(data, 200)
	}
	r.routed = append(r.routed, s)
	return nil
}

type logRecorder struct{ lines []string }

func (l *logRecorder) Log(a *Agent, label, msg string) {
	l.lines = append(l.lines, fmt.Sprintf("%s t=%g %s: %s", a.ID(), a.Time(), label, msg))
}

func param(name, value string) string {
	return `<parameter name="` + name + `">` + value + `</parameter>`
}

func TestBuiltin_wait(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root"><action id="w" name="bt.wait">`+param("wait.seconds", "2")+`</action><action id="after" name="ok"/></sequence>`), nil)
	expectSteps(t, h.steps(4), []string{"running w: ", "running w: ", "success root: after", "running w: "})
}

func TestBuiltin_signalWait(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root"><action id="w" name="bt.signal.wait">`+param("signal.name", "Ping")+`</action><action id="after" name="ok"/></sequence>`), nil)
	h.agent.Signal("Ping") // before the wait starts: not seen
	got := h.steps(2)
	h.agent.Signal("Other")
	got = append(got, h.steps(1)...)
	h.agent.Signal("Ping")
	got = append(got, h.steps(1)...)
	expectSteps(t, got, []string{"running w: ", "running w: ", "running w: ", "success root: after"})
}

func TestBuiltin_signalWaitIgnoresASignalSentBeforeItStarted(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root">
<action id="send" name="bt.signal.send">`+param("signal.name", "Ping")+`</action>
<action id="w" name="bt.signal.wait">`+param("signal.name", "Ping")+`</action>
<action id="after" name="ok"/></sequence>`), nil)
	expectSteps(t, h.steps(2), []string{"running w: ", "running w: "})
}

func TestBuiltin_signalSend(t *testing.T) {
	xml := bt(guardDecls + `<sequence id="root">
<action id="self" name="bt.signal.send">` + param("signal.name", "Seen") + `</action>
<action id="other" name="bt.signal.send">` + param("signal.name", "Lost") + param("signal.to", "guard-2") + `</action>
<action id="all" name="bt.signal.send">` + param("signal.name", "Alarm") + param("signal.to", "all") + `</action>
</sequence>`)
	h := newHarness(t, xml, nil)
	rec := &routeRecorder{}
	h.env.Router = rec
	expectSteps(t, h.steps(1), []string{"success root: "})
	if v, _ := h.agent.Var("Aware"); !v {
		t.Error("a signal sent to self did not set Aware at once")
	}
	if got := strings.Join(rec.routed, " "); got != "a1->guard-2:Lost a1->all:Alarm" {
		t.Errorf("routed %q", got)
	}

	h = newHarness(t, xml, nil) // no router: sending to another agent is an error
	if got := h.step(); !strings.Contains(got, `error root:  | action "bt.signal.send": runtime: agent a1 cannot send "Lost" to "guard-2": the agent has no Router`) {
		t.Errorf("got %s", got)
	}
}

// TestBuiltin_signalSendCarriesItsData: signal.data.KEY parameters are the
// signal's data, to itself (a stimulus at once) and to others, typed as a
// script's would be, nested by dots, sorted, the same table every time.
func TestBuiltin_signalSendCarriesItsData(t *testing.T) {
	data := param("signal.data.who", "grunt-2") + param("signal.data.hp", "10") + param("signal.data.at.x", "4.5") +
		param("signal.data.at.y", "-1") + param("signal.data.urgent", "true") + param("signal.data.1", "first") + param("signal.data.note", "10 hp")
	xml := bt(guardDecls + `<sequence id="root">
<action id="self" name="bt.signal.send">` + param("signal.name", "Hurt") + data + `</action>
<action id="other" name="bt.signal.send">` + param("signal.name", "Hurt") + param("signal.to", "guard-2") + data + `</action>
<action id="bare" name="bt.signal.send">` + param("signal.name", "Ping") + param("signal.to", "guard-2") + `</action>
</sequence>`)
	h := newHarness(t, xml, nil)
	rec := &routeRecorder{}
	h.env.Router = rec
	expectSteps(t, h.steps(1), []string{"success root: "})
	const want = `{[1] = "first", at = {x = 4.5, y = -1}, hp = 10, note = "10 hp", urgent = true, who = "grunt-2"}`
	if got, _, ok := h.agent.Stimulus("Hurt"); !ok || DataText(got, 200) != want {
		t.Errorf("its own stimulus: %s, %v; want %s", DataText(got, 200), ok, want)
	}
	if got := strings.Join(rec.routed, " "); got != "a1->guard-2:Hurt="+want+" a1->guard-2:Ping" {
		t.Errorf("routed %q", got)
	}
}

func TestBuiltin_signalSendDataErrors(t *testing.T) {
	cases := []struct{ params, want string }{
		{param("signal.data.at", "1") + param("signal.data.at.x", "2"), `parameter "signal.data.at.x": key at is given both a value and entries of its own`},
		{param("signal.data.a..b", "1"), `parameter "signal.data.a..b": a key is empty`},
		{param("signal.data.", "1"), `parameter "signal.data.": a key is empty`},
	}
	for _, c := range cases {
		tree, err := LoadBytes("test.xml", []byte(bt(`<action id="root" name="bt.signal.send">`+param("signal.name", "Hurt")+c.params+`</action>`)), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Bind(tree, NewRegistry(), BindOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "test.xml:") {
			t.Errorf("%s: got %v, want an error at its position containing %q", c.params, err, c.want)
		}
	}
}

func TestBuiltin_variableAndTimestampActions(t *testing.T) {
	h := newHarness(t, bt(guardDecls+`<sequence id="root">
<action id="v" name="bt.variable.set">`+param("variable.name", "Aware")+param("variable.value", "true")+`</action>
<action id="ts" name="bt.timestamp.set">`+param("timestamp.name", "Spotted")+`</action>
<action id="tg" name="bt.timestamp.set">`+param("timestamp.name", "Gone")+`</action>
<action id="tc" name="bt.timestamp.clear">`+param("timestamp.name", "Gone")+`</action>
<action id="ts2" name="bt.timestamp.set">`+param("timestamp.name", "Spotted")+`</action>
</sequence>`), nil)
	h.steps(1)
	if v, _ := h.agent.Var("Aware"); !v {
		t.Error("bt.variable.set did not set Aware")
	}
	if at, set, _ := h.agent.Stamp("Spotted"); !set || at != 1 {
		t.Errorf("Spotted = %v %v, want set at 1", at, set)
	}
	if _, set, _ := h.agent.Stamp("Gone"); set {
		t.Error("Gone should be cleared")
	}
}

func TestBuiltin_timestampWait(t *testing.T) {
	xml := func(extra string) string {
		return bt(guardDecls + `<sequence id="root"><action id="w" name="bt.timestamp.wait">` + param("timestamp.name", "Gone") +
			param("timestamp.moreThan", "1") + extra + `</action><action id="after" name="ok"/></sequence>`)
	}
	h := newHarness(t, xml(""), nil)
	got := h.steps(1)
	h.agent.Signal("Lost") // sets Gone at t=1
	got = append(got, h.steps(2)...)
	expectSteps(t, got, []string{"running w: ", "running w: ", "success root: after"})

	h = newHarness(t, xml(param("timestamp.orNeverSet", "true")), nil)
	expectSteps(t, h.steps(1), []string{"success root: after"})
}

func TestBuiltin_log(t *testing.T) {
	h := newHarness(t, bt(`<action id="root" name="bt.log">`+param("log.message", "hello there")+`</action>`), nil)
	rec := &logRecorder{}
	h.env.Logger = rec
	h.steps(2)
	if got := strings.Join(rec.lines, "|"); got != "a1 t=1 root: hello there|a1 t=2 root: hello there" {
		t.Errorf("logged %q", got)
	}
}

func TestBuiltin_bindErrors(t *testing.T) {
	cases := []struct{ action, params, want string }{
		{"bt.wait", "", `bt.wait: needs parameter "wait.seconds" (seconds)`},
		{"bt.wait", param("wait.seconds", "-1"), `bt.wait: parameter "wait.seconds" = "-1" is not a number of seconds (a finite number >= 0)`},
		{"bt.signal.wait", "", `bt.signal.wait: needs parameter "signal.name"`},
		{"bt.signal.send", "", `bt.signal.send: needs parameter "signal.name"`},
		{"bt.variable.set", param("variable.name", "Nope") + param("variable.value", "true"), `bt.variable.set: no variable "Nope" is declared`},
		{"bt.variable.set", param("variable.name", "Aware"), `bt.variable.set: needs parameter "variable.value" (true or false)`},
		{"bt.variable.set", param("variable.name", "Aware") + param("variable.value", "1"), `bt.variable.set: parameter "variable.value" = "1" is not a boolean (true or false)`},
		{"bt.timestamp.set", "", `bt.timestamp.set: needs parameter "timestamp.name"`},
		{"bt.timestamp.clear", param("timestamp.name", "Nope"), `bt.timestamp.clear: no timestamp "Nope" is declared`},
		{"bt.timestamp.wait", param("timestamp.name", "Gone"), `bt.timestamp.wait: needs parameter "timestamp.moreThan" (seconds)`},
		{"bt.log", "", `bt.log: needs parameter "log.message"`},
		{"bt.gate.wait", param("gate.name", "nope"), `bt.gate.wait: no gate "nope" is declared`},
		{"bt.gate.wait", param("gate.name", "pair") + param("gate.users", "0"), `bt.gate.wait: parameter "gate.users" = "0" is not a count >= 1`},
		// More holders than the gate lets in at once: it would wait for ever.
		{"bt.gate.wait", param("gate.name", "pair") + param("gate.users", "3"),
			`bt.gate.wait: parameter "gate.users" = "3" waits for more holders than gate "pair" lets in at once (users="2"): it would wait for ever; expected a count from 1 to 2`},
	}
	for _, c := range cases {
		tree, err := LoadBytes("test.xml", []byte(bt(guardDecls+`<gates><gate name="pair" users="2"/></gates><action id="root" name="`+c.action+`">`+c.params+`</action>`)), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Bind(tree, NewRegistry(), BindOptions{})
		var list ErrorList
		if !errors.As(err, &list) || len(list) != 1 || list[0].Msg != c.want || !errors.Is(err, ErrUnbound) {
			t.Errorf("%s %s:\n got  %v\n want %s", c.action, c.params, err, c.want)
		}
	}
}

// refusingRouter refuses every signal, as a game does over its limit.
type refusingRouter struct{}

func (refusingRouter) Route(from *Agent, to, signal string, data Value) error {
	return errors.New("game: over the limit")
}

// TestSend_refusedBroadcastReachesNoOne: a signal to "all" that the Router
// refuses is an error and is not applied to its sender either.
func TestSend_refusedBroadcastReachesNoOne(t *testing.T) {
	h := newHarness(t, bt(`<signals><signal name="Ping" variable="heard" value="true"/></signals><variables><variable name="heard"/></variables><action id="x" name="ok"/>`), nil)
	h.env.Router = refusingRouter{}
	if err := h.agent.Send("all", "Ping", Value{}); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Fatalf("got %v", err)
	}
	if heard, _ := h.agent.Var("heard"); heard || h.agent.Held("Ping") {
		t.Error("the refused broadcast reached its sender")
	}
}
