package runtime

import (
	"strings"
	"testing"
)

// Counted loops (repeat) and retries (attempts): counts across steps, jumps
// in and out, aborts and timeouts, saves mid-count, and their load errors.

// counts is "passes/failures" of the rule with id.
func (h *harness) counts(id string) string {
	i, ok := h.tree.Tree.RuleIndex(id)
	if !ok {
		h.t.Fatalf("no rule %s", id)
	}
	p, f := h.agent.Counts(i)
	return itoa(int(p)) + "/" + itoa(int(f))
}

// TestRepeat_countsPassesAcrossSteps: a sequence with repeat="3" starts
// again at its first child after each pass that succeeded, across steps,
// and succeeds after the third; entered again, it counts from 0.
func TestRepeat_countsPassesAcrossSteps(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root" repeat="3"><action id="a" name="act"/><action id="b" name="ok"/></sequence>`), nil)
	h.script["a"] = []Status{R, S, R, S, R, S}
	want := []struct{ step, counts string }{
		{"running a: a:start a", "0/0"},
		{"running a: a b a:start a", "1/0"},
		{"running a: a b a:start a", "2/0"},
		{"success root: a b", "0/0"},
		{"success root: a:start a b a:start a b a:start a b", "0/0"},
	}
	for i, w := range want {
		if got := h.step(); got != w.step {
			t.Errorf("step %d:\n got  %s\n want %s", i+1, got, w.step)
		}
		if got := h.counts("root"); got != w.counts {
			t.Errorf("step %d: counts %s, want %s", i+1, got, w.counts)
		}
	}
}

// TestRepeat_aFailureEndsItAtOnce: a failing pass ends the rule with
// failure whatever the count, and the next entry counts from 0; a choice
// counts its passes (a child that succeeded) the same way.
func TestRepeat_aFailureEndsItAtOnce(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "sequence", xml: bt(`<sequence id="root" repeat="3"><action id="a" name="act"/></sequence>`),
			script: map[string][]Status{"a": {S, F, S, S, S}},
			want:   []string{"failure root: a:start a a:start a", "success root: a:start a a:start a a:start a"}},
		{name: "choice", xml: bt(`<choice id="root" repeat="2"><action id="a" name="fail"/><action id="b" name="ok"/></choice>`),
			want: []string{"success root: a b a b"}},
		{name: "subtree-like sequence with doNotFail reports success for the failure",
			xml:    bt(`<sequence id="root" repeat="2" doNotFail="true"><action id="a" name="act"/></sequence>`),
			script: map[string][]Status{"a": {S, F}},
			want:   []string{"success root: a:start a a:start a"}},
	})
}

// TestRepeat_jumpsOutAndInCountFromZero: a jump out of a counting rule
// leaves it (its count goes back to 0); a jump landing below it makes it
// active again from 0; a jump to it while active keeps its count.
func TestRepeat_jumpsOutAndInCountFromZero(t *testing.T) {
	h := newHarness(t, bt(`<choice id="root">
  <sequence id="s" repeat="3"><action id="a" name="act"/><action id="b" name="act"/></sequence>
  <action id="x" name="act"/>
</choice>`), nil)
	h.script["a"] = []Status{R, S, R, S, R, S, R, S, R, S}
	h.script["x"] = []Status{R}
	expectSteps(t, h.steps(2), []string{"running a: a:start a", "running a: a b:start b a:start a"})
	if c := h.counts("s"); c != "1/0" {
		t.Fatalf("counts %s after one pass", c)
	}
	h.must(h.agent.Jump("s")) // to the active rule: entered again, count kept
	if c := h.counts("s"); c != "1/0" {
		t.Errorf("a jump to the active rule changed its count to %s", c)
	}
	h.must(h.agent.Jump("x"))
	if c := h.counts("s"); c != "0/0" {
		t.Errorf("a jump out left the count at %s", c)
	}
	h.must(h.agent.Jump("b"))
	// The pass the jump landed in counts (1), then a second (a succeeds at
	// once), and a runs; the third pass ends it.
	expectSteps(t, h.steps(2), []string{
		"running a: b:start b a:start a b:start b a:start a",
		"success root: a b:start b",
	})
}

