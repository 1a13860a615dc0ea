package runtime

import (
	"strings"
	"testing"
)

// twoLanes is a sequence around a parallel of two scripted lanes, then an
// action that shows the parallel succeeded.
func twoLanes(attrs string) string {
	return bt(`<sequence id="root">
  <parallel id="p"` + attrs + `>
    <action id="a" name="act"/>
    <action id="b" name="act"/>
  </parallel>
  <action id="after" name="ok"/>
</sequence>`)
}

func threeLanes(attrs string) string {
	return bt(`<sequence id="root">
  <parallel id="p"` + attrs + `>
    <action id="a" name="act"/>
    <action id="b" name="act"/>
    <action id="c" name="act"/>
  </parallel>
  <action id="after" name="ok"/>
</sequence>`)
}

// TestParallel_thresholds: every combination of success and failure counts
// (all, any, N), checked after each lane's turn, in document order.
func TestParallel_thresholds(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "default all/any: succeeds when the last lane succeeds, lanes done wait for the others",
			xml:    twoLanes(""),
			script: map[string][]Status{"a": {R, R, S}, "b": {R, S}},
			want: []string{
				"running p{a b}: a:start a b:start b",
				"running p{a b=success}: a b", // b is done: it is not run again
				"success root: a after",
			}},
		{name: "default all/any: the first failure fails the parallel and cancels the lanes still running",
			xml:    threeLanes(""),
			script: map[string][]Status{"a": {R}, "b": {R, F}, "c": {R}},
			want: []string{
				"running p{a b c}: a:start a b:start b c:start c",
				"failure root: a b a:cancel c:cancel", // after b's turn: a and c cancelled, in document order
				// b fails at once: a is cancelled; c, which had no turn yet,
				// has no action running to cancel.
				"failure root: a:start a b:start b a:cancel",
			}},
		{name: "success any: the first success wins",
			xml:    threeLanes(` success="any"`),
			script: map[string][]Status{"a": {R}, "b": {R, S}, "c": {R}},
			want: []string{
				"running p{a b c}: a:start a b:start b c:start c",
				"success root: a b a:cancel c:cancel after",
			}},
		{name: "success N: two of three",
			xml:    threeLanes(` success="2"`),
			script: map[string][]Status{"a": {R, R, S}, "b": {S}, "c": {R}},
			want: []string{
				"running p{a b=success c}: a:start a b:start b c:start c",
				"running p{a b=success c}: a c",
				"success root: a c:cancel after",
			}},
		{name: "failure all: failures wait for the last lane; a success then cannot reach all",
			xml:    twoLanes(` failure="all"`),
			script: map[string][]Status{"a": {F}, "b": {R, S}},
			want: []string{
				"running p{a=failure b}: a:start a b:start b",
				"failure root: b", // no lane runs any more and success (all) was not reached
			}},
		{name: "failure all: every lane failed",
			xml:    twoLanes(` failure="all"`),
			script: map[string][]Status{"a": {R, F}, "b": {F}},
			want: []string{
				"running p{a b=failure}: a:start a b:start b",
				"failure root: a",
			}},
		{name: "failure N: two of three, success any",
			xml:    threeLanes(` success="any" failure="2"`),
			script: map[string][]Status{"a": {F}, "b": {R, F}, "c": {R}},
			want: []string{
				"running p{a=failure b c}: a:start a b:start b c:start c",
				"failure root: b c:cancel",
			}},
		{name: "success and failure reached by the same lane: success is checked first",
			xml:    twoLanes(` success="1" failure="1"`),
			script: map[string][]Status{"a": {R, S}, "b": {R, F}},
			want: []string{
				"running p{a b}: a:start a b:start b",
				"success root: a b:cancel after",
			}},
		{name: "lanes that have not run yet count as running in the entering step",
			xml:    twoLanes(` success="1" failure="all"`),
			script: map[string][]Status{"a": {F}, "b": {S}},
			want: []string{
				"success root: a:start a b:start b after", // after a: 1 failure of 2, b still to run
			}},
		{name: "no lane running and no count reached: failure",
			xml:    threeLanes(` success="all" failure="all"`),
			script: map[string][]Status{"a": {S}, "b": {F}, "c": {S}},
			want: []string{
				"failure root: a:start a b:start b c:start c",
			}},
		{name: "a lane finishing in the entering step is done at once",
			xml:    twoLanes(""),
			script: map[string][]Status{"a": {S}, "b": {S}},
			want: []string{
				"success root: a:start a b:start b after",
				"success root: a:start a b:start b after",
			}},
		{name: "doNotFail on a lane's child makes its failure a success; on the parallel, the parallel's failure",
			xml: bt(`<sequence id="root">
  <parallel id="p" doNotFail="true">
    <action id="a" name="act" doNotFail="true"/>
    <action id="b" name="act"/>
  </parallel>
  <action id="after" name="ok"/>
</sequence>`),
			script: map[string][]Status{"a": {F}, "b": {R, F}},
			want: []string{
				"running p{a=success b}: a:start a b:start b",
				"success root: b after",
			}},
		{name: "a parallel whose conditions fail does not start its lanes",
			xml: bt(`<choice id="root">
  <parallel id="p"><condition>go</condition><action id="a" name="act"/><action id="b" name="act"/></parallel>
  <action id="other" name="ok"/>
</choice>`),
			conds: map[string]bool{"go": false},
			want:  []string{"success root: ?go other"}},
		{name: "a lane's rule refused by its cooldown fails the lane at once",
			xml: bt(`<sequence id="root" loop="true">
  <parallel id="p" success="any" failure="all">
    <action id="a" name="act" cooldown="5"/>
    <action id="b" name="act"/>
  </parallel>
</sequence>`),
			script: map[string][]Status{"a": {S}, "b": {R, R, S, R}},
			want: []string{
				// a succeeds: the parallel succeeds before b's turn; the loop
				// enters it again: a is cooling down and fails, b runs.
				"running p{a=failure b}: a:start a b:start b",
				"running p{a=failure b}: b",
				"running p{a=failure b}: b b:start b",
			}},
	})
}

