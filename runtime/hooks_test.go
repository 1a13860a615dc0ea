package runtime

import (
	"strings"
	"testing"
)

// Enter and exit hooks: each way of leaving, their order with cancels and
// nested rules, errors, saves, reloads; and log.start's moment. The
// harness's hook "h" logs +LABEL on enter and -LABEL(HOW) on exit; "bad"
// logs the same and fails.

// TestHooks_eachWayOfLeaving: exit runs once for every enter, with how,
// innermost first and after the running action's cancel.
func TestHooks_eachWayOfLeaving(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "success and failure, nested",
			xml:  bt(`<sequence id="root" enter="h" exit="h"><action id="a" name="ok" enter="h" exit="h"/><action id="b" name="fail" exit="h"/></sequence>`),
			want: []string{"failure root: +root +a a -a(success) b -b(failure) -root(failure)"}},
		{name: "conditions failing at arrival: no start, no exit",
			xml:   bt(`<choice id="root"><action id="a" name="ok" enter="h" exit="h"><condition>c</condition></action><success id="b" enter="h" exit="h"/><failure id="f" enter="h" exit="h"/></choice>`),
			conds: map[string]bool{"c": false},
			want:  []string{"success root: ?c +b -b(success)"}},
		{name: "abort: after the cancel, innermost first",
			xml: bt(`<choice id="root">
  <sequence id="s" abort="self" enter="h" exit="h"><condition>c</condition><action id="a" name="act" enter="h" exit="h"/></sequence>
  <action id="b" name="ok"/>
</choice>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{2: {"c": false}},
			want:    []string{"running a: ?c +s +a a:start a", "success root: ?c a:cancel -a(abort) -s(abort) b [abort s]"}},
		{name: "timeout",
			xml:    bt(`<sequence id="root"><sequence id="s" timeout="2" exit="h"><action id="a" name="act" exit="h"/></sequence></sequence>`),
			script: map[string][]Status{"a": {R}},
			want:   []string{"running a: a:start a", "running a: a", "failure root: a:cancel -a(timeout) -s(timeout) [timeout s]"}},
		{name: "preempt",
			xml: bt(`<choice id="root">
  <action id="p" name="ok" abort="lower"><condition>c</condition></action>
  <sequence id="s" exit="h"><action id="a" name="act" exit="h"/></sequence>
</choice>`),
			conds: map[string]bool{"c": false}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{2: {"c": true}},
			want:    []string{"running a: ?c a:start a", "success root: ?c a:cancel -a(preempt) -s(preempt) ?c p [preempt p]"}},
		{name: "jump, and a jump landing below a rule starts it",
			xml: bt(`<choice id="root">
  <sequence id="s" exit="h"><action id="a" name="act" exit="h"/></sequence>
  <sequence id="t" enter="h" exit="h"><action id="x" name="ok"/><action id="y" name="act" enter="h"/></sequence>
</choice>`),
			script: map[string][]Status{"a": {R}, "y": {R}},
			before: map[int]func(h *harness){2: func(h *harness) { h.must(h.agent.Jump("y")) }},
			want:   []string{"running a: a:start a", "running y: +y y:start y"}},
		{name: "cancel: a lane's rules before the rules above the parallel",
			xml: bt(`<sequence id="root" exit="h"><parallel id="p" success="any" exit="h">
  <sequence id="l1" exit="h"><action id="a" name="act" exit="h"/></sequence>
  <action id="b" name="act"/>
</parallel></sequence>`),
			script: map[string][]Status{"a": {R}, "b": {R, S}},
			want:   []string{"running p{a b}: a:start a b:start b", "success root: a b a:cancel -a(cancel) -l1(cancel) -p(success) -root(success)"}},
		{name: "reset: an error",
			xml:    bt(`<sequence id="root" exit="h"><action id="a" name="act" exit="h"/><action id="b" name="act"/></sequence>`),
			script: map[string][]Status{"a": {R, S}},
			before: map[int]func(h *harness){2: func(h *harness) {
				h.hook["b"] = func(*Agent) error { return errBoom }
			}},
			want: []string{"running a: a:start a", "error root: a -a(success) b:start b -root(reset) | action \"act\": boom"}},
	})
}

var errBoom = errorString("boom")

type errorString string

func (e errorString) Error() string { return string(e) }

// TestHooks_jumpAndRemoveAndReset: between steps, a jump away, Reset and
// Close run the exits with jump, reset and remove.
func TestHooks_jumpAndRemoveAndReset(t *testing.T) {
	xml := bt(`<choice id="root"><sequence id="s" exit="h"><action id="a" name="act" exit="h"/></sequence><action id="x" name="act"/></choice>`)
	for _, c := range []struct {
		name string
		do   func(h *harness) error
		want string
	}{
		{"jump", func(h *harness) error { return h.agent.Jump("x") }, "a:cancel -a(jump) -s(jump)"},
		{"reset", func(h *harness) error { return h.agent.Reset() }, "a:cancel -a(reset) -s(reset)"},
		{"remove", func(h *harness) error { return h.agent.Close() }, "a:cancel -a(remove) -s(remove)"},
		{"restore over it", func(h *harness) error {
			s, err := h.tree.NewAgent("a1", nil).Snapshot()
			h.must(err)
			_, err = h.agent.Restore(&s)
			return err
		}, "a:cancel -a(reset) -s(reset)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, xml, nil)
			h.script["a"] = []Status{R}
			h.step()
			h.log = nil
			h.must(c.do(h))
			if got := strings.Join(h.log, " "); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestHooks_attemptsEnterOnce: the retries of a rule with attempts keep it
// active: enter ran once, exit runs once, when it is finally left.
func TestHooks_attemptsEnterOnce(t *testing.T) {
	runStepCases(t, []stepCase{{name: "attempts",
		xml:    bt(`<sequence id="root"><action id="a" name="act" attempts="3" enter="h" exit="h"/></sequence>`),
		script: map[string][]Status{"a": {F, F, S}},
		want:   []string{"success root: +a a:start a a:start a a:start a -a(success)"}}})
}

// TestHooks_errors: an error in enter is the step's error (the rule, which
// started, is then left with reset); an error in exit goes to the agent's
// log and the other exits still run.
func TestHooks_errors(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "enter",
			xml:  bt(`<sequence id="root" exit="h"><action id="a" name="ok" enter="bad" exit="h"/></sequence>`),
			want: []string{`error root: +a -a(reset) -root(reset) | enter hook "bad": hook failed`}},
		{name: "exit",
			xml:  bt(`<sequence id="root" exit="h"><action id="a" name="ok" exit="bad"/><action id="b" name="ok" exit="h"/></sequence>`),
			want: []string{`success root: a -a(success) log(a: error: exit hook "bad" (success): hook failed) b -b(success) -root(success)`}},
	})
}

// TestHooks_unknownNameIsABindError: a hook no one registered is a bind
// error at the rule, with a suggestion.
func TestHooks_unknownNameIsABindError(t *testing.T) {
	tree, err := LoadBytes("t.xml", []byte(bt(`<action id="a" name="ok" exit="cleanUpp"/>`)), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	reg.RegisterAction("ok", ActionFunc(func(*Agent, Params) (Status, error) { return Success, nil }))
	reg.RegisterHook("cleanUp", HookFunc(func(*Agent, Params, string) error { return nil }))
	_, err = Bind(tree, reg, BindOptions{})
	if err == nil || !strings.Contains(err.Error(), `t.xml:1:15: rule a: exit unknown hook "cleanUpp": not registered by a script (bt.hook)`) || !strings.Contains(err.Error(), `did you mean "cleanUp"?`) {
		t.Errorf("got %v", err)
	}
}

// TestHooks_mayNotJump: a hook's jump is refused with an error.
func TestHooks_mayNotJump(t *testing.T) {
	tree, _ := LoadBytes("t.xml", []byte(bt(`<sequence id="root"><action id="a" name="ok" enter="j"/><action id="b" name="ok"/></sequence>`)), LoadOptions{})
	reg := NewRegistry()
	reg.RegisterAction("ok", ActionFunc(func(*Agent, Params) (Status, error) { return Success, nil }))
	reg.RegisterHook("j", HookFunc(func(a *Agent, _ Params, _ string) error { return a.Jump("b") }))
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.NewAgent("x", nil).Step(1)
	if err == nil || !strings.Contains(err.Error(), "cannot jump to b from an enter or exit hook") {
		t.Errorf("got %v", err)
	}
}

// TestHooks_savedStartRunsTheExitAfterARestore: whether enter ran is saved:
// restored into a new agent, the exit still runs when the rule is left.
func TestHooks_savedStartRunsTheExitAfterARestore(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root" enter="h" exit="h"><action id="a" name="act" enter="h" exit="h"/></sequence>`), nil)
	h.script["a"] = []Status{R, R, S}
	expectSteps(t, h.steps(1), []string{"running a: +root +a a:start a"})
	s, err := h.agent.Snapshot()
	h.must(err)
	h.agent = h.tree.NewAgent("a1", h.env)
	if _, err := h.agent.Restore(&s); err != nil {
		t.Fatal(err)
	}
	expectSteps(t, h.steps(2), []string{"running a: a", "success root: a -a(success) -root(success)"})
}

