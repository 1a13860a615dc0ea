package runtime

import (
	"strings"
	"testing"
)

// Custom rules (custom.go): each call of the contract, and every attribute
// of the format on them, stepped through the harness's <pick>, <invert>
// and <times> (custom_harness_test.go).

// TestCustom_contract: Enter, ChildDone and Exit, in order, with the
// children they name and the state they keep.
func TestCustom_contract(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "enter runs the child it names; child results go to ChildDone; the result leaves it",
			xml:  bt(`<pick id="p"><parameter name="pick.first">1</parameter><action id="a" name="ok"/><action id="b" name="fail"/><action id="c" name="ok"/></pick>`),
			want: []string{"success p: p.enter b p.done(1:failure:1) c p.done(2:success:2) p.exit(success:2)"}},
		{name: "wraps around and fails after every child",
			xml:  bt(`<pick id="p"><parameter name="pick.first">1</parameter><action id="a" name="fail"/><action id="b" name="fail"/></pick>`),
			want: []string{"failure p: p.enter b p.done(1:failure:1) a p.done(0:failure:2) p.exit(failure:2)"}},
		{name: "a decorator",
			xml:  bt(`<sequence id="root"><invert id="i"><action id="a" name="fail"/></invert><invert id="j"><action id="b" name="ok"/></invert></sequence>`),
			want: []string{"failure root: i.enter a i.done(0:failure) i.exit(success) j.enter b j.done(0:success) j.exit(failure)"}},
		{name: "state kept across steps while a child runs",
			xml:    bt(`<times id="t"><parameter name="times.n">2</parameter><action id="a" name="act"/></times>`),
			script: map[string][]Status{"a": {R, S, R, S}},
			want: []string{"running a: t.enter a:start a", "running a: a t.done(success:1) a:start a",
				"success t: a t.done(success:2) t.exit(success:2)"}},
		{name: "a child index out of range is the step's error",
			xml:  bt(`<pick id="p"><parameter name="pick.bad">true</parameter><action id="a" name="ok"/></pick>`),
			want: []string{"error p: p.enter p.exit(reset:1) | rule <pick> Enter: answered child 1; the rule has 1 children (0 to 0)"}},
	})
}

