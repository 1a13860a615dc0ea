package runtime

import (
	"errors"
	"strings"
	"testing"
)

// pendingHarness registers an action "remote" and a condition "remoteOk"
// that always answer later (ErrPending), like plugin calls.
func pendingRegistry(calls *[]string) *Registry {
	reg := NewRegistry()
	reg.RegisterAction("remote", ActionFunc(func(a *Agent, p Params) (Status, error) {
		*calls = append(*calls, "remote "+a.Label())
		return 0, ErrPending
	}))
	reg.RegisterCondition("remoteOk", ConditionFunc(func(a *Agent, p Params) (bool, error) {
		*calls = append(*calls, "remoteOk "+a.Label())
		return false, ErrPending
	}))
	reg.RegisterAction("ok", ActionFunc(func(a *Agent, p Params) (Status, error) {
		*calls = append(*calls, "ok "+a.Label())
		return Success, nil
	}))
	return reg
}

func TestPause_actionResumesWithItsAnswer(t *testing.T) {
	var calls []string
	a := mustAgent(t, bt(`<sequence id="root"><action id="r1" name="remote"/><action id="o" name="ok"/><action id="r2" name="remote"/></sequence>`), pendingRegistry(&calls))
	st, err := a.Step(1)
	if st != Paused || err != nil || !a.Paused() {
		t.Fatalf("step: %v %v", st, err)
	}
	if _, err := a.Step(1); !errors.Is(err, ErrBusy) {
		t.Errorf("stepping a paused agent: %v, want ErrBusy", err)
	}
	if _, err := a.CompleteCondition(true, nil); !errors.Is(err, ErrBusy) {
		t.Errorf("completing a condition while an action waits: %v", err)
	}
	st, _ = a.CompleteAction(Success, nil)
	if st != Paused || a.CursorLabel() != "r2" {
		t.Fatalf("after r1: %v at %s", st, a.CursorLabel())
	}
	st, _ = a.CompleteAction(Running, nil)
	if st != Running || a.CursorLabel() != "r2" {
		t.Fatalf("after r2: %v at %s", st, a.CursorLabel())
	}
	if got := strings.Join(calls, ", "); got != "remote r1, ok o, remote r2" {
		t.Errorf("calls: %s", got)
	}
	a.Step(1)
	if a.FirstRun() {
		t.Error("firstRun should be false once r2 was called")
	}
	st, _ = a.CompleteAction(Failure, nil)
	if st != Failure {
		t.Errorf("got %v", st)
	}
}

func TestPause_conditionResumesInItsMode(t *testing.T) {
	var calls []string
	a := mustAgent(t, bt(`<sequence id="root"><action id="x" name="ok"><conditionMode>anyTrue</conditionMode><condition>remoteOk</condition><condition>!remoteOk</condition></action></sequence>`), pendingRegistry(&calls))
	if st, _ := a.Step(1); st != Paused {
		t.Fatal(st)
	}
	// The first condition answers true: anyTrue passes without the second.
	if st, _ := a.CompleteCondition(true, nil); st != Success {
		t.Fatalf("got %v", st)
	}
	if got := strings.Join(calls, ", "); got != "remoteOk x, ok x" {
		t.Errorf("calls: %s", got)
	}
	// The first answers false: the second is asked; true negated is false.
	calls = nil
	a.Step(1)
	if st, _ := a.CompleteCondition(false, nil); st != Paused {
		t.Fatalf("got %v, want a pause at the second condition", st)
	}
	st, _ := a.CompleteCondition(true, nil)
	if st != Failure || strings.Join(calls, ", ") != "remoteOk x, remoteOk x" {
		t.Errorf("got %v, calls %v", st, calls)
	}
}

func TestPause_errorAnswerEndsTheStep(t *testing.T) {
	var calls []string
	a := mustAgent(t, bt(`<sequence id="root"><action id="r1" name="remote"/></sequence>`), pendingRegistry(&calls))
	a.Step(1)
	st, err := a.CompleteAction(0, errors.New("plugin nav crashed"))
	if st != Errored || err == nil || err.Error() != `test.xml:1:35: agent a1: rule r1: action "remote": plugin nav crashed` {
		t.Errorf("got %v %v", st, err)
	}
	if a.Paused() || a.Cursor() != Root {
		t.Error("the agent should be reset after an error")
	}
}