// TestHooks_hotReloadDropsTheRule: a reload whose new version drops the
// agent's rule resets it by the old version first: its exits run with
// reset; a reload that keeps the rule carries the start (no second enter,
// the exit runs when it is left).
func TestHooks_hotReload(t *testing.T) {
	v1 := `<behaviorTree><sequence id="root" enter="h" exit="h"><action id=".aim" name="act" enter="h" exit="h"/></sequence></behaviorTree>`
	t.Run("dropped", func(t *testing.T) {
		h, b2 := carryHarness(t, v1, strings.Replace(v1, `id=".aim"`, `id=".aim2"`, 1))
		h.script["root.aim"] = []Status{R}
		h.step()
		if gone := h.carry(b2); gone != "rule root.aim is gone [root.aim:cancel -root.aim(reset) -root(reset)]" {
			t.Errorf("gone: %q", gone)
		}
	})
	t.Run("ancestor dropped", func(t *testing.T) {
		// aim's id does not depend on wrap's: the agent keeps its place
		// at aim, and wrap, edited out, exits (reset) before the carry.
		w1 := `<behaviorTree><sequence id="root" enter="h" exit="h"><sequence id="wrap" enter="h" exit="h"><action id="aim" name="act" enter="h" exit="h"/></sequence></sequence></behaviorTree>`
		w2 := `<behaviorTree><sequence id="root" enter="h" exit="h"><action id="aim" name="act" enter="h" exit="h"/></sequence></behaviorTree>`
		h, b2 := carryHarness(t, w1, w2)
		h.script["aim"] = []Status{R, S}
		h.step()
		h.log = h.log[:0]
		if gone := h.carry(b2); gone != "" {
			t.Fatalf("gone: %q", gone)
		}
		if got := strings.Join(h.log, " "); got != "-wrap(reset)" {
			t.Errorf("the carry's hooks: %q, want wrap's exit alone", got)
		}
		expectSteps(t, h.steps(1), []string{"success root: aim -aim(success) -root(success)"})
	})
	t.Run("kept", func(t *testing.T) {
		h, b2 := carryHarness(t, v1, strings.Replace(v1, `<sequence id="root"`, `<sequence id="root" repeat="1"`, 1))
		h.script["root.aim"] = []Status{R, S}
		expectSteps(t, h.steps(1), []string{"running root.aim: +root +root.aim root.aim:start root.aim"})
		if gone := h.carry(b2); gone != "" {
			t.Fatalf("gone: %q", gone)
		}
		expectSteps(t, h.steps(1), []string{"success root: root.aim -root.aim(success) -root(success)"})
	})
}