// TestParallel_finishingCancelsRunningLanes: lanes still running when the
// parallel finishes are cancelled once each, in document order, their
// rules left innermost first (cooldowns start, no log.success/failure),
// and never run again.
func TestParallel_finishingCancelsRunningLanes(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "cancelled in document order, once, and not run again",
			xml: bt(`<sequence id="root" loop="true">
  <parallel id="p" success="any">
    <action id="a" name="act"/>
    <sequence id="s"><parameter name="log.start">s begins</parameter><parameter name="log.failure">s failed</parameter>
      <action id="b" name="act"><parameter name="log.start">b begins</parameter></action>
    </sequence>
    <action id="c" name="act"/>
    <action id="d" name="act"/>
  </parallel>
  <action id="stop" name="act"/>
</sequence>`),
			script: map[string][]Status{"a": {R}, "b": {R}, "c": {R, S}, "d": {R}, "stop": {R}},
			want: []string{
				"running p{a b c d}: a:start a log(s: s begins) log(b: b begins) b:start b c:start c d:start d",
				"running stop: a b c a:cancel b:cancel d:cancel stop:start stop",
				"running stop: stop",
			}},
		{name: "a cancelled lane's rules start their cooldowns",
			xml: bt(`<sequence id="root" loop="true">
  <parallel id="p" success="any" failure="all">
    <action id="a" name="act" cooldown="2.5"/>
    <action id="b" name="act"/>
  </parallel>
</sequence>`),
			script: map[string][]Status{"a": {R}, "b": {R, S, R, R, R, S, R}},
			want: []string{
				"running p{a b}: a:start a b:start b",
				// b succeeds: a is cancelled (left: its cooldown starts at t=2);
				// the loop enters p again: a is refused, b starts.
				"running p{a=failure b}: a b a:cancel b:start b",
				"running p{a=failure b}: b",
				"running p{a=failure b}: b",
				// t=5: b succeeds again; 3 s since a was left: a starts.
				"running p{a b}: b a:start a b:start b",
			}},
	})
}