// TestRepeat_savedMidCount: a save taken mid-count and restored into a new
// agent goes on with the same count (the run is the same as without the
// save).
func TestRepeat_savedMidCount(t *testing.T) {
	xml := bt(`<sequence id="root" repeat="3"><action id="a" name="act" attempts="4"/></sequence>`)
	script := []Status{R, S, R, F, R, F, S, R, S, R, F, F, F, F, R}
	whole := newHarness(t, xml, nil)
	whole.script["a"] = script
	want := whole.steps(8)
	for k := 1; k < 8; k++ {
		h := newHarness(t, xml, nil)
		h.script["a"] = script
		got := h.steps(k)
		snap, err := h.agent.Snapshot()
		h.must(err)
		h.calls = map[string]int{"a": h.calls["a"]}
		h.agent = h.tree.NewAgent("a1", h.env)
		if _, err := h.agent.Restore(&snap); err != nil {
			t.Fatal(err)
		}
		got = append(got, h.steps(8-k)...)
		for i := range want {
			if strings.ReplaceAll(got[i], "a:start ", "") != strings.ReplaceAll(want[i], "a:start ", "") {
				t.Errorf("saved after step %d: step %d\n got  %s\n want %s", k, i+1, got[i], want[i])
			}
		}
	}
	// The whole run does count and retry.
	if !strings.Contains(strings.Join(want, "\n"), "a:start a a:start a") {
		t.Fatalf("the run never retries:\n%s", strings.Join(want, "\n"))
	}
}

// TestAttempts_retriesInTheSameStep: a failure with attempts left enters
// the rule again at once, in the same step, with a fresh start; the N-th
// failure is reported; with doNotFail only that one becomes success.
func TestAttempts_retriesInTheSameStep(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "third attempt succeeds",
			xml:    bt(`<sequence id="root"><action id="a" name="act" attempts="3"/><action id="b" name="ok"/></sequence>`),
			script: map[string][]Status{"a": {F, F, S}},
			want:   []string{"success root: a:start a a:start a a:start a b"}},
		{name: "the third failure is reported",
			xml:    bt(`<sequence id="root"><action id="a" name="act" attempts="3"/><action id="b" name="ok"/></sequence>`),
			script: map[string][]Status{"a": {F}},
			want:   []string{"failure root: a:start a a:start a a:start a", "failure root: a:start a a:start a a:start a"}},
		{name: "doNotFail turns only the last failure into success",
			xml:    bt(`<sequence id="root"><action id="a" name="act" attempts="3" doNotFail="true"/><action id="b" name="ok"/></sequence>`),
			script: map[string][]Status{"a": {F}},
			want:   []string{"success root: a:start a a:start a a:start a b"}},
		{name: "a list is entered again, its conditions checked again",
			xml:   bt(`<sequence id="root" attempts="2"><condition>c</condition><action id="a" name="act"/></sequence>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {F, S}},
			want: []string{"success root: ?c a:start a ?c a:start a ?c"}},
		{name: "across steps: failures count since it became active",
			xml:    bt(`<sequence id="root"><action id="a" name="act" attempts="3"/></sequence>`),
			script: map[string][]Status{"a": {R, F, R, F, R, F, S}},
			want:   []string{"running a: a:start a", "running a: a a:start a", "running a: a a:start a", "failure root: a", "success root: a:start a"}},
	})
}

// TestAttempts_notAfterAnAbortTimeoutOrRefusal: an abort or a timeout is
// reported at once; the timeout clock and the gate carry on through the
// retries (it stays active); a rule refused by its cooldown is not
// retried; no cooldown starts between attempts.
func TestAttempts_notAfterAnAbortTimeoutOrRefusal(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "abort",
			xml: bt(`<choice id="root">
  <sequence id="s" abort="self" attempts="3"><condition>c</condition><action id="a" name="act"/></sequence>
  <action id="b" name="ok"/>
</choice>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{2: {"c": false}},
			want:    []string{"running a: ?c a:start a", "success root: ?c a:cancel b [abort s]"}},
		{name: "timeout: the clock carries on through the retries",
			xml:    bt(`<sequence id="root"><action id="a" name="act" attempts="9" timeout="2.5"/></sequence>`),
			script: map[string][]Status{"a": {R, F, R, F, R, R}},
			want: []string{
				"running a: a:start a",
				"running a: a a:start a",
				"running a: a a:start a",
				"failure root: a:cancel [timeout a]", // 3 s after it became active, not after its last retry
			}},
		{name: "cooldown: no cooldown between attempts; refused later, not retried",
			xml:  bt(`<choice id="root"><action id="a" name="fail" attempts="3" cooldown="10"/><action id="b" name="ok"/></choice>`),
			want: []string{"success root: a a a b", "success root: b"}},
	})
}