// TestLogStart_writtenWhenTheRuleStarts: log.start is written when the
// rule's conditions have passed, not at its arrival: a rule whose
// conditions fail writes log.failure only.
func TestLogStart_writtenWhenTheRuleStarts(t *testing.T) {
	logged := func(name string) string {
		return `<parameter name="log.start">` + name + ` starts</parameter><parameter name="log.success">` + name +
			` won</parameter><parameter name="log.failure">` + name + ` lost</parameter>`
	}
	runStepCases(t, []stepCase{{name: "log.start",
		xml: bt(`<choice id="root">
  <action id="a" name="ok"><condition>c</condition>` + logged("a") + `</action>
  <sequence id="s"><condition>c</condition>` + logged("s") + `<action id="b" name="ok"/></sequence>
</choice>`),
		conds:   map[string]bool{"c": false},
		changes: map[int]map[string]bool{2: {"c": true}},
		want: []string{
			"failure root: ?c log(a: a lost) ?c log(s: s lost)",
			"success root: ?c log(a: a starts) a log(a: a won)",
		}}})
}

// TestHooks_typedGoHook: a TypedHook's parameters are parsed at bind time
// (a wrong value is a bind error at the rule) and given to each call.
func TestHooks_typedGoHook(t *testing.T) {
	type kitParams struct {
		Kit string `param:"kit.name,required"`
	}
	var got []string
	reg := NewRegistry()
	reg.RegisterAction("ok", ActionFunc(func(*Agent, Params) (Status, error) { return Success, nil }))
	if err := (TypedHook[kitParams]{Name: "kit", Call: func(a *Agent, p *kitParams, how string) error {
		got = append(got, a.Label()+":"+p.Kit+":"+how)
		return nil
	}}).Register(reg); err != nil {
		t.Fatal(err)
	}
	tree, err := LoadBytes("t.xml", []byte(bt(`<action id="a" name="ok" enter="kit" exit="kit"><parameter name="kit.name">medkit</parameter></action>`)), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.NewAgent("x", nil).Step(1); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "a:medkit:enter a:medkit:success" {
		t.Errorf("calls: %v", got)
	}
	tree, _ = LoadBytes("t.xml", []byte(bt(`<action id="a" name="ok" exit="kit"/>`)), LoadOptions{})
	if _, err := Bind(tree, reg, BindOptions{}); err == nil || !strings.Contains(err.Error(), "kit.name") {
		t.Errorf("a missing required parameter: %v", err)
	}
}

// TestHooks_aSaveBeforeVersion6TakesActiveRulesAsStarted: a save from before
// starts were saved (read with startedUnsaved) takes every active rule with
// a start bit as started: its exit runs when it is left, and a jump back to
// it does not start it again.
func TestHooks_aSaveBeforeVersion6TakesActiveRulesAsStarted(t *testing.T) {
	h := newHarness(t, bt(`<choice id="root"><sequence id="s" enter="h" exit="h"><action id="a" name="act" exit="h"/></sequence><action id="x" name="ok"/></choice>`), nil)
	h.script["a"] = []Status{R, R, S}
	expectSteps(t, h.steps(1), []string{"running a: +s a:start a"})
	s, err := h.agent.Snapshot()
	h.must(err)
	s.Entries, s.startedUnsaved = nil, true // as a version 5 save reads
	h.agent = h.tree.NewAgent("a1", h.env)
	if _, err := h.agent.Restore(&s); err != nil {
		t.Fatal(err)
	}
	h.must(h.agent.Jump("s")) // to the active sequence: entered again, not started again
	expectSteps(t, h.steps(2), []string{"running a: a:start a", "success root: a -a(success) -s(success)"})
}