// TestParallel_nested: a lane may reach another parallel, whose lanes run
// in that lane's turn (depth first, in document order); it finishes into
// its lane; cancelling a lane cancels its parallel's lanes first.
func TestParallel_nested(t *testing.T) {
	nested := bt(`<sequence id="root">
  <parallel id="p" success="any">
    <parallel id="q">
      <action id="x" name="act"/>
      <action id="y" name="act"/>
    </parallel>
    <action id="w" name="act"/>
  </parallel>
  <action id="after" name="ok"/>
</sequence>`)
	runStepCases(t, []stepCase{
		{name: "the inner parallel finishes into its lane, which finishes the outer one",
			xml:    nested,
			script: map[string][]Status{"x": {R, S}, "y": {R, R, S}, "w": {R}},
			want: []string{
				"running p{q{x y} w}: x:start x y:start y w:start w",
				"running p{q{x=success y} w}: x y w",
				"success root: y w:cancel after",
			}},
		{name: "cancelling a lane whose cursor is a parallel cancels that parallel's lanes, in document order",
			xml:    nested,
			script: map[string][]Status{"x": {R}, "y": {R}, "w": {R, S}},
			want: []string{
				"running p{q{x y} w}: x:start x y:start y w:start w",
				"success root: x y w x:cancel y:cancel after",
			}},
		{name: "an inner failure fails the inner parallel, and its lane with it",
			xml:    nested,
			script: map[string][]Status{"x": {R, F}, "y": {R}, "w": {R}},
			want: []string{
				"running p{q{x y} w}: x:start x y:start y w:start w",
				// q fails (y cancelled); the q lane is done with failure, and
				// failure="any" fails p: w is cancelled.
				"failure root: x y:cancel w:cancel",
			}},
	})
}

// laneJumpTree has a parallel with a sequence lane and an action lane, and
// rules outside it.
const laneJumpTree = `<behaviorTree><choice id="root">
  <sequence id="main">
    <action id="go" name="act"/>
    <parallel id="p">
      <sequence id="s">
        <action id="a" name="act"/>
        <action id="b" name="act"/>
        <action id="b2" name="act"/>
      </sequence>
      <action id="c" name="act"/>
    </parallel>
  </sequence>
  <action id="out" name="act"/>
</choice></behaviorTree>`

