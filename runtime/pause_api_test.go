package runtime

import (
	"errors"
	"strings"
	"testing"
)

// TestPausedAt_saysWhatAPausedStepWaitsFor and FailPaused ends it with an
// error of that call or take, whatever it is: the agent is reset and steps
// again; a take the round had granted is released at the next round's end.
func TestPausedAt_saysWhatAPausedStepWaitsFor(t *testing.T) {
	var calls []string
	reg := pendingRegistry(&calls)
	reg.RegisterScorer("later", ScorerFunc(func(a *Agent, p Params) (float64, error) { return 0, ErrPending }))
	watched := true
	reg.RegisterCondition("c", ConditionFunc(func(a *Agent, p Params) (bool, error) {
		if watched {
			return true, nil
		}
		return false, ErrPending
	}))
	reg.RegisterAction("run", ActionFunc(func(a *Agent, p Params) (Status, error) { return Running, nil }))
	boom := errors.New("the host cannot answer")
	for _, tc := range []struct {
		name, xml string
		want      Pause
		label     string
	}{
		{"an action", `<sequence id="root"><action id="r" name="remote"/></sequence>`, PauseAction, "r"},
		{"a condition", `<sequence id="root"><action id="r" name="ok"><condition>remoteOk</condition></action></sequence>`, PauseCondition, "r"},
		{"a watched condition in the checks", `<choice id="root"><sequence id="w" abort="self"><condition>c</condition><action id="r" name="run"/></sequence></choice>`, PauseCondition, "w"},
		{"a scorer", `<choice id="root" order="score"><action id="r" name="ok"><parameter name="choice.score">later</parameter></action></choice>`, PauseScorer, "r"},
		{"the take of a gate", `<gates><gate name="g"/></gates><sequence id="root"><action id="r" name="ok" gate="g"/></sequence>`, PauseGate, "r"},
		{"the take of a gate the round granted", `<gates><gate name="g"/></gates><sequence id="root"><action id="r" name="ok" gate="g"/></sequence>`, PauseGate, "r"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			watched = true
			b := bindXML(t, reg, bt(tc.xml))
			gates := NewGates()
			if err := gates.Add(b); err != nil {
				t.Fatal(err)
			}
			a := b.NewAgent("a", &Env{Gates: gates})
			if a.PausedAt() != PauseNone {
				t.Fatalf("a new agent is paused at %v", a.PausedAt())
			}
			if tc.want == PauseCondition && tc.label == "w" {
				a.Step(1) // w entered, r running: the next step's checks pause at c
				watched = false
			}
			if st, _ := a.Step(1); st != Paused || a.PausedAt() != tc.want {
				t.Fatalf("step: %v, paused at %v; want paused at %v", st, a.PausedAt(), tc.want)
			}
			granted := strings.Contains(tc.name, "granted")
			if granted {
				gates.EndRound([]*Agent{a})
			}
			st, err := a.FailPaused(boom)
			var e *Error
			if st != Errored || !errors.Is(err, boom) || !errors.As(err, &e) || e.Label != tc.label {
				t.Fatalf("FailPaused: %v %v; want an error of rule %s wrapping the host's", st, err, tc.label)
			}
			if a.Paused() || a.CursorLabel() != "root" {
				t.Fatalf("after FailPaused: paused at %v, cursor %s; want reset at the root", a.PausedAt(), a.CursorLabel())
			}
			if granted {
				if n := a.GateHoldersAt(0); n != 1 {
					t.Fatalf("the granted take has %d holders before the round's end; want 1", n)
				}
				gates.EndRound([]*Agent{a})
				if n := a.GateHoldersAt(0); n != 0 {
					t.Fatalf("gate g has %d holders after the round's end; want the take given back", n)
				}
			}
			if st, err := a.FailPaused(boom); st != Errored || !errors.Is(err, ErrBusy) {
				t.Errorf("FailPaused of an agent not paused: %v %v", st, err)
			}
			watched = true
			if st, _ := a.Step(1); st != Paused && st != Running && st != Success {
				t.Errorf("the freed agent's next step: %v", st)
			}
		})
	}
}
