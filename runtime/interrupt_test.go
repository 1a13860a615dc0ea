package runtime

import (
	"errors"
	"strings"
	"testing"
)

// stepCase is a tree stepped one second at a time, with conditions that
// change before some steps, and the expected summary of each step (see
// harness.step): "status cursor: calls [interrupt]".
type stepCase struct {
	name    string
	xml     string
	conds   map[string]bool
	script  map[string][]Status
	changes map[int]map[string]bool  // before step N (from 1): conditions to set
	before  map[int]func(h *harness) // before step N (from 1), after the changes: anything else (a jump, a hook)
	want    []string
}

func runStepCases(t *testing.T, cases []stepCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.xml, c.conds)
			for k, v := range c.script {
				h.script[k] = v
			}
			got := make([]string, len(c.want))
			for i := range got {
				for k, v := range c.changes[i+1] {
					h.conds[k] = v
				}
				if f := c.before[i+1]; f != nil {
					f(h)
				}
				got[i] = h.step()
			}
			expectSteps(t, got, c.want)
		})
	}
}

// TestInterrupt_checksAtTheStartOfAStep: abort self, lower and both,
// timeouts, and what the walk looks at and in which order.
func TestInterrupt_checksAtTheStartOfAStep(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "abort self: failing conditions abort the rule, which fails to its parent",
			xml: bt(`<choice id="root">
  <sequence id="s" abort="self"><condition>c</condition><action id="a" name="act"/></sequence>
  <action id="b" name="ok"/>
</choice>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{3: {"c": false}},
			want: []string{
				"running a: ?c a:start a",
				"running a: ?c a", // watched: checked at the start of the step, passes
				"success root: ?c a:cancel b [abort s]",
				"success root: ?c b", // entered again: its conditions fail as usual
			}},
		{name: "abort self on the cursor changes nothing: a leaf checks its conditions at every run",
			xml:   bt(`<sequence id="root"><action id="a" name="act" abort="self"><condition>c</condition></action></sequence>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{3: {"c": false}},
			want:    []string{"running a: ?c a:start a", "running a: ?c a", "failure root: ?c a:cancel"}},
		{name: "abort lower: a watched earlier child preempts the running one",
			xml: bt(`<choice id="root">
  <action id="alarm" name="ok" abort="lower"><condition>c</condition></action>
  <action id="idle" name="act"/>
</choice>`),
			conds: map[string]bool{"c": false}, script: map[string][]Status{"idle": {R}},
			changes: map[int]map[string]bool{3: {"c": true}},
			want: []string{
				"running idle: ?c idle:start idle",
				"running idle: ?c idle",
				"success root: ?c idle:cancel ?c alarm [preempt alarm]", // arrives: its conditions again
			}},
		{name: "abort lower does not watch the rule itself",
			xml: bt(`<choice id="root">
  <sequence id="s" abort="lower"><condition>c</condition><action id="a" name="act"/></sequence>
  <action id="b" name="ok"/>
</choice>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{2: {"c": false}},
			want:    []string{"running a: ?c a:start a", "running a: a"}},
		{name: "abort both: watched as self and for the children after it",
			xml: bt(`<choice id="root">
  <sequence id="fight" abort="both"><condition>c</condition><action id="shoot" name="act"/></sequence>
  <action id="idle" name="act"/>
</choice>`),
			conds: map[string]bool{"c": false}, script: map[string][]Status{"shoot": {R}, "idle": {R}},
			changes: map[int]map[string]bool{2: {"c": true}, 4: {"c": false}},
			want: []string{
				"running idle: ?c idle:start idle",
				"running shoot: ?c idle:cancel ?c shoot:start shoot [preempt fight]",
				"running shoot: ?c shoot",
				"running idle: ?c shoot:cancel idle:start idle [abort fight]",
			}},
		{name: "only children before the one on the path are watched, in document order, first passing wins",
			xml: bt(`<choice id="root">
  <action id="x" name="ok" abort="lower"><condition>cx</condition></action>
  <action id="y" name="ok" abort="lower"><condition>cy</condition></action>
  <action id="z" name="act"/>
  <action id="late" name="ok" abort="lower"><condition>cl</condition></action>
</choice>`),
			conds: map[string]bool{"cx": false, "cy": false, "cl": true}, script: map[string][]Status{"z": {R}},
			changes: map[int]map[string]bool{3: {"cy": true}},
			want: []string{
				"running z: ?cx ?cy z:start z",
				"running z: ?cx ?cy z",
				"success root: ?cx ?cy z:cancel ?cy y [preempt y]",
			}},
		{name: "checks walk from the root down and stop at the first interrupt",
			xml: bt(`<choice id="root">
  <action id="alarm" name="ok" abort="lower"><condition>alarm</condition></action>
  <sequence id="work" abort="self"><condition>busy</condition>
    <choice id="inner">
      <action id="urgent" name="ok" abort="lower"><condition>urgent</condition></action>
      <action id="task" name="act"/>
    </choice>
  </sequence>
  <action id="idle" name="ok"/>
</choice>`),
			conds: map[string]bool{"alarm": false, "busy": true, "urgent": false}, script: map[string][]Status{"task": {R}},
			changes: map[int]map[string]bool{2: {"urgent": true, "busy": false}},
			want: []string{
				"running task: ?alarm ?busy ?urgent task:start task",
				"success root: ?alarm ?busy task:cancel idle [abort work]", // urgent is never asked
			}},
		{name: "timeout on the running leaf",
			xml:    bt(`<sequence id="root"><action id="a" name="act" timeout="2"/><action id="b" name="ok"/></sequence>`),
			script: map[string][]Status{"a": {R}},
			want:   []string{"running a: a:start a", "running a: a", "failure root: a:cancel [timeout a]", "running a: a:start a"}},
		{name: "timeout with doNotFail lets the parent go on",
			xml:    bt(`<sequence id="root"><action id="a" name="act" timeout="1.5" doNotFail="true"/><action id="b" name="ok"/></sequence>`),
			script: map[string][]Status{"a": {R}},
			want:   []string{"running a: a:start a", "running a: a", "success root: a:cancel b [timeout a]"}},
		{name: "timeout on an ancestor counts from when it became active",
			xml: bt(`<choice id="root">
  <sequence id="search" timeout="3"><action id="look" name="act"/><action id="walk" name="act"/></sequence>
  <action id="giveUp" name="ok"/>
</choice>`),
			script: map[string][]Status{"look": {R, S}, "walk": {R}},
			want: []string{
				"running look: look:start look",
				"running walk: look walk:start walk",
				"running walk: walk",
				"success root: walk:cancel giveUp [timeout search]",
			}},
		{name: "a timeout that is also a failed abort check is an abort",
			xml: bt(`<choice id="root">
  <sequence id="s" abort="self" timeout="1"><condition>c</condition><action id="a" name="act"/></sequence>
  <action id="b" name="ok"/>
</choice>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{2: {"c": false}},
			want:    []string{"running a: ?c a:start a", "success root: ?c a:cancel b [abort s]"}},
		{name: "an aborted root ends the step with the tree's failure",
			xml:   bt(`<sequence id="root" abort="self"><condition>c</condition><action id="a" name="act"/></sequence>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{2: {"c": false}},
			want:    []string{"running a: ?c a:start a", "failure root: ?c a:cancel [abort root]", "failure root: ?c"}},
		{name: "doNotFail on an aborted root makes the step a success",
			xml:   bt(`<sequence id="root" abort="self" doNotFail="true"><condition>c</condition><action id="a" name="act"/></sequence>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{2: {"c": false}},
			want:    []string{"running a: ?c a:start a", "success root: ?c a:cancel [abort root]"}},
		{name: "no checks while the cursor is the root",
			xml:    bt(`<action id="root" name="act" timeout="1"/>`),
			script: map[string][]Status{"root": {R}},
			want:   []string{"running root: root:start root", "running root: root", "running root: root"}},
	})
}