// TestParallel_jumps: a jump inside a lane moves that lane's cursor; a jump
// out of a lane cancels every running lane it leaves, in document order; a
// jump into an inactive parallel starts it with all its lanes; a jump from
// a lane into another lane of its parallel starts the parallel again.
func TestParallel_jumps(t *testing.T) {
	jumpOn := func(h *harness, label string, call int, target string) {
		n := 0
		h.hook[label] = func(a *Agent) error {
			if n++; n == call {
				return a.Jump(target)
			}
			return nil
		}
	}
	cases := []struct {
		name   string
		script map[string][]Status
		setup  func(h *harness)
		before map[int]string // before step N: a jump from Go to this id
		want   []string
	}{
		{name: "inside a lane: the lane's cursor moves, the target runs in the same step when the action finished",
			script: map[string][]Status{"go": {S}, "a": {S}, "b2": {R}, "c": {R}},
			setup:  func(h *harness) { jumpOn(h, "a", 1, "b2") },
			want: []string{
				"running p{b2 c}: go:start go a:start a b2:start b2 c:start c",
				"running p{b2 c}: b2 c",
			}},
		{name: "inside a lane, returning running: the lane waits, the target runs at the next step",
			script: map[string][]Status{"go": {S}, "a": {R}, "b2": {R}, "c": {R}},
			setup:  func(h *harness) { jumpOn(h, "a", 1, "b2") },
			want: []string{
				"running p{b2 c}: go:start go a:start a a:cancel c:start c",
				"running p{b2 c}: b2:start b2 c",
			}},
		{name: "out of a lane: the running lanes are cancelled in document order, the jumping one's action too",
			script: map[string][]Status{"go": {S}, "a": {R}, "c": {R}, "out": {R}},
			setup:  func(h *harness) { jumpOn(h, "a", 2, "out") },
			want: []string{
				"running p{a c}: go:start go a:start a c:start c",
				"running out: a a:cancel c:cancel",
				"running out: out:start out",
			}},
		{name: "out of a lane with a finished action: its result is discarded and the target runs in the same step",
			script: map[string][]Status{"go": {S}, "a": {R, S}, "c": {R}, "out": {R}},
			setup:  func(h *harness) { jumpOn(h, "a", 2, "out") },
			want: []string{
				"running p{a c}: go:start go a:start a c:start c",
				"running out: a c:cancel out:start out",
			}},
		{name: "into an inactive parallel from an action: it starts with all its lanes, the target's lane at the target",
			script: map[string][]Status{"go": {S}, "b": {R}, "c": {R}},
			setup:  func(h *harness) { jumpOn(h, "go", 1, "b") },
			want: []string{
				"running p{b c}: go:start go b:start b c:start c",
			}},
		{name: "into an inactive parallel from Go between steps",
			script: map[string][]Status{"go": {F}, "out": {R}, "b2": {R}, "c": {R}},
			before: map[int]string{2: "b2"},
			want: []string{
				"running out: go:start go out:start out",
				"running p{b2 c}: out:cancel b2:start b2 c:start c",
			}},
		{name: "from a lane into another lane of its parallel: the parallel starts again, the target's lane at the target",
			script: map[string][]Status{"go": {S}, "a": {R}, "b2": {R}, "c": {R, S, R}},
			setup:  func(h *harness) { jumpOn(h, "c", 2, "b2") },
			want: []string{
				"running p{a c}: go:start go a:start a c:start c",
				// c finished and jumped: a is cancelled, p's lanes start again
				// (s at b2, c at c) and run in the same step.
				"running p{b2 c}: a c a:cancel b2:start b2 c:start c",
			}},
		{name: "from a lane to its own parallel: the parallel is entered again",
			script: map[string][]Status{"go": {S}, "a": {R}, "c": {R, S, R}},
			setup:  func(h *harness) { jumpOn(h, "c", 2, "p") },
			want: []string{
				"running p{a c}: go:start go a:start a c:start c",
				"running p{a c}: a c a:cancel a:start a c:start c",
			}},
		{name: "from Go into a running lane: only that lane's cursor moves",
			script: map[string][]Status{"go": {S}, "a": {R}, "b2": {R}, "c": {R}},
			before: map[int]string{2: "b2"},
			want: []string{
				"running p{a c}: go:start go a:start a c:start c",
				"running p{b2 c}: a:cancel b2:start b2 c",
			}},
		{name: "from Go into a lane that is done: it runs again",
			script: map[string][]Status{"go": {S}, "a": {S}, "b": {S}, "b2": {S, R}, "c": {R}},
			before: map[int]string{2: "b"},
			want: []string{
				"running p{s=success c}: go:start go a:start a b:start b b2:start b2 c:start c",
				"running p{b2 c}: b:start b b2:start b2 c",
			}},
		{name: "from Go to a lane's current rule: nothing changes",
			script: map[string][]Status{"go": {S}, "a": {R}, "c": {R}},
			before: map[int]string{2: "a", 3: "p"},
			want: []string{
				"running p{a c}: go:start go a:start a c:start c",
				"running p{a c}: a c",
				"running p{a c}: a c",
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, laneJumpTree, map[string]bool{"never": false})
			for k, v := range c.script {
				h.script[k] = v
			}
			if c.setup != nil {
				c.setup(h)
			}
			got := make([]string, len(c.want))
			for i := range got {
				if id, ok := c.before[i+1]; ok {
					h.log = h.log[:0]
					if err := h.agent.Jump(id); err != nil {
						t.Fatal(err)
					}
					pre := append([]string(nil), h.log...)
					got[i] = h.step()
					if len(pre) > 0 {
						got[i] = insertCalls(got[i], pre)
					}
					continue
				}
				got[i] = h.step()
			}
			expectSteps(t, got, c.want)
		})
	}
}

// insertCalls puts calls made before a step (a jump's cancel) in front of
// the step's calls in its summary.
func insertCalls(summary string, calls []string) string {
	i := strings.Index(summary, ": ")
	return summary[:i+2] + strings.TrimSpace(strings.Join(calls, " ")+" "+summary[i+2:])
}

