package runtime

import (
	"errors"
	"strings"
	"testing"
)

const (
	S = Success
	F = Failure
	R = Running
)

// TestStep_rules walks each rule kind, list flags and yield through steps.
func TestStep_rules(t *testing.T) {
	cases := []struct {
		name   string
		xml    string
		script map[string][]Status
		conds  map[string]bool
		want   []string
	}{
		{"sequence runs children in one step", bt(`<sequence id="root"><action id="a" name="ok"/><action id="b" name="ok"/></sequence>`), nil, nil,
			[]string{"success root: a b", "success root: a b"}},
		{"sequence fails with its first failing child", bt(`<sequence id="root"><action id="a" name="fail"/><action id="b" name="ok"/></sequence>`), nil, nil,
			[]string{"failure root: a"}},
		{"empty sequence fails", bt(`<sequence id="root"/>`), nil, nil, []string{"failure root: "}},
		{"empty choice fails", bt(`<choice id="root"/>`), nil, nil, []string{"failure root: "}},
		{"running child ends the step and runs again", bt(`<sequence id="root"><action id="a" name="act"/><action id="b" name="ok"/></sequence>`),
			map[string][]Status{"a": {R, R, S}}, nil,
			[]string{"running a: a:start a", "running a: a", "success root: a b", "success root: a:start a b"}},
		{"choice takes the first success", bt(`<choice id="root"><action id="a" name="fail"/><action id="b" name="ok"/><action id="c" name="ok"/></choice>`), nil, nil,
			[]string{"success root: a b"}},
		{"choice fails when every child fails", bt(`<choice id="root"><action id="a" name="fail"/><action id="b" name="fail"/></choice>`), nil, nil,
			[]string{"failure root: a b"}},
		{"sequence loop restarts at first child", bt(`<sequence id="root" loop="true"><action id="a" name="act"/><action id="b" name="ok"/></sequence>`),
			map[string][]Status{"a": {S, R, S, F}}, nil,
			[]string{"running a: a:start a b a:start a", "failure root: a b a:start a"}},
		{"choice loop restarts after a success", bt(`<choice id="root" loop="true"><action id="a" name="act"/><action id="b" name="fail"/></choice>`),
			map[string][]Status{"a": {S, S, F}}, nil,
			[]string{"failure root: a:start a a:start a a:start a b"}},
		{"doNotFail on sequence", bt(`<sequence id="root" doNotFail="true"><action id="a" name="fail"/></sequence>`), nil, nil,
			[]string{"success root: a"}},
		{"doNotFail on choice", bt(`<choice id="root" doNotFail="true"><action id="a" name="fail"/><action id="b" name="fail"/></choice>`), nil, nil,
			[]string{"success root: a b"}},
		{"doNotFail on action", bt(`<sequence id="root"><action id="a" name="fail" doNotFail="true"/><action id="b" name="ok"/></sequence>`), nil, nil,
			[]string{"success root: a b"}},
		{"doNotFail on a nested sequence lets the parent go on", bt(`<sequence id="root"><sequence id="opt" doNotFail="true"><action id="a" name="fail"/></sequence><action id="b" name="ok"/></sequence>`), nil, nil,
			[]string{"success root: a b"}},
		{"yield runs once then succeeds", bt(`<sequence id="root"><yield id="y"/><action id="a" name="ok"/></sequence>`), nil, nil,
			[]string{"running y: ", "success root: a", "running y: "}},
		{"yield fails when its conditions fail", bt(`<sequence id="root"><yield id="y"><condition>no</condition></yield></sequence>`), nil, map[string]bool{"no": false},
			[]string{"failure root: ?no"}},
		{"success rule checks conditions", bt(`<choice id="root"><success id="s"><condition>no</condition></success><success id="s2"><condition>yes</condition></success></choice>`), nil,
			map[string]bool{"no": false, "yes": true}, []string{"success root: ?no ?yes"}},
		{"failure rule never evaluates conditions", bt(`<failure id="root"><condition>yes</condition></failure>`), nil, map[string]bool{"yes": true},
			[]string{"failure root: "}},
		{"running rule runs while conditions pass", bt(`<running id="root"><condition>yes</condition></running>`), nil, map[string]bool{"yes": true},
			[]string{"running root: ?yes", "running root: ?yes"}},
		{"action with failing conditions is not called", bt(`<action id="root" name="act"><condition>no</condition></action>`), nil, map[string]bool{"no": false},
			[]string{"failure root: ?no"}},
		{"sequence re-checks its conditions after each child", bt(`<sequence id="root"><condition>yes</condition><action id="a" name="ok"/><action id="b" name="ok"/></sequence>`), nil,
			map[string]bool{"yes": true}, []string{"success root: ?yes a ?yes b ?yes"}},
		{"choice re-checks its conditions only before the next child", bt(`<choice id="root"><condition>yes</condition><action id="a" name="fail"/><action id="b" name="ok"/></choice>`), nil,
			map[string]bool{"yes": true}, []string{"success root: ?yes a ?yes b"}},
		{"list conditions are not evaluated while a child runs", bt(`<sequence id="root"><condition>yes</condition><action id="a" name="run"/></sequence>`), nil,
			map[string]bool{"yes": true}, []string{"running a: ?yes a", "running a: a"}},
		{"leaf root stays the cursor", bt(`<action id="root" name="act"/>`), map[string][]Status{"root": {R, S}}, nil,
			[]string{"running root: root:start root", "success root: root", "success root: root:start root"}},
		{"tree without root fails", bt(``), nil, nil, []string{"failure failure@test.xml:1:1: "}},
		{"nested lists bubble results up", bt(`<choice id="root"><sequence id="s"><action id="a" name="ok"/><action id="b" name="fail"/></sequence><sequence id="t"><action id="c" name="ok"/></sequence></choice>`), nil, nil,
			[]string{"success root: a b c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.xml, c.conds)
			for k, v := range c.script {
				h.script[k] = v
			}
			expectSteps(t, h.steps(len(c.want)), c.want)
		})
	}
}

