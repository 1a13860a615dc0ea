package runtime

import (
	"errors"
	"strings"
	"testing"
)

// A lane's cancel hook that signals the agent itself, while another lane's
// action has handlers for that signal: the signal arrives while the agent
// is leaving its rules (a reset, a removal, a jump between steps), in the
// middle of cancelling its lanes. Its handlers are owed and called once the
// agent has left them (SPEC §15: handlers are called at delivery, between
// steps), never in the middle of the cancel.

// newShoutHarness is newGuardHarness with "shout": an action that runs
// until cancelled, and whose cancel sends the agent itself Hurt.
func newShoutHarness(t *testing.T, xml string) (*harness, *guardAction) {
	t.Helper()
	h := newHarness(t, bt(`<action id="x" name="ok"/>`), nil)
	g := &guardAction{h: h, answers: map[string]any{}}
	h.must(h.reg.RegisterAction("guard", g))
	h.must(h.reg.RegisterAction("shout", &Lifecycle{
		OnRun: func(a *Agent, _ Params) (Status, error) { return Running, nil },
		OnCancel: func(a *Agent, _ Params) error {
			h.log = append(h.log, a.Label()+":cancel")
			return a.Send("self", "Hurt", str(a.Label()))
		},
	}))
	tree, err := LoadBytes("test.xml", []byte(xml), LoadOptions{})
	h.must(err)
	h.tree, err = Bind(tree, h.reg, BindOptions{})
	h.must(err)
	h.agent = h.tree.NewAgent("a1", h.env)
	return h, g
}

const shoutTree = `<signals><signal name="Hurt"/></signals>
<sequence id="root">
  <parallel id="both" success="all">
    <sequence id="loud"><action id="yell" name="shout"/><action id="calm" name="run"/></sequence>
    <action id="watch" name="guard"/>
  </parallel>
  <action id="after" name="ok"/>
</sequence>`

func TestHandler_laneCancelSignallingTheAgentWhileItIsLeft(t *testing.T) {
	for _, tc := range []struct {
		name  string
		leave func(a *Agent) error
		want  string
	}{
		// Every lane is left: by the time the handler would run, no action
		// runs; the signal's stimulus stays.
		{"reset", (*Agent).Reset, "yell:cancel watch:cancel"},
		{"close", (*Agent).Close, "yell:cancel watch:cancel"},
		{"restore", func(a *Agent) error {
			s, err := a.bound.NewAgent("a1", nil).Snapshot()
			if err != nil {
				return err
			}
			_, err = a.Restore(&s)
			return err
		}, "yell:cancel watch:cancel"},
		// A jump inside the yelling lane cancels its action only: the
		// watching lane's action still runs and hears it, after the jump.
		{"jump", func(a *Agent) error { return a.Jump("calm") }, `yell:cancel watch.onHurt("yell")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := newShoutHarness(t, bt(shoutTree))
			expectSteps(t, h.steps(1), []string{"running both{yell watch}: watch"})
			h.log = h.log[:0]
			if err := tc.leave(h.agent); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(h.log, " "); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if h.agent.HandlersOwed() {
				t.Error("handlers still owed after the agent was left between steps")
			}
			if !h.agent.Held("Hurt") && tc.name != "restore" {
				t.Error("the signal's stimulus was lost")
			}
		})
	}
}

// TestHandler_laneCancelSignallingTheAgentOnAnError: an error of a step
// resets the agent, whose lanes' cancels signal it: the handler is owed to
// RunHandlers, which finds no action running any more.
func TestHandler_laneCancelSignallingTheAgentOnAnError(t *testing.T) {
	h, _ := newShoutHarness(t, bt(`<signals><signal name="Hurt"/></signals>
<parallel id="root" success="all">
  <action id="yell" name="shout"/>
  <action id="watch" name="guard"/>
  <action id="boom" name="act"/>
</parallel>`))
	h.script["boom"] = []Status{Running}
	expectSteps(t, h.steps(1), []string{"running root{yell watch boom}: watch boom:start boom"})
	h.hook["boom"] = func(*Agent) error { return errors.New("broke") }
	expectSteps(t, h.steps(1), []string{`error root: watch boom yell:cancel watch:cancel boom:cancel | action "act": broke`})
	if !h.agent.Held("Hurt") || !h.agent.HandlersOwed() {
		t.Fatal("the cancel's signal is recorded, its handler owed")
	}
	h.log = h.log[:0]
	h.must(h.agent.RunHandlers())
	if len(h.log) != 0 || h.agent.HandlersOwed() {
		t.Errorf("RunHandlers after the reset: %v", h.log)
	}
}

// TestCancel_betweenStepsMayNotJump: a cancel hook called while the agent
// is reset between steps may not move it elsewhere (it used to jump in the
// middle of the reset).
func TestCancel_betweenStepsMayNotJump(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root"><action id="a" name="act"/><action id="b" name="ok"/></sequence>`), nil)
	h.must(h.reg.RegisterAction("jumpy", &Lifecycle{
		OnRun:    func(*Agent, Params) (Status, error) { return Running, nil },
		OnCancel: func(a *Agent, _ Params) error { return a.Jump("b") },
	}))
	tree, err := LoadBytes("test.xml", []byte(bt(`<sequence id="root"><action id="a" name="jumpy"/><action id="b" name="ok"/></sequence>`)), LoadOptions{})
	h.must(err)
	h.tree, err = Bind(tree, h.reg, BindOptions{})
	h.must(err)
	h.agent = h.tree.NewAgent("a1", h.env)
	expectSteps(t, h.steps(1), []string{"running a: "})
	err = h.agent.Reset()
	if err == nil || !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "cannot jump to b from a cancel hook called between steps") {
		t.Errorf("got %v", err)
	}
	if h.agent.CursorLabel() != "root" {
		t.Errorf("the reset is done all the same: cursor %s", h.agent.CursorLabel())
	}
}