// TestParallel_interruption: the checks at the start of a step walk the
// path to the parallel, then each running lane's path, before any lane
// runs; the first interrupt wins; an interrupted lane goes on from it at
// its turn; aborting a rule around a parallel cancels its lanes.
func TestParallel_interruption(t *testing.T) {
	lanesAB := `<action id="a" name="act"/><action id="b" name="act"/>`
	runStepCases(t, []stepCase{
		{name: "abort self around a parallel cancels its lanes in document order",
			xml: bt(`<choice id="root">
  <sequence id="guard" abort="self"><condition>ok</condition>
    <parallel id="p">` + lanesAB + `</parallel>
  </sequence>
  <action id="other" name="ok"/>
</choice>`),
			conds: map[string]bool{"ok": true}, script: map[string][]Status{"a": {R}, "b": {R}},
			changes: map[int]map[string]bool{3: {"ok": false}},
			want: []string{
				"running p{a b}: ?ok a:start a b:start b",
				"running p{a b}: ?ok a b",
				"success root: ?ok a:cancel b:cancel other [abort guard]",
			}},
		{name: "a parallel whose lanes run is not the cursor: its own abort self is watched",
			xml: bt(`<sequence id="root">
  <parallel id="p" abort="self"><condition>ok</condition>` + lanesAB + `</parallel>
</sequence>`),
			conds: map[string]bool{"ok": true}, script: map[string][]Status{"a": {R}, "b": {R}},
			changes: map[int]map[string]bool{2: {"ok": false}},
			want: []string{
				"running p{a b}: ?ok a:start a b:start b",
				"failure root: ?ok a:cancel b:cancel [abort p]",
			}},
		{name: "a parallel's timeout cancels its lanes",
			xml: bt(`<sequence id="root">
  <parallel id="p" timeout="2" doNotFail="true">` + lanesAB + `</parallel>
  <action id="after" name="ok"/>
</sequence>`),
			script: map[string][]Status{"a": {R}, "b": {R}},
			want: []string{
				"running p{a b}: a:start a b:start b",
				"running p{a b}: a b",
				"success root: a:cancel b:cancel after [timeout p]",
			}},
		{name: "a parallel root with running lanes is checked although it is the root",
			xml:    bt(`<parallel id="root" timeout="2">` + lanesAB + `</parallel>`),
			script: map[string][]Status{"a": {R}, "b": {R}},
			want: []string{
				"running root{a b}: a:start a b:start b",
				"running root{a b}: a b",
				"failure root: a:cancel b:cancel [timeout root]",
			}},
		{name: "a timeout in a lane: the lane goes on from it at its turn",
			xml: bt(`<sequence id="root">
  <parallel id="p">
    <sequence id="sa"><action id="a1" name="act" timeout="2" doNotFail="true"/><action id="a2" name="act"/></sequence>
    <action id="b" name="act"/>
  </parallel>
</sequence>`),
			script: map[string][]Status{"a1": {R}, "a2": {R}, "b": {R}},
			want: []string{
				"running p{a1 b}: a1:start a1 b:start b",
				"running p{a1 b}: a1 b",
				"running p{a2 b}: a1:cancel a2:start a2 b [timeout a1]",
			}},
		{name: "a lane's child timing out makes the lane done with failure at its turn",
			xml: bt(`<sequence id="root">
  <parallel id="p"><action id="a" name="act" timeout="2"/><action id="b" name="act"/></parallel>
</sequence>`),
			script: map[string][]Status{"a": {R}, "b": {R}},
			want: []string{
				"running p{a b}: a:start a b:start b",
				"running p{a b}: a b",
				"failure root: a:cancel b:cancel [timeout a]",
			}},
		{name: "one interrupt per step: the first lane's wins, the next lane's fires a step later",
			xml: bt(`<sequence id="root">
  <parallel id="p" failure="all"><action id="a" name="act" timeout="2"/><action id="b" name="act" timeout="2"/></parallel>
</sequence>`),
			script: map[string][]Status{"a": {R}, "b": {R}},
			want: []string{
				"running p{a b}: a:start a b:start b",
				"running p{a b}: a b",
				"running p{a=failure b}: a:cancel b [timeout a]",
				"failure root: b:cancel [timeout b]",
			}},
		{name: "the path to the parallel is checked before the lanes",
			xml: bt(`<sequence id="root">
  <sequence id="guard" abort="self"><condition>ok</condition>
    <parallel id="p"><action id="a" name="act" timeout="2"/><action id="b" name="act"/></parallel>
  </sequence>
</sequence>`),
			conds: map[string]bool{"ok": true}, script: map[string][]Status{"a": {R}, "b": {R}},
			changes: map[int]map[string]bool{3: {"ok": false}},
			want: []string{
				"running p{a b}: ?ok a:start a b:start b",
				"running p{a b}: ?ok a b",
				"failure root: ?ok a:cancel b:cancel [abort guard]",
			}},
		{name: "a preemption inside a lane: the lane goes on at the preempting rule, the others as before",
			xml: bt(`<sequence id="root">
  <parallel id="p">
    <choice id="ch">
      <action id="alarm" name="act" abort="lower"><condition>alarm</condition></action>
      <action id="idle" name="act"/>
    </choice>
    <action id="b" name="act"/>
  </parallel>
</sequence>`),
			conds: map[string]bool{"alarm": false}, script: map[string][]Status{"alarm": {R}, "idle": {R}, "b": {R}},
			changes: map[int]map[string]bool{3: {"alarm": true}},
			want: []string{
				"running p{idle b}: ?alarm idle:start idle b:start b",
				"running p{idle b}: ?alarm idle b",
				"running p{alarm b}: ?alarm idle:cancel ?alarm alarm:start alarm b [preempt alarm]",
			}},
		{name: "a preemption above a parallel cancels its lanes",
			xml: bt(`<choice id="root">
  <action id="alarm" name="act" abort="lower"><condition>alarm</condition></action>
  <parallel id="p">` + lanesAB + `</parallel>
</choice>`),
			conds: map[string]bool{"alarm": false}, script: map[string][]Status{"alarm": {R}, "a": {R}, "b": {R}},
			changes: map[int]map[string]bool{2: {"alarm": true}},
			want: []string{
				"running p{a b}: ?alarm a:start a b:start b",
				"running alarm: ?alarm a:cancel b:cancel ?alarm alarm:start alarm [preempt alarm]",
			}},
	})
}