// TestInterrupt_cooldown: a rule left less than its cooldown ago refuses the
// cursor: it fails at once without evaluating or calling anything, and the
// refusal does not restart its cooldown.
func TestInterrupt_cooldown(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "refused within the cooldown, allowed after it",
			xml: bt(`<choice id="root">
  <action id="shoot" name="act" cooldown="2"><condition>c</condition></action>
  <action id="aim" name="ok"/>
</choice>`),
			conds: map[string]bool{"c": true},
			want: []string{
				"success root: ?c shoot:start shoot", // left at t=1
				"success root: aim",                  // t=2: 1 s after
				"success root: ?c shoot:start shoot", // t=3: 2 s after; the refusal at t=2 did not restart it
				"success root: aim",
			}},
		{name: "doNotFail turns the refusal into success",
			xml:  bt(`<sequence id="root"><action id="a" name="act" cooldown="5" doNotFail="true"/><action id="b" name="ok"/></sequence>`),
			want: []string{"success root: a:start a b", "success root: b"}},
		{name: "conditions failing at arrival finish the rule: its cooldown starts",
			xml: bt(`<choice id="root">
  <action id="a" name="act" cooldown="2"><condition>c</condition></action>
  <action id="b" name="ok"/>
</choice>`),
			conds: map[string]bool{"c": false}, changes: map[int]map[string]bool{2: {"c": true}},
			want: []string{"success root: ?c b", "success root: b", "success root: ?c a:start a"}},
		{name: "a watched child cooling down is skipped without evaluating its conditions",
			xml: bt(`<choice id="root">
  <action id="alarm" name="ok" abort="lower" cooldown="10"><condition>c</condition></action>
  <action id="idle" name="act"/>
</choice>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"idle": {R}},
			want: []string{
				"success root: ?c alarm",
				"running idle: idle:start idle", // refused
				"running idle: idle",            // skipped by the check
			}},
		{name: "a sequence left by an abort cools down, and so do the rules left below it",
			xml: bt(`<choice id="root">
  <sequence id="s" abort="self" cooldown="3"><condition>c</condition><action id="a" name="act" cooldown="3"/></sequence>
  <action id="b" name="ok"/>
</choice>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{2: {"c": false}, 3: {"c": true}},
			want: []string{
				"running a: ?c a:start a",
				"success root: ?c a:cancel b [abort s]", // s and a left at t=2
				"success root: b",                       // s refused at t=3
				"success root: b",
				"running a: ?c a:start a", // t=5
			}},
	})
}

