package runtime

import (
	"strings"
	"testing"
)

// TestActive_aRunningRuleOfAFeaturelessTreeStaysActiveInAnEditedTree: a
// tree without features marks its cursor active as every tree does, so an
// action running there, saved and restored (or carried by a hot reload)
// into an edited version of the tree that adds a log parameter and a gate
// to it, goes on running: it is not let in again (its log.start is not
// written a second time) and a gate it never took cannot refuse it without
// its cancel.
func TestActive_aRunningRuleOfAFeaturelessTreeStaysActiveInAnEditedTree(t *testing.T) {
	const plain = `<behaviorTree><choice id="root"><action id="a" name="act"/><action id="b" name="ok"/></choice></behaviorTree>`
	const edited = `<behaviorTree><gates><gate name="g"/></gates><choice id="root">
  <action id="a" name="act" gate="g"><parameter name="log.start">a starts</parameter></action>
  <action id="b" name="ok"/></choice></behaviorTree>`
	for _, how := range []string{"restore", "carry"} {
		t.Run(how, func(t *testing.T) {
			h := newHarness(t, plain, nil)
			h.script["a"] = []Status{R}
			expectSteps(t, h.steps(2), []string{"running a: a:start a", "running a: a"})
			if !h.agent.CursorActive() {
				t.Errorf("the running action of a tree without features is not active")
			}
			tree, err := LoadBytes("test.xml", []byte(edited), LoadOptions{})
			h.must(err)
			b, err := Bind(tree, h.reg, BindOptions{})
			h.must(err)
			// Another agent holds g: a take of it would be refused.
			gates := NewGates()
			h.must(gates.Add(b))
			env := &Env{Observer: h, Logger: h, Gates: gates}
			rounds := Rounds{Resolvers: []Resolver{gates}}
			holder := b.NewAgent("holder", env)
			if _, err := rounds.Step([]*Agent{holder}, func(a *Agent) (Status, error) { return a.Step(1) }); err != nil || holder.GateHoldersAt(0) != 1 {
				t.Fatalf("the holder did not take g: %v", err)
			}
			other := b.NewAgent("a1", env)
			switch how {
			case "restore":
				s, err := h.agent.Snapshot()
				h.must(err)
				_, err = other.Restore(&s)
				h.must(err)
			case "carry":
				p, err := PlanCarry([]*Agent{h.agent}, []*Agent{other}, nil, nil, []*RuleMap{MapRules(h.tree.Tree, b.Tree)})
				h.must(err)
				h.must(p.Apply())
			}
			h.log = h.log[:0]
			out, err := rounds.Step([]*Agent{other}, func(a *Agent) (Status, error) { return a.Step(1) })
			h.must(err)
			got := out[0].Status.String() + " " + other.CursorLabel() + ": " + strings.Join(h.log, " ")
			if got != "running a: a" {
				t.Errorf("after the %s: %s; want a running on, not let in again", how, got)
			}
		})
	}
}

// TestActive_aJumpToAnActiveAncestorKeepsItActiveInEveryTree: a jump to a
// rule that is already active (an ancestor of the cursor) keeps its
// activation, in a tree without features as in any other: the root a
// running action jumps to is the active cursor after the step, observed or
// not. Found by FuzzStep.
func TestActive_aJumpToAnActiveAncestorKeepsItActiveInEveryTree(t *testing.T) {
	for _, xml := range []string{
		`<choice id="root"><action id="a" name="act"/></choice>`,
		`<choice id="root"><action id="a" name="act" cooldown="1"/></choice>`,
	} {
		for _, observed := range []bool{false, true} {
			h := newHarness(t, bt(xml), nil)
			if !observed {
				h.env.Observer = nil
			}
			h.script["a"] = []Status{R}
			h.hook["a"] = func(a *Agent) error { return a.Jump("root") }
			h.step()
			if h.agent.CursorLabel() != "root" || !h.agent.CursorActive() {
				t.Errorf("%s, observed=%v: cursor %s active=%v; want root, active", xml, observed, h.agent.CursorLabel(), h.agent.CursorActive())
			}
		}
	}
}
