package runtime

import (
	"fmt"
	"testing"
)

// leanRegistry is siblingRegistry with the calls that can be lean
// registered as LeanAction and LeanCondition ("act", "c", "jump", "jumpy",
// "weird"), drawing from the script exactly as those do, so that an agent
// of either registry makes the same calls in the same order.
func leanRegistry(s *leanScript) *Registry {
	reg := NewRegistry()
	jumpTo := func(a *Agent) {
		targets := []string{"a", "b", "f", "root", "j"}
		t := targets[s.next(uint64(len(targets)))]
		fmt.Fprintf(&s.log, "jump@%s->%s ", a.Label(), t)
		if err := a.Jump(t); err != nil {
			panic(err)
		}
	}
	reg.RegisterAction("act", LeanAction(func(a *Agent) Status {
		st := s.status()
		fmt.Fprintf(&s.log, "act@%s first=%v:%s ", a.Label(), a.FirstRun(), st)
		return st
	}))
	reg.RegisterCondition("c", LeanCondition(func(a *Agent) bool {
		v := s.next(3) != 0
		fmt.Fprintf(&s.log, "c@%s:%v ", a.Label(), v)
		return v
	}))
	reg.RegisterCondition("jumpy", LeanCondition(func(a *Agent) bool {
		if s.next(3) == 0 {
			jumpTo(a)
		}
		return s.next(2) == 0
	}))
	reg.RegisterAction("jump", LeanAction(func(a *Agent) Status {
		if s.next(2) == 0 {
			jumpTo(a)
		}
		return s.status()
	}))
	reg.RegisterAction("weird", LeanAction(func(a *Agent) Status {
		if s.next(4) == 0 {
			return Paused
		}
		return s.status()
	}))
	// The others as leanScript.registry has them.
	std := s.registry()
	for _, name := range []string{"slow", "bad", "toggle", "life"} {
		reg.RegisterAction(name, std.actions[name].Action)
	}
	for _, name := range []string{"q", "e"} {
		reg.RegisterCondition(name, std.conditions[name].Condition)
	}
	return reg
}

// leanFormAgent is siblingAgent with leanRegistry's calls, or siblingRegistry's
// (lean false).
func leanFormAgent(t *testing.T, body string, lean, tracked bool, limit int) (*Agent, *leanScript) {
	t.Helper()
	xml := `<behaviorTree><variables><variable name="V"/></variables>` + body + `</behaviorTree>`
	tree, err := LoadBytes("siblings.xml", []byte(xml), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := &leanScript{seed: 11}
	reg := siblingRegistry(s)
	if lean {
		reg = leanRegistry(s)
	}
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tracked {
		trackAll(b)
	}
	return b.NewAgent("a1", &Env{RunawayLimit: limit}), s
}

// TestLean_stepsAsActionFuncs: lean conditions and actions, which the fast
// path calls with the agent alone (hotLean), make a step do what the same
// calls as ConditionFunc and ActionFunc do, quiet or observed, and what the
// loop alone with every hook does calling them through Test and Run: the
// same calls in the same order, results, errors (an invalid status's
// included) and the agent's state, through jumps, pauses, loops, doNotFail
// and run-away limits from the smallest up.
func TestLean_stepsAsActionFuncs(t *testing.T) {
	for name, body := range siblingTrees {
		for _, limit := range []int{1, 2, 3, 5, 40} {
			t.Run(fmt.Sprintf("%s/limit=%d", name, limit), func(t *testing.T) {
				lean, leanS := leanFormAgent(t, body, true, false, limit)
				funcs, funcsS := leanFormAgent(t, body, false, false, limit)
				tracked, trackedS := leanFormAgent(t, body, true, true, limit)
				observed, observedS := leanFormAgent(t, body, true, false, limit)
				observed.env.Observer = &leanRuns{}
				for step := 1; step <= 300; step++ {
					got := stepQuiet(lean, leanS)
					for _, o := range []struct {
						what string
						a    *Agent
						s    *leanScript
					}{{"ActionFunc's", funcs, funcsS}, {"the tracked loop's", tracked, trackedS}, {"an observed step's", observed, observedS}} {
						if want := stepQuiet(o.a, o.s); got != want {
							t.Fatalf("step %d: a lean step and %s differ:\nlean %s\nwant %s", step, o.what, got, want)
						}
					}
				}
			})
		}
	}
}

// TestLean_fastPathCallsThemLean: Bind marks a child whose condition and
// action are both lean for the fast path's lean call (hotLean), and leaves
// a child with one lean and one not to the calls through Test and Run.
func TestLean_fastPathCallsThemLean(t *testing.T) {
	body := `<choice id="root"><action id="ll" name="act"><condition>c</condition></action>` +
		`<action id="lf" name="toggle"><condition>c</condition></action>` +
		`<action id="fl" name="act"><condition>e</condition></action><success id="s"/></choice>`
	a, _ := leanFormAgent(t, body, true, false, 40)
	want := map[string]hotBits{"ll": hotLean, "lf": hotCalls, "fl": hotCalls}
	for id, bit := range want {
		i, ok := a.Tree().Tree.RuleIndex(id)
		if !ok {
			t.Fatalf("no rule %q", id)
		}
		if got := a.bound.hot[i].bits & (hotLean | hotCalls); got != bit {
			t.Errorf("rule %s: bits %#x, want %#x", id, got, bit)
		}
	}
}

// TestAgent_Params: a lean condition and action read the parameters of
// the rule they are called for with Agent.Params, in the fast path and in
// the loop.
func TestAgent_Params(t *testing.T) {
	body := `<choice id="root"><action id="a" name="say"><parameter name="say.what">one</parameter><condition>ok</condition></action>` +
		`<sequence id="sq"><action id=".b" name="say"><parameter name="say.what">two</parameter><condition>ok</condition></action></sequence></choice>`
	xml := `<behaviorTree>` + body + `</behaviorTree>`
	tree, err := LoadBytes("params.xml", []byte(xml), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	reg := NewRegistry()
	reg.RegisterCondition("ok", LeanCondition(func(a *Agent) bool {
		v, _ := a.Params().Get("say.what")
		got = append(got, "cond:"+v)
		return true
	}))
	reg.RegisterAction("say", LeanAction(func(a *Agent) Status {
		v, _ := a.Params().Get("say.what")
		got = append(got, "act:"+v)
		return Failure
	}))
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := b.NewAgent("a1", nil)
	if _, err := a.Step(1); err != nil {
		t.Fatal(err)
	}
	if want := "[cond:one act:one cond:two act:two]"; fmt.Sprint(got) != want {
		t.Errorf("calls %v, want %s", got, want)
	}
}