// TestRepeatAttempts_loadErrors: misuse is a load error with its position.
func TestRepeatAttempts_loadErrors(t *testing.T) {
	for _, c := range []struct{ xml, want string }{
		{`<sequence repeat="0"><action name="a"/></sequence>`, `test.xml:2:1: repeat="0" on <sequence> is not a whole number from 1 to 2147483647`},
		{`<sequence repeat="-2"><action name="a"/></sequence>`, `repeat="-2" on <sequence> is not a whole number`},
		{`<choice repeat="1.5"><action name="a"/></choice>`, `repeat="1.5" on <choice> is not a whole number`},
		{`<sequence repeat="2" loop="true"><action name="a"/></sequence>`, `test.xml:2:1: repeat="2" with loop="true" on <sequence>`},
		{`<action name="a" repeat="2"/>`, `test.xml:2:1: repeat on <action>: repeat counts the passes of a <sequence>, <choice> or <subtree>`},
		{`<parallel repeat="2"><action name="a"/></parallel>`, `repeat on <parallel>`},
		{`<action name="a" attempts="0"/>`, `test.xml:2:1: attempts="0" on <action> is not a whole number from 1`},
		{`<success attempts="x"/>`, `attempts="x" on <success> is not a whole number`},
		{`<action name="a" enter=""/>`, `enter`},
	} {
		_, err := LoadBytes("test.xml", []byte("<behaviorTree>\n"+c.xml+"\n</behaviorTree>"), LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.xml, err, c.want)
		}
	}
}

// TestRepeat_aPassPausedAtItsConditionsCountsOnce: a pass of a list with
// repeat that starts it again checks its conditions first; a step paused
// at one (a plugin's condition) and resumed decides the same move: the
// pass is counted once, the list starts again, and the answer is used up
// (the next entry calls the condition again). FuzzSlots found the list
// counting the pass twice on resuming, succeeding a pass early and
// leaving the answer to the next step.
func TestRepeat_aPassPausedAtItsConditionsCountsOnce(t *testing.T) {
	for _, kind := range []string{"choice", "sequence"} {
		t.Run(kind, func(t *testing.T) {
			var calls []string
			a := mustAgent(t, bt(`<`+kind+` id="root" repeat="2"><condition>remoteOk</condition><action id="o" name="ok"/></`+kind+`>`), pendingRegistry(&calls))
			if st, err := a.Step(1); st != Paused || err != nil {
				t.Fatalf("entry: %v %v", st, err)
			}
			if st, err := a.CompleteCondition(true, nil); st != Paused || err != nil { // o ran; the pass asks again
				t.Fatalf("after the entry's answer: %v %v", st, err)
			}
			if p, _ := a.Counts(0); p != 0 {
				t.Errorf("paused at the pass's conditions: %d passes counted, want 0 until it starts again", p)
			}
			st, err := a.CompleteCondition(true, nil)
			want := "remoteOk root, ok o, remoteOk root, ok o"
			if kind == "sequence" { // a sequence checks them again as its last pass finishes
				if st != Paused || err != nil {
					t.Fatalf("after the pass's answer: %v %v", st, err)
				}
				st, err = a.CompleteCondition(true, nil)
				want += ", remoteOk root"
			}
			if st != Success || err != nil {
				t.Fatalf("second pass: %v %v, want success", st, err)
			}
			if got := strings.Join(calls, ", "); got != want {
				t.Errorf("calls:\n got  %s\n want %s", got, want)
			}
			calls = calls[:0]
			if st, err := a.Step(1); st != Paused || err != nil || strings.Join(calls, ", ") != "remoteOk root" {
				t.Errorf("next step: %v %v, calls %q: the entry must ask its condition again", st, err, calls)
			}
		})
	}
}

// TestAttempts_aJumpIsNotAFailureOfTheRule: a doNotFail action that fails
// and jumps is not retried (the jump discards its result), so its run is
// listed with success, attempts or not; a jump to itself is no jump, and
// the failure is retried.
func TestAttempts_aJumpIsNotAFailureOfTheRule(t *testing.T) {
	for _, c := range []struct{ attrs, to, want, leaves string }{
		{``, "b", "success root: a:start a b", "a=success b=success"},
		{`attempts="2"`, "b", "success root: a:start a b", "a=success b=success"},
		{`attempts="2"`, "a", "success root: a:start a a:start a b", "a=failure a=success b=success"},
	} {
		h := newHarness(t, bt(`<sequence id="root"><action id="a" name="act" doNotFail="true" `+c.attrs+`/><action id="b" name="ok"/></sequence>`), nil)
		h.script["a"] = []Status{Failure}
		h.hook["a"] = func(a *Agent) error { return a.Jump(c.to) }
		expectSteps(t, h.steps(1), []string{c.want})
		if got := strings.Join(h.leaves, " "); got != c.leaves {
			t.Errorf("%s, jump to %s: runs %s, want %s", c.attrs, c.to, got, c.leaves)
		}
	}
}
