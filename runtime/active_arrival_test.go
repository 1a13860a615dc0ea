package runtime

import (
	"errors"
	"testing"
)

// TestActive_anArrivalIsActiveOnlyOnceItsFirstRunLetsItIn: a rule the
// cursor arrived at (here x, the target of a jump) becomes active only
// when its first run lets it in. Until then an error reset, an abort, a
// jump away or a cancelled lane leaves nothing of it: no cooldown starts
// (x, cooldown 10, is not refused when it comes back), no log is written;
// and its timeout clock starts at that first run.
func TestActive_anArrivalIsActiveOnlyOnceItsFirstRunLetsItIn(t *testing.T) {
	logged := func(name string) string {
		return `<parameter name="log.start">` + name + ` starts</parameter><parameter name="log.success">` + name +
			` won</parameter><parameter name="log.failure">` + name + ` lost</parameter>`
	}
	watched := bt(`<choice id="root">
  <sequence id="s" abort="self"><condition>w</condition>
    <action id="a" name="act"/>
    <action id="x" name="act" cooldown="10">` + logged("x") + `</action>
  </sequence>
  <action id="b" name="ok"/>
</choice>`)
	jump := func(id string) func(h *harness) { return func(h *harness) { h.must(h.agent.Jump(id)) } }
	runStepCases(t, []stepCase{
		{name: "an error reset before its first run",
			xml: watched, conds: map[string]bool{"w": true}, script: map[string][]Status{"a": {R}, "x": {R}},
			before: map[int]func(h *harness){
				2: func(h *harness) {
					jump("x")(h)
					h.hook["?w"] = func(*Agent) error { return errors.New("boom") }
				},
				3: func(h *harness) { delete(h.hook, "?w") },
				4: jump("x"),
			},
			want: []string{
				"running a: ?w a:start a",
				`error root: ?w | condition "w": boom`, // x was not active: nothing is left of it
				"running a: ?w a:start a",
				"running x: ?w log(x: x starts) x:start x", // not refused: no cooldown ran
			}},
		{name: "an abort before its first run",
			xml: watched, conds: map[string]bool{"w": true}, script: map[string][]Status{"a": {R}, "x": {R}},
			changes: map[int]map[string]bool{2: {"w": false}, 3: {"w": true}},
			before:  map[int]func(h *harness){2: jump("x"), 4: jump("x")},
			want: []string{
				"running a: ?w a:start a",
				"success root: ?w b [abort s]", // s is left; x was not active: no log.failure
				"running a: ?w a:start a",
				"running x: ?w log(x: x starts) x:start x",
			}},
		{name: "a jump away before its first run",
			xml: watched, conds: map[string]bool{"w": true}, script: map[string][]Status{"a": {R}, "x": {R}},
			before: map[int]func(h *harness){
				2: func(h *harness) { jump("x")(h); jump("a")(h) },
				3: jump("x"),
			},
			want: []string{
				"running a: ?w a:start a",
				"running a: ?w a:start a",
				"running x: ?w log(x: x starts) x:start x",
			}},
		{name: "a lane cancelled before its first turn",
			xml: bt(`<sequence id="root"><parallel id="p" success="1" failure="all">
  <action id="q" name="ok"><condition>c</condition></action>
  <action id="x" name="act" cooldown="10">` + logged("x") + `</action>
</parallel></sequence>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"x": {R}},
			changes: map[int]map[string]bool{2: {"c": false}},
			want: []string{
				"success root: ?c q", // q's lane succeeds first: x's lane is cancelled before its turn
				"running p{q=failure x}: ?c log(x: x starts) x:start x", // not refused
			}},
		{name: "its timeout clock starts at its first run",
			xml: bt(`<choice id="root">
  <sequence id="s"><action id="a" name="act"/><action id="x" name="act" timeout="2"/></sequence>
  <action id="b" name="ok"/>
</choice>`),
			script: map[string][]Status{"a": {R}, "x": {R}},
			before: map[int]func(h *harness){1: func(h *harness) {
				h.hook["a"] = func(a *Agent) error { delete(h.hook, "a"); return a.Jump("x") } // at t=1, returning running
			}},
			want: []string{
				"running x: a:start a a:cancel",        // t=1: a returned running: cancelled; x runs at the next step
				"running x: x:start x",                 // t=2: x's first run: its clock starts
				"running x: x",                         // t=3: 1 s
				"success root: x:cancel b [timeout x]", // t=4: 2 s
			}},
	})
}

// TestActive_aParallelWhoseEntryJumpsIntoItsLanesStaysActive: a parallel
// whose conditions fail when it is entered, but which asked for a jump
// into one of its lanes, is not left: the jump discards the failure and
// starts its lanes. It stays active, and is not let in a second time when
// it runs its lanes (it does not log its start again, nor take its gate
// again: a second hold would never be released); leaving it later (here
// an error's reset) starts its cooldown. Found by FuzzStep.
func TestActive_aParallelWhoseEntryJumpsIntoItsLanesStaysActive(t *testing.T) {
	h := newHarness(t, bt(`<parallel id="p" cooldown="5"><parameter name="log.start">p starts</parameter><condition>c</condition>
  <action id="a" name="act"/>
  <sequence id="s"><action id="b" name="act"/><action id="x" name="act"/></sequence>
</parallel>`), map[string]bool{"c": false})
	h.script["a"], h.script["x"] = []Status{R}, []Status{R}
	h.hook["?c"] = func(a *Agent) error { delete(h.hook, "?c"); return a.Jump("x") }
	// It starts (log.start) when the jump lands below it, after its
	// condition: a rule starts once its conditions have passed, or a jump
	// has landed below it.
	expectSteps(t, h.steps(1), []string{"running p{a x}: ?c log(p: p starts) a:start a x:start x"})
	if !h.agent.CursorActive() {
		t.Fatal("the parallel runs its lanes but is not active")
	}
	h.hook["x"] = func(*Agent) error { return errors.New("boom") }
	expectSteps(t, h.steps(2), []string{
		`error p: a x a:cancel x:cancel | action "act": boom`,
		"failure p: ", // refused: its cooldown started when the error left it
	})
}

// TestActive_aListWhoseEntryJumpsToAnotherLaneIsLeft: a sequence in a
// lane whose conditions fail when it is entered, but which asked for a jump
// into another lane of its parallel, is still active when the jump
// discards its failure: the jump starts the parallel again, cancelling the
// lane, which leaves the sequence and releases the gate it took. Found by
// FuzzStep (the gate stayed held by an agent none of whose rules held it).
func TestActive_aListWhoseEntryJumpsToAnotherLaneIsLeft(t *testing.T) {
	h := newHarness(t, `<behaviorTree><gates><gate name="g"/></gates><parallel id="p">
  <sequence id="s" gate="g"><condition>c</condition><action id="a" name="act"/></sequence>
  <action id="b" name="act"/>
</parallel></behaviorTree>`, map[string]bool{"c": false})
	h.script["a"], h.script["b"] = []Status{R}, []Status{R}
	h.hook["?c"] = func(a *Agent) error { delete(h.hook, "?c"); return a.Jump("b") }
	h.step()
	if holds, holders := h.agent.GateHolds(), h.agent.Gates().List()[0].Holders; len(holds) != 0 || len(holders) != 0 {
		t.Errorf("after the jump: the agent's rules hold %v, the gate's holders are %v; want neither", holds, holders)
	}
}