// TestStep_conditionModes checks every mode with short-circuit evaluation,
// negation, and that zero conditions pass in every mode.
func TestStep_conditionModes(t *testing.T) {
	cases := []struct {
		mode   string
		conds  string // condition elements
		c1, c2 bool
		want   string
	}{
		{"allTrue", "c1 c2", true, true, "success root: ?c1 ?c2 root:start root"},
		{"allTrue", "c1 c2", false, true, "failure root: ?c1"},
		{"allTrue", "c1 c2", true, false, "failure root: ?c1 ?c2"},
		{"anyTrue", "c1 c2", false, true, "success root: ?c1 ?c2 root:start root"},
		{"anyTrue", "c1 c2", true, false, "success root: ?c1 root:start root"},
		{"anyTrue", "c1 c2", false, false, "failure root: ?c1 ?c2"},
		{"anyFalse", "c1 c2", true, false, "success root: ?c1 ?c2 root:start root"},
		{"anyFalse", "c1 c2", false, true, "success root: ?c1 root:start root"},
		{"anyFalse", "c1 c2", true, true, "failure root: ?c1 ?c2"},
		{"allFalse", "c1 c2", false, false, "success root: ?c1 ?c2 root:start root"},
		{"allFalse", "c1 c2", true, false, "failure root: ?c1"},
		{"allFalse", "c1 c2", false, true, "failure root: ?c1 ?c2"},
		{"allTrue", "!c1 c2", false, true, "success root: ?c1 ?c2 root:start root"},
		{"allFalse", "!c1", true, false, "success root: ?c1 root:start root"},
		{"allTrue", "", false, false, "success root: root:start root"},
		{"anyTrue", "", false, false, "success root: root:start root"},
		{"anyFalse", "", false, false, "success root: root:start root"},
		{"allFalse", "", false, false, "success root: root:start root"},
	}
	for _, c := range cases {
		t.Run(c.mode+" "+c.conds, func(t *testing.T) {
			var conds string
			for _, n := range strings.Fields(c.conds) {
				conds += "<condition>" + n + "</condition>"
			}
			h := newHarness(t, bt(`<action id="root" name="act"><conditionMode>`+c.mode+`</conditionMode>`+conds+`</action>`),
				map[string]bool{"c1": c.c1, "c2": c.c2})
			expectSteps(t, h.steps(1), []string{c.want})
		})
	}
}