// TestParallel_countsFollowLanesThatRunAgain: a jump from Go into a lane
// that is done makes it run again: it no longer counts as done, so when it
// is done again the parallel (success="all") still waits for its other
// lane. The counts the thresholds read are kept as lanes change; after
// every step they agree with the lanes' statuses.
func TestParallel_countsFollowLanesThatRunAgain(t *testing.T) {
	h := newHarness(t, laneJumpTree, map[string]bool{"never": false})
	h.script["go"], h.script["a"], h.script["b"], h.script["b2"], h.script["c"] = []Status{S}, []Status{S}, []Status{S}, []Status{S}, []Status{R, R, R, S}
	want := []string{
		"running p{s=success c}: go:start go a:start a b:start b b2:start b2 c:start c",
		"running p{s=success c}: b:start b b2:start b2 c", // s ran again (the jump) and is done again: p waits for c
		"running p{s=success c}: c",
		"success root: c", // p succeeded after c: main succeeds, and root (a choice) with it
	}
	got := make([]string, len(want))
	for i := range got {
		if i == 1 {
			if err := h.agent.Jump("b"); err != nil {
				t.Fatal(err)
			}
		}
		got[i] = h.step()
		checkLaneCounts(t, h.agent)
	}
	expectSteps(t, got, want)
}

// checkLaneCounts fails t when a parallel's counts of lanes by status
// differ from its lanes' statuses.
func checkLaneCounts(t testing.TB, a *Agent) {
	t.Helper()
	if a.ext == nil || a.ext.lanes == nil {
		return
	}
	ls := a.ext.lanes
	for i := range a.bound.feats {
		f := &a.bound.feats[i]
		if f.par < 0 || !ls.runs[f.par].live {
			continue
		}
		var n [4]int32
		for k := range f.kids {
			n[ls.lanes[f.laneBase+int32(k)].status]++
		}
		if got := ls.runs[f.par].n; got[laneRunning] != n[laneRunning] || got[laneSucceeded] != n[laneSucceeded] || got[laneFailed] != n[laneFailed] {
			t.Errorf("parallel %s counts %v, its lanes %v", a.bound.Tree.Rules[i].Label, got, n)
		}
	}
}