// TestPause_sameResultsAsSynchronous steps one tree twice, once with
// synchronous actions and once with the same actions answering later, and
// compares the observed runs.
func TestPause_sameResultsAsSynchronous(t *testing.T) {
	xml := bt(`<choice id="root" loop="false">
<sequence id="s"><condition>c</condition><action id=".a" name="x"/><action id=".b" name="x"/></sequence>
<action id="t" name="x"><condition>!c</condition></action>
</choice>`)
	results := []Status{S, R, S, F, S, R, R, S, F, F, S}
	run := func(pending bool) string {
		var trace []string
		reg := NewRegistry()
		n := 0
		next := func() Status { st := results[n%len(results)]; n++; return st }
		cond := 0
		nextCond := func() bool { cond++; return cond%3 != 0 }
		if pending {
			reg.RegisterAction("x", ActionFunc(func(a *Agent, p Params) (Status, error) { return 0, ErrPending }))
			reg.RegisterCondition("c", ConditionFunc(func(a *Agent, p Params) (bool, error) { return false, ErrPending }))
		} else {
			reg.RegisterAction("x", ActionFunc(func(a *Agent, p Params) (Status, error) { return next(), nil }))
			reg.RegisterCondition("c", ConditionFunc(func(a *Agent, p Params) (bool, error) { return nextCond(), nil }))
		}
		a := mustAgent(t, xml, reg)
		for range 20 {
			st, err := a.Step(1)
			for st == Paused {
				if a.phase == phaseWaitAction {
					st, err = a.CompleteAction(next(), nil)
				} else {
					st, err = a.CompleteCondition(nextCond(), nil)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			trace = append(trace, st.String()+"@"+a.CursorLabel())
		}
		return strings.Join(trace, " ")
	}
	if sync, paused := run(false), run(true); sync != paused {
		t.Errorf("synchronous: %s\npaused:      %s", sync, paused)
	}
}

// TestPause_checksAndScorersSameAsSynchronous: conditions called by the
// start-of-step checks (abort self, lower, both) and scorers pause and
// resume like any call: the same tree stepped with calls answered at once
// and with every call answered later gives the same steps.
func TestPause_checksAndScorersSameAsSynchronous(t *testing.T) {
	xml := bt(`<choice id="root">
<sequence id="alarm" abort="lower"><condition>c</condition><action id=".go" name="x"/></sequence>
<sequence id="work" abort="both" timeout="3"><condition>d</condition>
  <choice id="pick" order="score">
    <action id=".a" name="x"><parameter name="choice.score">sc</parameter></action>
    <action id=".b" name="x"><parameter name="choice.score">1.5</parameter></action>
    <action id=".c" name="x"><parameter name="choice.score">sc</parameter></action>
  </choice>
</sequence>
<action id="idle" name="x"/>
</choice>`)
	results := []Status{R, R, S, F, R, R, R, R, R, S, F, F, S, R}
	run := func(pending bool) string {
		var trace []string
		reg := NewRegistry()
		n, score := 0, 0
		waiting := ""
		next := func() Status { st := results[n%len(results)]; n++; return st }
		conds := map[string]int{}
		nextCond := func(name string) bool {
			conds[name]++
			if name == "c" {
				return conds[name]%5 == 0
			}
			return conds[name]%6 != 0
		}
		nextScore := func() float64 { score++; return float64(score%5) - 1 }
		if pending {
			reg.RegisterAction("x", ActionFunc(func(a *Agent, p Params) (Status, error) { return 0, ErrPending }))
			for _, name := range []string{"c", "d"} {
				reg.RegisterCondition(name, ConditionFunc(func(a *Agent, p Params) (bool, error) { waiting = name; return false, ErrPending }))
			}
			reg.RegisterScorer("sc", ScorerFunc(func(a *Agent, p Params) (float64, error) { return 0, ErrPending }))
		} else {
			reg.RegisterAction("x", ActionFunc(func(a *Agent, p Params) (Status, error) { return next(), nil }))
			for _, name := range []string{"c", "d"} {
				reg.RegisterCondition(name, ConditionFunc(func(a *Agent, p Params) (bool, error) { return nextCond(name), nil }))
			}
			reg.RegisterScorer("sc", ScorerFunc(func(a *Agent, p Params) (float64, error) { return nextScore(), nil }))
		}
		a := mustAgent(t, xml, reg)
		a.env.Observer = observerFunc(func(a *Agent, runs []RuleRun, st Status, err error) {
			line := st.String() + "@" + a.CursorLabel()
			for _, r := range runs {
				line += " " + a.bound.Tree.Rules[r.Rule].Label + "=" + r.Status.String()
			}
			if in, ok := a.LastInterrupt(); ok {
				line += " [" + in.Kind.String() + " " + a.bound.Tree.Rules[in.Rule].Label + "]"
			}
			trace = append(trace, line)
		})
		pauses := 0
		for range 40 {
			st, err := a.Step(1)
			for st == Paused {
				pauses++
				switch a.phase {
				case phaseWaitAction:
					st, err = a.CompleteAction(next(), nil)
				case phaseWaitScore:
					st, err = a.CompleteScore(nextScore(), nil)
				default:
					st, err = a.CompleteCondition(nextCond(waiting), nil)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if pending && pauses == 0 {
			t.Fatal("nothing paused")
		}
		return strings.Join(trace, "\n")
	}
	sync, paused := run(false), run(true)
	if sync != paused {
		t.Errorf("synchronous:\n%s\npaused:\n%s", sync, paused)
	}
	for _, want := range []string{"[preempt alarm]", "[abort work]", "[timeout work]"} {
		if !strings.Contains(sync, want) {
			t.Errorf("the run never shows %s; the test does not exercise what it should:\n%s", want, sync)
		}
	}
}