// TestInterrupt_logParameters: log.start when a rule starts (its
// conditions passed),
// log.success and log.failure when it finishes (before doNotFail, aborted
// included); nothing for a refused rule or one left without finishing.
func TestInterrupt_logParameters(t *testing.T) {
	logged := func(name string) string {
		return `<parameter name="log.start">` + name + ` starts</parameter><parameter name="log.success">` + name +
			` won</parameter><parameter name="log.failure">` + name + ` lost</parameter>`
	}
	runStepCases(t, []stepCase{
		{name: "start, then success or failure",
			xml: bt(`<choice id="root">` + logged("root") + `
  <action id="a" name="fail">` + logged("a") + `</action>
  <action id="b" name="ok" doNotFail="true">` + logged("b") + `</action>
</choice>`),
			want: []string{"success root: log(root: root starts) log(a: a starts) a log(a: a lost) log(b: b starts) b log(b: b won) log(root: root won)"}},
		{name: "doNotFail logs the failure the rule had",
			xml:  bt(`<sequence id="root"><action id="a" name="fail" doNotFail="true">` + logged("a") + `</action></sequence>`),
			want: []string{"success root: log(a: a starts) a log(a: a lost)"}},
		{name: "aborted: failure; left below it: nothing; refused: nothing",
			xml: bt(`<choice id="root">
  <sequence id="s" abort="self" cooldown="5"><condition>c</condition>` + logged("s") + `<action id="a" name="act">` + logged("a") + `</action></sequence>
  <action id="b" name="ok"/>
</choice>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{2: {"c": false}, 3: {"c": true}},
			want: []string{
				"running a: ?c log(s: s starts) log(a: a starts) a:start a", // s starts once its condition passed
				"success root: ?c a:cancel log(s: s lost) b [abort s]",
				"success root: b",
			}},
	})
}

// TestInterrupt_jumps: a jump's target gets the arrival checks; the rules
// that become active because the jump lands below them start their clocks
// and log, without arrival checks; an active rule jumped to keeps its
// activation.
func TestInterrupt_jumps(t *testing.T) {
	xml := bt(`<choice id="root">
  <sequence id="s" timeout="3" cooldown="10"><parameter name="log.start">s starts</parameter>
    <action id="a" name="act"/>
    <action id="b" name="act" cooldown="10"/>
  </sequence>
  <action id="c" name="act"/>
</choice>`)
	t.Run("ancestors activated by the jump start their clock, without arrival checks", func(t *testing.T) {
		h := newHarness(t, xml, nil)
		h.script["a"] = []Status{F}
		h.script["c"] = []Status{R}
		h.script["b"] = []Status{R}
		// s is left at t=1 (a fails): it cools down until t=11.
		expectSteps(t, h.steps(1), []string{"running c: log(s: s starts) a:start a c:start c"})
		h.log = nil
		h.must(h.agent.Jump("b")) // at t=1, between steps
		if got := strings.Join(h.log, " "); got != "c:cancel log(s: s starts)" {
			t.Errorf("the jump logged %q", got)
		}
		expectSteps(t, h.steps(4), []string{
			"running b: b:start b", // s let in despite its cooldown; b's own cooldown never ran
			"running b: b",
			"running c: b:cancel c:start c [timeout s]", // t=4: 3 s after the jump
			"running c: c",
		})
	})
	t.Run("the target gets the arrival checks: a cooling target is refused", func(t *testing.T) {
		h := newHarness(t, xml, nil)
		h.script["b"] = []Status{S}
		h.script["a"] = []Status{S}
		h.script["c"] = []Status{R}
		expectSteps(t, h.steps(1), []string{"success root: log(s: s starts) a:start a b:start b"})
		h.log = nil
		h.must(h.agent.Jump("b")) // the tree had finished: root and s become active
		if got := strings.Join(h.log, " "); got != "log(s: s starts)" {
			t.Errorf("the jump logged %q", got)
		}
		expectSteps(t, h.steps(1), []string{"running c: c:start c"}) // b refused, s fails, c
		if l := strings.Join(h.leaves, " "); l != "b=failure c=running" {
			t.Errorf("runs: %s", l)
		}
	})
	t.Run("a jump to an active ancestor keeps its activation time", func(t *testing.T) {
		h := newHarness(t, xml, nil)
		h.script["a"] = []Status{R}
		expectSteps(t, h.steps(2), []string{"running a: log(s: s starts) a:start a", "running a: a"})
		h.log = nil
		h.must(h.agent.Jump("s")) // entered again: no log.start, no cooldown check
		if got := strings.Join(h.log, " "); got != "a:cancel" {
			t.Errorf("the jump logged %q", got)
		}
		expectSteps(t, h.steps(2), []string{"running a: a:start a", "success root: a:cancel c:start c [timeout s]"})
	})
}

// TestInterrupt_errorLeavesEveryActiveRule: an error resets the agent and
// every active rule is left: their cooldowns start.
func TestInterrupt_errorLeavesEveryActiveRule(t *testing.T) {
	h := newHarness(t, bt(`<choice id="root">
  <sequence id="s" cooldown="5"><action id="a" name="act"/></sequence>
  <action id="b" name="ok"/>
</choice>`), nil)
	h.script["a"] = []Status{R}
	h.steps(1)
	h.hook["a"] = func(*Agent) error { return errors.New("boom") }
	expectSteps(t, h.steps(2), []string{`error root: a a:cancel | action "act": boom`, "success root: b"})
}

// TestInterrupt_cancelOnceAndRunsExcludeChecks: an interrupted running
// action gets exactly one cancel; the checks are neither runs nor counted
// against the run-away limit.
func TestInterrupt_cancelOnceAndRunsExcludeChecks(t *testing.T) {
	h := newHarness(t, bt(`<choice id="root">
  <action id="alarm" name="ok" abort="lower"><condition>c</condition></action>
  <sequence id="s" abort="self"><condition>d</condition><action id="idle" name="act"/></sequence>
</choice>`), map[string]bool{"c": false, "d": true})
	h.script["idle"] = []Status{R}
	h.steps(1)
	h.env.RunawayLimit = 3                   // alarm, root: the check of c counted would make 3
	h.conds["c"], h.conds["d"] = true, false // both would fire; the walk stops at the first, from the root
	got := h.step()
	if got != "success root: ?c idle:cancel ?c alarm [preempt alarm]" {
		t.Errorf("got %s", got)
	}
	if n := strings.Count(got, "idle:cancel"); n != 1 {
		t.Errorf("cancel called %d times", n)
	}
	if l := strings.Join(h.leaves, " "); l != "alarm=success" {
		t.Errorf("runs: %s", l)
	}
}
