package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// siblingTrees are trees whose choices without conditions the fast path
// runs, each beside shapes it hands over to the loop.
var siblingTrees = map[string]string{
	// Every simple condition shape under each mode, actions that fail,
	// succeed and run, a toggled variable, and the choice's last child a
	// success rule.
	"modes": `<choice id="root">` +
		modeActions("c") + modeActions("!c") + modeActions("V") + modeActions("!V") +
		`<action id="t" name="toggle"><condition>c</condition></action><action id="a" name="act"/><success id="s"/></choice>`,
	// A looping choice, a failure rule last, doNotFail on actions and on
	// the choice, and a choice nested in a sequence (its finish goes back
	// to the generic loop).
	"loops": `<sequence id="root" loop="true">
		<choice id="lp" loop="true" doNotFail="true"><action id=".a" name="act"><condition>c</condition></action><action id=".b" name="act" doNotFail="true"/><failure id=".f"/></choice>
		<choice id="ch"><action id=".a" name="act"><condition>!V</condition></action><action id=".t" name="toggle"/></choice>
		<choice id="dn" doNotFail="true"><action id=".a" name="act"><condition>c</condition></action><failure id=".f"/></choice>
		<running/></sequence>`,
	// Choices in choices: an inner choice that finishes hands its result
	// to the outer one, which moves on, loops or finishes in turn.
	"nested": `<choice id="root" loop="true"><choice id="in"><action id=".a" name="act"><condition>c</condition></action><failure id=".f"/></choice>
		<choice id="mid"><action id=".a" name="act"><condition>!c</condition></action></choice>
		<choice id="last"><action id=".a" name="act"/></choice></choice>`,
	"nestedOnce": `<choice id="root"><choice id="in"><action id=".a" name="act"><condition>c</condition></action><failure id=".f"/></choice>
		<choice id="lp" loop="true"><action id=".a" name="act"><condition>!c</condition></action><success id=".s"/></choice></choice>`,
	// A root choice that does not fail.
	"dnf": `<choice id="root" doNotFail="true"><action id="a" name="act"/><failure id="f"/></choice>`,
	// Calls that pause (an action, a condition), fail with an error, and an
	// action with Start and Cancel among plain ones.
	"paused": `<choice id="root"><action id="a" name="act"><condition>c</condition></action>
		<action id="s" name="slow"><condition>c</condition></action><action id="q" name="act"><condition>q</condition></action>
		<action id="b" name="bad"><condition>e</condition></action><action id="l" name="life"/><action id="z" name="act"/></choice>`,
	// A choice whose first child is not a plain action, and one entered
	// whose first child is a success rule.
	"firsts": `<choice id="root"><sequence id="sq"><action id=".a" name="act"/></sequence><choice id="inner"><success id=".s"/></choice>
		<action id="a" name="act"><condition>!c</condition></action><action id="b" name="act"/></choice>`,
	// A run-away: the root loops while its first action succeeds.
	"runaway": `<choice id="root" loop="true"><action id="a" name="act"><condition>c</condition></action><action id="b" name="act"/><success id="s"/></choice>`,
	// Jumps asked for during a condition and during an action.
	"jumps": `<choice id="root"><action id="a" name="act"><condition>jumpy</condition></action>
		<action id="j" name="jump"/><action id="b" name="act"/><failure id="f"/></choice>`,
	// An action that returns a status an action may not return.
	"invalid": `<choice id="root"><action id="a" name="act"><condition>c</condition></action><action id="w" name="weird"/></choice>`,
}

