package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// guardAction runs until a handler finishes it: it handles Hurt, Poke and
// Loop, answering what answers says (by signal; an error when the answer
// is an error), and logs each handler call with the data it got.
type guardAction struct {
	h       *harness
	answers map[string]any // Status or error, by signal
	onCall  func(a *Agent, signal string) error
}

func (x *guardAction) Run(a *Agent, _ Params) (Status, error) {
	x.h.log = append(x.h.log, a.Label())
	return Running, nil
}

func (x *guardAction) Cancel(a *Agent, _ Params) error {
	x.h.log = append(x.h.log, a.Label()+":cancel")
	return nil
}

func (x *guardAction) HandledSignals() []string { return []string{"Hurt", "Loop", "Poke"} }

func (x *guardAction) HandleSignal(a *Agent, _ Params, signal string, data Value) (Status, error) {
	entry := fmt.Sprintf("%s.on%s(%s)", a.Label(), signal, DataText(data, 50))
	x.h.log = append(x.h.log, entry)
	if x.onCall != nil {
		if err := x.onCall(a, signal); err != nil {
			return 0, err
		}
	}
	switch v := x.answers[signal].(type) {
	case Status:
		return v, nil
	case error:
		return 0, v
	}
	return 0, nil
}

// newGuardHarness binds xml with the harness's actions and "guard"
// (guardAction).
func newGuardHarness(t *testing.T, xml string) (*harness, *guardAction) {
	t.Helper()
	h := newHarness(t, bt(`<action id="x" name="ok"/>`), nil)
	g := &guardAction{h: h, answers: map[string]any{}}
	h.must(h.reg.RegisterAction("guard", g))
	tree, err := LoadBytes("test.xml", []byte(xml), LoadOptions{})
	h.must(err)
	h.tree, err = Bind(tree, h.reg, BindOptions{})
	h.must(err)
	h.agent = h.tree.NewAgent("a1", h.env)
	return h, g
}

const guardTree = `<signals><signal name="Hurt"/></signals>
<sequence id="root">
  <action id="watch" name="guard"/>
  <action id="after" name="ok"/>
</sequence>`

func TestHandler_finishesItsActionAtTheNextStep(t *testing.T) {
	for _, st := range []Status{Success, Failure} {
		h, g := newGuardHarness(t, bt(guardTree))
		g.answers["Hurt"] = st
		expectSteps(t, h.steps(1), []string{"running watch: watch"})
		h.log = h.log[:0]
		h.must(h.agent.SignalData("Hurt", numv(10)))
		if got := strings.Join(h.log, " "); got != "watch.onHurt(10)" {
			t.Errorf("%v: at delivery: %s", st, got)
		}
		want := "success root: after" // run is not called: the handler's result is the action's
		if st == Failure {
			want = "failure root: "
		}
		expectSteps(t, h.steps(2), []string{want, "running watch: watch"})
		if got := strings.Join(h.leaves, " "); got != "watch=running" {
			t.Errorf("the next arrival is a fresh start: %s", got)
		}
	}
}

func TestHandler_returningNothingLetsTheActionGoOn(t *testing.T) {
	h, _ := newGuardHarness(t, bt(guardTree))
	h.steps(1)
	h.must(h.agent.Signal("Hurt"))
	h.must(h.agent.Signal("Poke")) // undeclared: handlers see every signal they name
	expectSteps(t, h.steps(1), []string{"running watch: watch"})
	h.must(h.agent.Signal("Other")) // no handler for it
	expectSteps(t, h.steps(1), []string{"running watch: watch"})
}

// TestHandler_onlyForARunningAction: an action that has not run since the
// cursor arrived, or that finished, is not running: no handler is called.
func TestHandler_onlyForARunningAction(t *testing.T) {
	h, g := newGuardHarness(t, bt(guardTree))
	g.answers["Hurt"] = Success
	h.log = h.log[:0]
	h.must(h.agent.Signal("Hurt")) // before the first step: the cursor is the root
	if len(h.log) != 0 {
		t.Errorf("handler called for an action that is not running: %v", h.log)
	}
	h.steps(1)
	h.must(h.agent.Signal("Hurt"))
	h.log = h.log[:0]
	h.must(h.agent.Signal("Hurt")) // it has its result already: no more calls
	if len(h.log) != 0 {
		t.Errorf("handler called again after it finished its action: %v", h.log)
	}
}

func TestHandler_ofALanesAction(t *testing.T) {
	h, g := newGuardHarness(t, bt(`<signals><signal name="Hurt"/></signals>
<sequence id="root">
  <parallel id="both" success="all">
    <action id="walk" name="run"/>
    <action id="watch" name="guard"/>
  </parallel>
</sequence>`))
	g.answers["Hurt"] = Failure
	expectSteps(t, h.steps(1), []string{"running both{walk watch}: walk watch"})
	h.log = h.log[:0]
	h.must(h.agent.SignalData("Hurt", str("grunt-2")))
	if got := strings.Join(h.log, " "); got != `watch.onHurt("grunt-2")` {
		t.Errorf("at delivery: %s", got)
	}
	// The lane's action fails without running: the parallel (failure any) fails.
	expectSteps(t, h.steps(1), []string{"failure root: walk"})
}