// TestStep_runawayLimitStopsLoopingSequence: a looping sequence of one
// succeeding action with limit 100 runs the action exactly 50 times.
func TestStep_runawayLimitStopsLoopingSequence(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root" loop="true"><action id="a" name="ok"/></sequence>`), nil)
	st, err := h.agent.Step(1)
	if st != Errored || !errors.Is(err, ErrRunaway) {
		t.Fatalf("got %v, %v; want a run-away error", st, err)
	}
	if n := strings.Count(strings.Join(h.log, " "), "a"); n != 50 {
		t.Errorf("action ran %d times, want 50", n)
	}
	want := "test.xml:1:47: agent a1: rule a: run-away step: 100 rules run without one returning running (limit 100): (root, a) x 50"
	if err.Error() != want {
		t.Errorf("error:\n got  %s\n want %s", err, want)
	}
	if h.agent.Cursor() != Root {
		t.Errorf("cursor after a run-away is %s, want the root", h.agent.CursorLabel())
	}
	h.env.RunawayLimit = 10
	h.log = nil
	h.agent.Step(1)
	if n := len(h.log); n != 5 {
		t.Errorf("with limit 10 the action ran %d times, want 5", n)
	}
}

// TestStep_runawayLimitAllowsRunningOnTheLastRun: a run that returns running
// on the limit's count ends the step normally.
func TestStep_runawayLimitAllowsRunningOnTheLastRun(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root"><action id="a" name="ok"/><action id="b" name="run"/></sequence>`), nil)
	h.env.RunawayLimit = 4 // root, a, root, b
	if got := h.step(); got != "running b: a b" {
		t.Errorf("got %s", got)
	}
	h.env.RunawayLimit = 3
	h.agent.Reset()
	if got := h.step(); !strings.HasPrefix(got, "error root: a | run-away step: 3 rules") {
		t.Errorf("got %s", got)
	}
}

const jumpTree = `<behaviorTree><choice id="root">
<sequence id="s1"><action id=".a" name="act"/><action id=".b" name="act"/></sequence>
<sequence id="s2"><action id=".a" name="act"/><action id=".b" name="act"/></sequence>
</choice></behaviorTree>`

func TestStep_jumps(t *testing.T) {
	t.Run("from outside to a leaf: its parent carries on", func(t *testing.T) {
		h := newHarness(t, jumpTree, nil)
		h.script["s1.a"] = []Status{R}
		expectSteps(t, h.steps(1), []string{"running s1.a: s1.a:start s1.a"})
		h.log = nil
		h.must(h.agent.Jump("s2.b"))
		if got := strings.Join(h.log, " "); got != "s1.a:cancel" {
			t.Errorf("jump away from a running action logged %q, want its cancel", got)
		}
		expectSteps(t, h.steps(2), []string{"success root: s2.b:start s2.b", "running s1.a: s1.a:start s1.a"})
	})
	t.Run("from outside to a list rule enters it from its first child", func(t *testing.T) {
		h := newHarness(t, jumpTree, nil)
		h.must(h.agent.Jump("s2"))
		expectSteps(t, h.steps(1), []string{"success root: s2.a:start s2.a s2.b:start s2.b"})
	})
	t.Run("from outside to the cursor changes nothing", func(t *testing.T) {
		h := newHarness(t, jumpTree, nil)
		h.script["s1.a"] = []Status{R}
		h.steps(1)
		h.log = nil
		h.must(h.agent.Jump("s1.a"))
		expectSteps(t, h.steps(1), []string{"running s1.a: s1.a"})
	})
	t.Run("action jumps then succeeds: result discarded, target runs in the same step", func(t *testing.T) {
		h := newHarness(t, jumpTree, nil)
		h.hook["s1.a"] = func(a *Agent) error { return a.Jump("s2.b") }
		expectSteps(t, h.steps(1), []string{"success root: s1.a:start s1.a s2.b:start s2.b"})
	})
	t.Run("action jumps then fails: result discarded", func(t *testing.T) {
		h := newHarness(t, jumpTree, nil)
		h.script["s1.a"] = []Status{F}
		h.hook["s1.a"] = func(a *Agent) error { return a.Jump("s2") }
		expectSteps(t, h.steps(1), []string{"success root: s1.a:start s1.a s2.a:start s2.a s2.b:start s2.b"})
	})
	t.Run("action jumps and runs: the target runs next step, the action is cancelled", func(t *testing.T) {
		h := newHarness(t, jumpTree, nil)
		h.script["s1.a"] = []Status{R}
		h.hook["s1.a"] = func(a *Agent) error { return a.Jump("s2.b") }
		expectSteps(t, h.steps(2), []string{"running s2.b: s1.a:start s1.a s1.a:cancel", "success root: s2.b:start s2.b"})
	})
	t.Run("jump to the rule being run changes nothing", func(t *testing.T) {
		h := newHarness(t, jumpTree, nil)
		h.hook["s1.a"] = func(a *Agent) error { return a.Jump("s1.a") }
		expectSteps(t, h.steps(1), []string{"success root: s1.a:start s1.a s1.b:start s1.b"})
	})
	t.Run("a condition may jump", func(t *testing.T) {
		h := newHarness(t, bt(`<choice id="root"><action id="a" name="act"><condition>c</condition></action><action id="b" name="act"/></choice>`), map[string]bool{"c": true})
		h.hook["?c"] = func(a *Agent) error { return a.Jump("b") }
		expectSteps(t, h.steps(1), []string{"success root: ?c a:start a b:start b"})
	})
	t.Run("unknown id is an error", func(t *testing.T) {
		h := newHarness(t, jumpTree, nil)
		err := h.agent.Jump("nope")
		if !errors.Is(err, ErrUnknownID) || err.Error() != `agent a1: cannot jump to "nope": the tree has no rule with that id` {
			t.Errorf("got %v", err)
		}
	})
}