// siblingRegistry is leanScript's registry with the calls siblingTrees
// also use: a jump from a condition or an action, and an invalid status.
func siblingRegistry(s *leanScript) *Registry {
	reg := s.registry()
	jumpTo := func(a *Agent) {
		targets := []string{"a", "b", "f", "root", "j"}
		t := targets[s.next(uint64(len(targets)))]
		fmt.Fprintf(&s.log, "jump@%s->%s ", a.Label(), t)
		if err := a.Jump(t); err != nil {
			panic(err)
		}
	}
	reg.RegisterCondition("jumpy", ConditionFunc(func(a *Agent, p Params) (bool, error) {
		if s.next(3) == 0 {
			jumpTo(a)
		}
		return s.next(2) == 0, nil
	}))
	reg.RegisterAction("jump", ActionFunc(func(a *Agent, p Params) (Status, error) {
		if s.next(2) == 0 {
			jumpTo(a)
		}
		return s.status(), nil
	}))
	reg.RegisterAction("weird", ActionFunc(func(a *Agent, p Params) (Status, error) {
		if s.next(4) == 0 {
			return Paused, nil
		}
		return s.status(), nil
	}))
	return reg
}

// siblingAgent is a quiet agent (no Observer) of one of siblingTrees, or
// the same tree stepped on the loop alone with every hook (trackAll).
func siblingAgent(t *testing.T, body string, tracked bool, limit int) (*Agent, *leanScript) {
	t.Helper()
	xml := `<behaviorTree><variables><variable name="V"/></variables>` + body + `</behaviorTree>`
	tree, err := LoadBytes("siblings.xml", []byte(xml), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := &leanScript{seed: 11}
	b, err := Bind(tree, siblingRegistry(s), BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b.feats != nil || b.hot == nil {
		t.Fatal("the tree uses features: its rules have hooks")
	}
	fast := 0
	for _, h := range b.hot {
		if h.bits&hotFast != 0 {
			fast++
		}
	}
	if fast == 0 {
		t.Fatal("no rule of the tree is one the fast path runs")
	}
	if tracked {
		trackAll(b)
	}
	return b.NewAgent("a1", &Env{RunawayLimit: limit}), s
}

// stepQuiet steps a once without an observer (answering its paused calls
// from its script) and describes what the step did and left: the result
// and error (with the text of a run-away error, which lists every run),
// the calls in order, and the agent's state.
func stepQuiet(a *Agent, s *leanScript) string {
	s.log.Reset()
	st, err := a.Step(0.5)
	for st == Paused {
		if a.phase == phaseWaitAction {
			st, err = a.CompleteAction(s.status(), nil)
		} else {
			st, err = a.CompleteCondition(s.next(2) == 0, nil)
		}
	}
	v, _ := a.Tree().Tree.VarIndex("V")
	return fmt.Sprintf("%s %v | calls %s| cursor %s last %s first %v running %v V %v count %d",
		st, err, s.log.String(), a.CursorLabel(), a.LastResult(), a.FirstRun(),
		a.flags&flagActionRunning != 0, a.VarAt(v), a.count)
}

// TestFastPath_quietStepsAsLoopTracked: quiet steps (nothing observes)
// of trees whose choices the fast path runs call the same actions and
// conditions in the same order as the loop alone with every hook
// (trackAll), end with the same results
// and errors (a run-away's message, listing every run, included), and
// leave the agent in the same state, through jumps, pauses, errors, an
// invalid status, loops and doNotFail, under run-away limits from the
// smallest up.
func TestFastPath_quietStepsAsLoopTracked(t *testing.T) {
	for name, body := range siblingTrees {
		for _, limit := range []int{1, 2, 3, 5, 40} {
			t.Run(fmt.Sprintf("%s/limit=%d", name, limit), func(t *testing.T) {
				lean, leanScript := siblingAgent(t, body, false, limit)
				tracked, trackedScript := siblingAgent(t, body, true, limit)
				for step := 1; step <= 300; step++ {
					got, want := stepQuiet(lean, leanScript), stepQuiet(tracked, trackedScript)
					if got != want {
						t.Fatalf("step %d: a quiet step and trackAll's differ:\nquiet   %s\ntracked %s", step, got, want)
					}
				}
			})
		}
	}
}

// TestFastPath_quietAfterObservedSteps: quiet steps that follow
// observed ones (whose end cuts the Env's buffer of runs to the runs they
// made) still call what the loop with every hook calls and list every run
// of a run-away, the fast path writing out the runs it did not store on
// the way only where they are needed.
func TestFastPath_quietAfterObservedSteps(t *testing.T) {
	for name, body := range siblingTrees {
		for _, limit := range []int{2, 3, 9, 40} {
			t.Run(fmt.Sprintf("%s/limit=%d", name, limit), func(t *testing.T) {
				lean, leanScript := siblingAgent(t, body, false, limit)
				tracked, trackedScript := siblingAgent(t, body, true, limit)
				for step := 1; step <= 300; step++ {
					lean.env.Observer = nil
					if step%3 == 0 {
						lean.env.Observer = &leanRuns{}
					}
					got, want := stepQuiet(lean, leanScript), stepQuiet(tracked, trackedScript)
					if got != want {
						t.Fatalf("step %d: the tree's own code and trackAll's differ:\nown     %s\ntracked %s", step, got, want)
					}
				}
			})
		}
	}
}

// TestFastPath_quietAndObservedStepAlike: the same agent stepped with
// and without an Observer calls the same things and ends in the same
// state (the observer changes what is recorded, not what runs).
func TestFastPath_quietAndObservedStepAlike(t *testing.T) {
	for name, body := range siblingTrees {
		t.Run(name, func(t *testing.T) {
			quiet, quietScript := siblingAgent(t, body, false, 40)
			observed, observedScript := siblingAgent(t, body, false, 40)
			observed.env.Observer = &leanRuns{}
			for step := 1; step <= 300; step++ {
				got, want := stepQuiet(quiet, quietScript), stepQuiet(observed, observedScript)
				if got != want {
					t.Fatalf("step %d: quiet and observed steps differ:\nquiet    %s\nobserved %s", step, got, want)
				}
			}
		})
	}
}

// TestFastPath_runawayListsEveryRun: a run-away on the fast path names
// every rule run, in order, folding the cycle, as it does when an Observer
// records the runs in full.
func TestFastPath_runawayListsEveryRun(t *testing.T) {
	body := `<choice id="root" loop="true"><action id="a" name="no"/><action id="b" name="yes"/></choice>`
	reg := NewRegistry()
	reg.RegisterAction("no", ActionFunc(func(*Agent, Params) (Status, error) { return Failure, nil }))
	reg.RegisterAction("yes", ActionFunc(func(*Agent, Params) (Status, error) { return Success, nil }))
	tree, err := LoadBytes("runaway.xml", []byte(bt(body)), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, observer := range []Observer{nil, &leanRuns{}} {
		a := b.NewAgent("a1", &Env{RunawayLimit: 9, Observer: observer})
		st, err := a.Step(1)
		if st != Errored || !errors.Is(err, ErrRunaway) {
			t.Fatalf("observer %v: got %v, %v; want a run-away error", observer != nil, st, err)
		}
		msgs = append(msgs, err.Error())
	}
	want := "run-away step: 9 rules run without one returning running (limit 9): root, a, root, b, root, a, root, b, root"
	for i, msg := range msgs {
		if !strings.Contains(msg, want) {
			t.Errorf("run %d: %q does not contain %q", i, msg, want)
		}
	}
}

// TestFastPath_observerSetDuringAQuietStep: an Observer set during a
// step that began without one sees the steps that begin after it was set,
// each with all of its runs; the step during which it was set is not
// reported to it (its runs were not recorded in full).
func TestFastPath_observerSetDuringAQuietStep(t *testing.T) {
	runs := &leanRuns{}
	env := &Env{}
	reg := NewRegistry()
	reg.RegisterAction("watch", ActionFunc(func(a *Agent, p Params) (Status, error) {
		env.Observer = runs
		return Failure, nil
	}))
	reg.RegisterAction("idle", ActionFunc(func(*Agent, Params) (Status, error) { return Running, nil }))
	tree, err := LoadBytes("watch.xml", []byte(bt(`<choice id="root"><action id="w" name="watch"/><action id="i" name="idle"/></choice>`)), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := b.NewAgent("a1", env)
	if st, err := a.Step(1); st != Running || err != nil {
		t.Fatalf("step 1: got %v, %v; want running", st, err)
	}
	if got := runs.b.String(); got != "" {
		t.Errorf("step 1 began without an observer, yet the observer saw %q", got)
	}
	if st, err := a.Step(1); st != Running || err != nil {
		t.Fatalf("step 2: got %v, %v; want running", st, err)
	}
	if got, want := runs.b.String(), "i:running => running <nil>\n"; got != want {
		t.Errorf("step 2: the observer saw %q, want %q", got, want)
	}
}

// TestFastPath_marksChildrenOfPlainChoices: the fast path runs the plain
// actions, success and failure rules under choices without conditions,
// and enters such choices when their first child is one of those.
func TestFastPath_marksChildrenOfPlainChoices(t *testing.T) {
	body := `<sequence id="root">
		<choice id="c1"><action id=".a" name="act"><condition>c</condition></action><action id=".l" name="life"/><success id=".s"/><failure id=".f"/>
			<action id=".two" name="act"><condition>c</condition><condition>V</condition></action><success id=".cs"><condition>c</condition></success></choice>
		<choice id="c2"><sequence id=".sq"><action id=".a" name="act"/></sequence></choice>
		<choice id="c3"><condition>c</condition><action id=".a" name="act"/></choice>
		<action id="top" name="act"/></sequence>`
	s := &leanScript{}
	tree, err := LoadBytes("marks.xml", []byte(`<behaviorTree><variables><variable name="V"/></variables>`+body+`</behaviorTree>`), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(tree, s.registry(), BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]hotBits{
		"c1": hotEnters, "c1.a": hotSibling, "c1.l": hotSibling, "c1.s": hotSibling, "c1.f": hotSibling,
		// An action with Start and Cancel (life) is run there too (through
		// callAction); two conditions, and a success rule with one, go
		// through the loop; so does anything under a choice with
		// conditions, a sequence, or the root.
	}
	for i, h := range b.hot {
		id := b.Tree.Rules[i].ID
		if got := h.bits & hotFast; got != want[id] {
			t.Errorf("rule %q (%d): marked %03b for the fast path, want %03b", id, i, got, want[id])
		}
	}
}

// TestFastPath_marksOnlyRulesWhoseNextComesRightAfter: the fast path
// steps from a child to its next sibling, and from a choice to its first
// child, as to the rule right after it; markSiblings leaves a child whose
// next sibling, or a choice whose first child, is elsewhere to the loop.
func TestFastPath_marksOnlyRulesWhoseNextComesRightAfter(t *testing.T) {
	leaf := func(parent, next int32) hotRule {
		return hotRule{kind: KindSuccess, parent: parent, firstChild: -1, next: next}
	}
	for _, tc := range []struct {
		name string
		hot  []hotRule
		want []hotBits
	}{
		{"adjacent", []hotRule{
			{kind: KindChoice, parent: -1, firstChild: 1, next: -1}, leaf(0, 2), leaf(0, -1),
		}, []hotBits{hotEnters, hotSibling, hotSibling}},
		{"next elsewhere", []hotRule{
			{kind: KindChoice, parent: -1, firstChild: 1, next: -1}, leaf(0, 3), leaf(0, -1), leaf(0, 2),
		}, []hotBits{0, 0, hotSibling, 0}}, // the first child is left, so is entering
		{"first child elsewhere", []hotRule{
			{kind: KindChoice, parent: -1, firstChild: 2, next: -1}, leaf(0, -1), leaf(0, 1),
		}, []hotBits{0, hotSibling, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			markSiblings(tc.hot)
			for i, h := range tc.hot {
				if got := h.bits & hotFast; got != tc.want[i] {
					t.Errorf("rule %d: marked %03b, want %03b", i, got, tc.want[i])
				}
			}
		})
	}
}