// TestHandler_ofASignalTheAgentSendsItselfDuringItsStep: the effects apply
// at once, the handler call is owed until RunHandlers.
func TestHandler_ofASignalTheAgentSendsItselfDuringItsStep(t *testing.T) {
	h, g := newGuardHarness(t, bt(`<signals><signal name="Hurt"/></signals>
<parallel id="root" success="any">
  <action id="watch" name="guard"/>
  <sequence id="tick"><action id="hit" name="act"/><action id="wait" name="run"/></sequence>
</parallel>`))
	g.answers["Hurt"] = Success
	h.hook["hit"] = func(a *Agent) error { return a.Send("self", "Hurt", str("me")) }
	expectSteps(t, h.steps(1), []string{"running root{watch wait}: watch hit:start hit wait"})
	if !h.agent.Held("Hurt") || !h.agent.HandlersOwed() {
		t.Fatal("the signal's stimulus is recorded at once, its handler owed")
	}
	if _, err := h.agent.Snapshot(); err == nil || !errors.Is(err, ErrBusy) {
		t.Errorf("a save with handlers owed: %v", err)
	}
	h.log = h.log[:0]
	h.must(h.agent.RunHandlers())
	if got := strings.Join(h.log, " "); got != `watch.onHurt("me")` || h.agent.HandlersOwed() {
		t.Errorf("RunHandlers: %s", got)
	}
	expectSteps(t, h.steps(1), []string{"success root: "})
}

func TestHandler_errorResetsTheAgent(t *testing.T) {
	h, g := newGuardHarness(t, bt(guardTree))
	g.answers["Hurt"] = errors.New("medkit missing")
	h.steps(1)
	h.log = h.log[:0]
	err := h.agent.Signal("Hurt")
	var re *Error
	if !errors.As(err, &re) || re.Label != "watch" || !errors.Is(err, ErrAction) ||
		!strings.Contains(err.Error(), `test.xml:3:3: agent a1: rule watch: handler for signal "Hurt" of action "guard": medkit missing`) {
		t.Fatalf("got %v", err)
	}
	if got := strings.Join(h.log, " "); got != "watch.onHurt(nil) watch:cancel" || h.agent.CursorLabel() != "root" {
		t.Errorf("the agent is reset (its running action cancelled): %s, cursor %s", got, h.agent.CursorLabel())
	}
}

func TestHandler_mayNotJump(t *testing.T) {
	h, g := newGuardHarness(t, bt(guardTree))
	g.onCall = func(a *Agent, _ string) error { return a.Jump("after") }
	h.steps(1)
	err := h.agent.Signal("Hurt")
	if err == nil || !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "cannot jump to after from a signal handler") {
		t.Errorf("got %v", err)
	}
}

// TestHandler_signalsItSendsItselfComeAfterIt, in order, and handlers that
// keep signalling end at the run-away limit.
func TestHandler_signalsItSendsItselfComeAfterIt(t *testing.T) {
	h, g := newGuardHarness(t, bt(guardTree))
	g.onCall = func(a *Agent, signal string) error {
		switch signal {
		case "Hurt":
			if err := a.Send("self", "Poke", numv(1)); err != nil {
				return err
			}
			h.log = append(h.log, "sent")
		case "Loop":
			return a.Send("self", "Loop", Value{})
		}
		return nil
	}
	h.steps(1)
	h.log = h.log[:0]
	h.must(h.agent.Signal("Hurt"))
	if got := strings.Join(h.log, " "); got != "watch.onHurt(nil) sent watch.onPoke(1)" {
		t.Errorf("got %s", got)
	}
	h.env.RunawayLimit = 5
	err := h.agent.Signal("Loop")
	if err == nil || !errors.Is(err, ErrRunaway) || !strings.Contains(err.Error(), "run-away signal handlers: 5 handler calls for one delivery (limit 5)") {
		t.Errorf("got %v", err)
	}
}

// TestHandler_resultIsSaved: a result a handler left is agent state.
func TestHandler_resultIsSaved(t *testing.T) {
	h, g := newGuardHarness(t, bt(guardTree))
	g.answers["Hurt"] = Success
	h.steps(1)
	h.must(h.agent.Signal("Hurt"))
	s, err := h.agent.Snapshot()
	h.must(err)
	fresh := h.tree.NewAgent("a1", h.env)
	if _, err := fresh.Restore(&s); err != nil {
		t.Fatal(err)
	}
	h.agent = fresh
	expectSteps(t, h.steps(1), []string{"success root: after"})
}

func TestHandler_handlesLists(t *testing.T) {
	h, _ := newGuardHarness(t, bt(guardTree))
	i, _ := h.tree.Tree.RuleIndex("watch")
	if got := strings.Join(h.tree.Handles(i), ","); got != "Hurt,Loop,Poke" || !h.tree.HasHandlers() {
		t.Errorf("Handles(watch) = %s", got)
	}
	d, _ := h.reg.LookupAction("guard")
	if strings.Join(d.Handles, ",") != "Hurt,Loop,Poke" {
		t.Errorf("the registry's Handles: %v", d.Handles)
	}
	plain := newHarness(t, bt(`<action id="x" name="ok"/>`), nil)
	if plain.tree.HasHandlers() {
		t.Error("a tree without handlers has them")
	}
}