func TestStep_cancel(t *testing.T) {
	tree := bt(`<sequence id="root"><action id="a" name="act"><condition>c</condition></action></sequence>`)
	t.Run("conditions failing while running cancel the action", func(t *testing.T) {
		h := newHarness(t, tree, map[string]bool{"c": true})
		h.script["a"] = []Status{R}
		got := h.steps(2)
		h.conds["c"] = false
		got = append(got, h.steps(1)...)
		expectSteps(t, got, []string{"running a: ?c a:start a", "running a: ?c a", "failure root: ?c a:cancel"})
	})
	t.Run("a finished action is never cancelled", func(t *testing.T) {
		h := newHarness(t, tree, map[string]bool{"c": true})
		h.script["a"] = []Status{R, S}
		got := h.steps(2)
		h.must(h.agent.Reset())
		h.must(h.agent.Close())
		expectSteps(t, got, []string{"running a: ?c a:start a", "success root: ?c a"})
		if strings.Contains(strings.Join(h.log, " "), "cancel") {
			t.Errorf("cancel called for a finished action: %v", h.log)
		}
	})
	t.Run("reset and close cancel a running action", func(t *testing.T) {
		for _, op := range []string{"reset", "close"} {
			h := newHarness(t, tree, map[string]bool{"c": true})
			h.script["a"] = []Status{R}
			h.steps(1)
			h.log = nil
			if op == "reset" {
				h.must(h.agent.Reset())
			} else {
				h.must(h.agent.Close())
			}
			if got := strings.Join(h.log, " "); got != "a:cancel" {
				t.Errorf("%s logged %q, want a:cancel", op, got)
			}
		}
	})
	t.Run("an error in a running action cancels it and resets the agent", func(t *testing.T) {
		h := newHarness(t, tree, map[string]bool{"c": true})
		h.script["a"] = []Status{R}
		h.steps(1)
		h.hook["a"] = func(a *Agent) error { return errors.New("boom") }
		expectSteps(t, h.steps(1), []string{`error root: ?c a a:cancel | action "act": boom`})
	})
}

func TestStep_errorsCarryRuleAndPosition(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root">
  <action name="act"/>
</sequence>`), nil)
	boom := errors.New("boom")
	h.hook["action@test.xml:2:3"] = func(a *Agent) error { return boom }
	st, err := h.agent.Step(1)
	if st != Errored || !errors.Is(err, boom) || !errors.Is(err, ErrAction) {
		t.Fatalf("got %v %v", st, err)
	}
	if want := `test.xml:2:3: agent a1: rule action@test.xml:2:3: action "act": boom`; err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
}

func TestStep_actionReturningInvalidStatusIsAnError(t *testing.T) {
	reg := NewRegistry()
	reg.RegisterAction("bad", ActionFunc(func(a *Agent, p Params) (Status, error) { return Paused, nil }))
	a := mustAgent(t, bt(`<action id="root" name="bad"/>`), reg)
	if _, err := a.Step(1); err == nil || !strings.Contains(err.Error(), "returned paused; an action returns success, failure or running") {
		t.Errorf("got %v", err)
	}
}

func mustAgent(t *testing.T, xml string, reg *Registry) *Agent {
	t.Helper()
	tree, err := LoadBytes("test.xml", []byte(xml), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b.NewAgent("a1", nil)
}