// TestCustom_theFormatsAttributes: abort, timeout, cooldown, enter and exit
// hooks, attempts, gates, doNotFail and log parameters apply to a custom
// rule as to a sequence, and Exit is told how it was left.
func TestCustom_theFormatsAttributes(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "abort self: Exit(abort) after the running child's cancel",
			xml: bt(`<choice id="root">
  <times id="t" abort="self"><parameter name="times.n">3</parameter><condition>c</condition><action id="a" name="act"/></times>
  <action id="b" name="ok"/>
</choice>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{2: {"c": false}},
			want:    []string{"running a: ?c t.enter a:start a", "success root: ?c a:cancel t.exit(abort:0) b [abort t]"}},
		{name: "conditions failing at its entry: no Enter, no Exit",
			xml:   bt(`<choice id="root"><invert id="i"><condition>c</condition><action id="a" name="ok"/></invert><success id="s"/></choice>`),
			conds: map[string]bool{"c": false},
			want:  []string{"success root: ?c"}},
		{name: "timeout",
			xml:    bt(`<sequence id="root"><invert id="i" timeout="2"><action id="a" name="act"/></invert></sequence>`),
			script: map[string][]Status{"a": {R}},
			want:   []string{"running a: i.enter a:start a", "running a: a", "failure root: a:cancel i.exit(timeout) [timeout i]"}},
		{name: "cooldown refuses it after it was left",
			xml:  bt(`<choice id="root"><invert id="i" cooldown="5"><action id="a" name="fail"/></invert><action id="b" name="ok"/></choice>`),
			want: []string{"success root: i.enter a i.done(0:failure) i.exit(success)", "success root: b"}},
		{name: "enter and exit hooks around Enter and Exit",
			xml:  bt(`<invert id="i" enter="h" exit="h"><action id="a" name="fail"/></invert>`),
			want: []string{"success i: +i i.enter a i.done(0:failure) i.exit(success) -i(success)"}},
		{name: "attempts: entered again after a failure, still active",
			xml:  bt(`<sequence id="root"><invert id="i" attempts="2" exit="h"><action id="a" name="ok"/></invert></sequence>`),
			want: []string{"failure root: i.enter a i.done(0:success) i.enter a i.done(0:success) i.exit(failure) -i(failure)"}},
		{name: "doNotFail",
			xml:  bt(`<sequence id="root"><invert id="i" doNotFail="true"><action id="a" name="ok"/></invert><action id="b" name="ok"/></sequence>`),
			want: []string{"success root: i.enter a i.done(0:success) i.exit(failure) b"}},
		{name: "log parameters",
			xml:  bt(`<invert id="i"><parameter name="log.start">in</parameter><parameter name="log.failure">out</parameter><action id="a" name="ok"/></invert>`),
			want: []string{"failure i: log(i: in) i.enter a i.done(0:success) i.exit(failure) log(i: out)"}},
		{name: "in a parallel's lane",
			xml:    bt(`<parallel id="p"><invert id="i"><action id="a" name="act"/></invert><action id="b" name="act"/></parallel>`),
			script: map[string][]Status{"a": {R, F}, "b": {R, S}},
			want:   []string{"running p{a b}: i.enter a:start a b:start b", "success p: a i.done(0:failure) i.exit(success) b"}},
	})
}

// TestCustom_jumps: a jump into a child of a custom rule that was not
// active makes it active without Enter (its state empty), and ChildDone
// is told that child's result; a jump out of it calls Exit(jump); a jump to
// the rule itself while it is active enters it again.
func TestCustom_jumps(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "into a child",
			xml: bt(`<choice id="root"><action id="x" name="act"/>
  <pick id="p"><action id="a" name="act"/><action id="b" name="ok"/></pick></choice>`),
			script: map[string][]Status{"x": {R}, "a": {R, F}},
			before: map[int]func(h *harness){2: func(h *harness) { h.must(h.agent.Jump("a")) }},
			want: []string{"running x: x:start x", "running a: a:start a",
				"success root: a p.done(0:failure:0) b p.done(1:success:1) p.exit(success:1)"}},
		{name: "out of a child",
			xml:    bt(`<choice id="root"><pick id="p"><action id="a" name="act"/></pick><action id="x" name="act"/></choice>`),
			script: map[string][]Status{"a": {R}, "x": {R}},
			before: map[int]func(h *harness){2: func(h *harness) { h.must(h.agent.Jump("x")) }},
			want:   []string{"running a: p.enter a:start a", "running x: x:start x"}},
	})
	h := newHarness(t, bt(`<choice id="root"><pick id="p"><action id="a" name="act"/></pick><action id="x" name="act"/></choice>`), nil)
	h.script["a"] = []Status{R}
	h.step()
	h.log = nil
	h.must(h.agent.Jump("x"))
	if got := strings.Join(h.log, " "); got != "a:cancel p.exit(jump:1)" {
		t.Errorf("the jump out logged %q", got)
	}
}

// TestCustom_signals: a custom rule's signal handler is called while a
// child runs, with the child's position, and its state change is what
// ChildDone reads next.
func TestCustom_signals(t *testing.T) {
	h := newHarness(t, bt(`<times id="t"><parameter name="times.n">2</parameter><action id="a" name="act"/></times>`), nil)
	h.script["a"] = []Status{R, S}
	expectSteps(t, []string{h.step()}, []string{"running a: t.enter a:start a"})
	h.log = nil
	h.must(h.agent.Signal("Bump"))
	if got := strings.Join(h.log, " "); got != "t.Bump(0:1)" {
		t.Errorf("the signal logged %q", got)
	}
	h.must(h.agent.Signal("Other"))
	expectSteps(t, []string{h.step()}, []string{"success t: a t.done(success:2) t.exit(success:2)"})
}

// TestCustom_saveRestoreAtEveryStep: an agent saved and restored into a
// fresh agent after each step goes on exactly as the uninterrupted one.
func TestCustom_saveRestoreAtEveryStep(t *testing.T) {
	xml := bt(`<choice id="root" loop="true">
  <pick id="p"><parameter name="pick.first">1</parameter>
    <times id="t"><parameter name="times.n">3</parameter><action id="a" name="act"/></times>
    <invert id="i"><action id="b" name="act"/></invert>
  </pick>
</choice>`)
	script := map[string][]Status{"a": {R, S, S, R, F, S}, "b": {R, S, R, F, F, R, S}}
	ref := newHarness(t, xml, nil)
	for k, v := range script {
		ref.script[k] = v
	}
	want := ref.steps(14)
	for at := 1; at < 14; at++ {
		h := newHarness(t, xml, nil)
		for k, v := range script {
			h.script[k] = v
		}
		got := h.steps(at)
		data, err := SaveAgents([]*Agent{h.agent}, nil)
		h.must(err)
		fresh := h.tree.NewAgent("a1", h.env)
		if _, err := RestoreAgents(data, []*Agent{fresh}, nil); err != nil {
			t.Fatalf("restore after step %d: %v", at, err)
		}
		h.agent = fresh
		got = append(got, h.steps(14-at)...)
		for i := range got { // the restored agent's first step logs no Exit of the old one's rules
			if got[i] != want[i] {
				t.Errorf("restored after step %d: step %d:\n got  %s\n want %s", at, i+1, got[i], want[i])
			}
		}
	}
}

// TestCustom_gate: a custom rule with a gate takes it when it is let in,
// holds it while its child runs and is refused when the gate is full.
func TestCustom_gate(t *testing.T) {
	w := newGateWorld(t, `<behaviorTree>
  <gates><gate name="g" users="1"/></gates>
  <choice id="root"><first id="use" gate="g"><action id="r" name="run"/></first><running id="idle"/></choice>
</behaviorTree>`, "a1", "a2")
	expectLines(t, 1, w.stepAll(), []string{"a1 running r: r=running [gates g+]", "a2 running idle: idle=running"})
	if got := w.holders("g"); got != "g: a1" {
		t.Errorf("holders %q", got)
	}
}

// TestCustom_hotReload: a hot reload carries a custom rule's state to the
// same rule in the new version of the tree, where its index moved.
func TestCustom_hotReload(t *testing.T) {
	v1 := bt(`<sequence id="root"><times id="t"><parameter name="times.n">3</parameter><action id="a" name="act"/></times></sequence>`)
	v2 := strings.Replace(v1, `<times id="t">`, `<success id="pre"/><times id="t">`, 1)
	h, b2 := carryHarness(t, v1, v2)
	h.script["a"] = []Status{R, S, R, S, R}
	expectSteps(t, h.steps(2), []string{"running a: t.enter a:start a", "running a: a t.done(success:1) a:start a"})
	if gone := h.carry(b2); gone != "" {
		t.Fatalf("gone: %q", gone)
	}
	expectSteps(t, h.steps(1), []string{"running a: a t.done(success:2) a:start a"})
}

// TestCustom_signalsInALane: a custom rule in a parallel's lane has its
// signal handler called too, with its running child.
func TestCustom_signalsInALane(t *testing.T) {
	h := newHarness(t, bt(`<parallel id="p"><action id="b" name="act"/><times id="t"><parameter name="times.n">2</parameter><action id="a" name="act"/></times></parallel>`), nil)
	h.script["a"] = []Status{R, S}
	h.script["b"] = []Status{R}
	h.step()
	h.log = nil
	h.must(h.agent.Signal("Bump"))
	if got := strings.Join(h.log, " "); got != "t.Bump(0:1)" {
		t.Errorf("the signal logged %q", got)
	}
}

// TestCustom_repeatAndErrors: repeat enters a custom rule again after each
// success until that many passes succeeded; an error of Enter or
// ChildDone, or an answer that is not a result, is the step's error at
// the rule.
func TestCustom_repeatAndErrors(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "repeat",
			xml:  bt(`<invert id="i" repeat="2"><action id="a" name="fail"/></invert>`),
			want: []string{"success i: i.enter a i.done(0:failure) i.enter a i.done(0:failure) i.exit(success)"}},
		{name: "repeat: a failure ends it",
			xml:  bt(`<invert id="i" repeat="3"><action id="a" name="ok"/></invert>`),
			want: []string{"failure i: i.enter a i.done(0:success) i.exit(failure)"}},
	})
	h := newHarness(t, bt(`<success/>`), nil)
	for _, c := range []struct {
		name string
		rule firstLike
		want string
	}{
		{"Enter's error", firstLike{enterErr: errBoom}, "rule <fl> Enter: boom"},
		{"ChildDone's error", firstLike{doneErr: errBoom}, "rule <fl> ChildDone(0, success): boom"},
		{"a pause", firstLike{enterErr: ErrPending}, "rule <fl> Enter: a custom rule may not pause (it returned ErrPending)"},
		{"running is no result", firstLike{result: Running}, "rule <fl> ChildDone(0, success): answered running; a custom rule finishes with success or failure"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := NewRegistry()
			h.must(reg.RegisterAction("ok", ActionFunc(func(*Agent, Params) (Status, error) { return Success, nil })))
			rule := c.rule
			h.must(reg.AddRule(RuleDef{RuleDecl: RuleDecl{Tag: "fl"}, Bind: func(*Site) (CustomRule, error) { return rule, nil }}))
			tree, err := LoadBytes("t.xml", []byte(bt(`<fl id="f"><action name="ok"/></fl>`)), LoadOptions{Rules: reg.RuleDecls()})
			h.must(err)
			b, err := Bind(tree, reg, BindOptions{})
			h.must(err)
			st, err := b.NewAgent("a", &Env{}).Step(1)
			if st != Errored || err == nil || errSummary(err) != c.want || !strings.HasPrefix(err.Error(), "t.xml:1:15:") {
				t.Errorf("got %v %v, want the error %q at t.xml:1:15", st, err, c.want)
			}
		})
	}
}

// firstLike runs its first child and finishes with result (its child's
// when 0), or fails with the errors it holds.
type firstLike struct {
	enterErr, doneErr error
	result            Status
}

func (f firstLike) Enter(*Agent) (Next, error) { return RunChild(0), f.enterErr }
func (f firstLike) ChildDone(_ *Agent, _ int, res Status) (Next, error) {
	if f.result != 0 {
		res = f.result
	}
	return Finish(res), f.doneErr
}
func (f firstLike) Exit(*Agent, string) error { return nil }
