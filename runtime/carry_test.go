package runtime

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// featuresRegistry is newFeaturesRun's registry: actions, conditions and a
// scorer that draw from the agents' generators.
func featuresRegistry() *Registry {
	reg := NewRegistry()
	reg.RegisterAction("work", ActionFunc(func(a *Agent, p Params) (Status, error) {
		switch u := a.Rand().Float64(); {
		case u < 0.7:
			return Running, nil
		case u < 0.9:
			return Success, nil
		}
		return Failure, nil
	}))
	reg.RegisterCondition("hurt", ConditionFunc(func(a *Agent, p Params) (bool, error) { return a.Rand().Float64() < 0.08, nil }))
	reg.RegisterCondition("alarm", ConditionFunc(func(a *Agent, p Params) (bool, error) {
		return (a.StepCount()/7+uint64(len(a.ID())))%3 == 0, nil
	}))
	reg.RegisterCondition("calm", ConditionFunc(func(a *Agent, p Params) (bool, error) { return a.Rand().Float64() < 0.85, nil }))
	reg.RegisterScorer("urge", ScorerFunc(func(a *Agent, p Params) (float64, error) { return a.Rand().Float64() - 0.3, nil }))
	return reg
}

// bindXML loads and binds a tree from memory.
func bindXML(t testing.TB, reg *Registry, xml string) *BoundTree {
	t.Helper()
	tree, err := LoadBytes("features.xml", []byte(xml), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// carryAll carries agents over to new agents of b (every agent keeps its
// place) and returns the new agents.
func carryAll(t testing.TB, agents []*Agent, b *BoundTree) ([]*Agent, []string) {
	t.Helper()
	m := MapRules(agents[0].bound.Tree, b.Tree)
	to := make([]*Agent, len(agents))
	for i, a := range agents {
		to[i] = b.NewAgent(a.ID(), a.Env())
	}
	p, err := PlanCarry(agents, to, nil, nil, []*RuleMap{m})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	return to, p.Warnings()
}

// TestCarry_featuresContinueExactly: carrying agents over, at any step, to a
// tree bound again from the same file, or from an edited file whose rules
// are the same but whose lines moved (a comment and a declaration added at
// the top), changes nothing of the run: timeout clocks, cooldowns, choice
// orders, generators and cursors carry over.
func TestCarry_featuresContinueExactly(t *testing.T) {
	const n = 120
	moved := strings.Replace(featuresTree, "<behaviorTree>", "<behaviorTree>\n<!-- edited -->\n<variables><variable name=\"Unused\"/></variables>", 1)
	var whole strings.Builder
	newFeaturesRun(t, &whole).steps(1, n)
	for _, tc := range []struct{ name, xml string }{{"same file", featuresTree}, {"lines moved", moved}} {
		t.Run(tc.name, func(t *testing.T) {
			b := bindXML(t, featuresRegistry(), tc.xml)
			for k := 1; k < n; k += 3 {
				var got strings.Builder
				r := newFeaturesRun(t, &got)
				r.steps(1, k)
				agents, warnings := carryAll(t, r.agents, b)
				if len(warnings) > 0 {
					t.Fatalf("k=%d: warnings %q", k, warnings)
				}
				r.agents = agents
				r.steps(k+1, n)
				if got.String() != whole.String() {
					t.Fatalf("k=%d: the carried run differs:\n%s", k, firstDiff(got.String(), whole.String()))
				}
			}
		})
	}
}

// TestRuleMap_findsRulesByIDThenByPlace: rules with ids are found by id
// wherever they moved; rules without follow their closest ancestor with an
// id, by position; a rule whose id is gone, whose kind or action changed, or
// whose place now holds another rule is gone, with why.
func TestRuleMap_findsRulesByIDThenByPlace(t *testing.T) {
	from := bindXML(t, featuresRegistry(), `<behaviorTree><sequence>
  <action name="work"/>
  <sequence id="patrol"><action name="work"/><yield/></sequence>
  <action id="aim" name="work"/>
  <sequence id="fight"><action name="work"/></sequence>
</sequence></behaviorTree>`).Tree
	to := bindXML(t, featuresRegistry(), `<behaviorTree><sequence>
  <success/>
  <action name="work"/>
  <action id="aim2" name="work"/>
  <choice id="fight"><action name="work"/></choice>
  <sequence id="patrol"><action name="work"/><yield/></sequence>
</sequence></behaviorTree>`).Tree
	m := MapRules(from, to)
	var got []string
	for i, r := range from.Rules {
		if c, ok := m.Rule(int32(i)); ok {
			got = append(got, r.Label+" -> "+to.Rules[c].Label)
		}
	}
	want := []string{
		"sequence@features.xml:1:15 -> sequence@features.xml:1:15",
		"patrol -> patrol",
		"action@features.xml:3:25 -> action@features.xml:6:25",
		"yield@features.xml:3:46 -> yield@features.xml:6:46",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mapped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var gone []string
	for _, g := range m.Gone() {
		gone = append(gone, g.String())
	}
	wantGone := []string{
		"rule action@features.xml:2:3 is now a success rule",
		"rule aim is gone",
		"rule fight is now a choice rule",
		"rule action@features.xml:5:24 has no id, and the rule above it is gone",
	}
	if strings.Join(gone, "\n") != strings.Join(wantGone, "\n") {
		t.Errorf("gone:\n%s\nwant:\n%s", strings.Join(gone, "\n"), strings.Join(wantGone, "\n"))
	}
}

// carryHarness runs the scripted actions of newHarness on a tree and its
// edited version, for carry tests.
func carryHarness(t *testing.T, v1, v2 string) (*harness, *BoundTree) {
	t.Helper()
	h := newHarness(t, `<behaviorTree><success id="root"/></behaviorTree>`, nil)
	h.must(h.reg.RegisterAction("count", ActionFunc(func(a *Agent, p Params) (Status, error) {
		n := uint64(0)
		if b := a.RuleBytes(); len(b) == 8 {
			n = binary.LittleEndian.Uint64(b)
		}
		n++
		h.log = append(h.log, fmt.Sprintf("count=%d", n))
		a.SetRuleBytes(binary.LittleEndian.AppendUint64(nil, n))
		return Running, nil
	})))
	tree, err := LoadBytes("test.xml", []byte(v1), LoadOptions{Rules: h.reg.RuleDecls()})
	h.must(err)
	h.tree, err = Bind(tree, h.reg, BindOptions{})
	h.must(err)
	h.agent = h.tree.NewAgent("a1", h.env)
	tree2, err := LoadBytes("test.xml", []byte(v2), LoadOptions{Rules: h.reg.RuleDecls()})
	h.must(err)
	b2, err := Bind(tree2, h.reg, BindOptions{})
	h.must(err)
	return h, b2
}

// carry carries the harness's agent over to b, resetting it first when it
// loses its place, and returns what was gone. As a game's reload does, the
// new agent follows the old one's slots (FollowSlots), and the rules are
// mapped between the trees the two run (composites when slots hold trees).
func (h *harness) carry(b *BoundTree) string {
	h.t.Helper()
	gone := ""
	a := b.NewAgent(h.agent.ID(), h.env)
	h.must(a.FollowSlots(h.agent))
	m := MapRules(h.agent.Tree().Tree, a.Tree().Tree)
	if g, lost := m.Unplaced(h.agent, a); lost {
		gone = g.String()
		h.log = h.log[:0]
		h.must(h.agent.Reset())
		gone += " [" + strings.Join(h.log, " ") + "]"
	} else {
		m.ExitGone(h.agent)
	}
	p, err := PlanCarry([]*Agent{h.agent}, []*Agent{a}, nil, nil, []*RuleMap{m})
	h.must(err)
	h.must(p.Apply())
	h.agent, h.tree = a, b
	return gone
}

// TestCarry_keptCursorKeepsItsRuleState: an agent whose rule is still there
// (by id, with rules inserted before it) goes on with it as if nothing
// happened: its first run is over, its plugin-style state bytes are kept,
// bt.wait keeps its start time, variables and time are kept.
func TestCarry_keptCursorKeepsItsRuleState(t *testing.T) {
	v1 := `<behaviorTree><sequence id="root">
  <action id=".count" name="count"><condition>!Done</condition></action>
</sequence><variables><variable name="Done"/></variables></behaviorTree>`
	v2 := `<behaviorTree><sequence id="root">
  <action name="ok"/>
  <action name="ok"/>
  <action id=".count" name="count"><condition>!Done</condition></action>
</sequence><variables><variable name="Seen" default="true"/><variable name="Done"/></variables></behaviorTree>`
	h, b2 := carryHarness(t, v1, v2)
	expectSteps(t, h.steps(3), []string{
		"running root.count: count=1", "running root.count: count=2", "running root.count: count=3",
	})
	if gone := h.carry(b2); gone != "" {
		t.Fatalf("lost its place: %s", gone)
	}
	if h.agent.FirstRun() || h.agent.Time() != 3 {
		t.Errorf("first run %v, time %v", h.agent.FirstRun(), h.agent.Time())
	}
	if v, _ := h.agent.Var("Seen"); !v {
		t.Error("a variable new in the tree does not start at its default")
	}
	expectSteps(t, h.steps(2), []string{"running root.count: count=4", "running root.count: count=5"})
}

// TestCarry_goneCursorRestartsAtTheRootCancelledOnce: an agent whose rule's
// id is gone is unplaced; resetting it calls the old action's cancel hook
// once; carried over, it starts again at the root of the new version, its
// variables kept and nothing cancelled again.
func TestCarry_goneCursorRestartsAtTheRootCancelledOnce(t *testing.T) {
	v1 := `<behaviorTree><sequence id="root">
  <action id=".mark" name="bt.variable.set"><parameter name="variable.name">Marked</parameter><parameter name="variable.value">true</parameter></action>
  <action id=".aim" name="act"/>
</sequence><variables><variable name="Marked"/></variables></behaviorTree>`
	v2 := strings.Replace(v1, `id=".aim"`, `id=".aim2"`, 1)
	h, b2 := carryHarness(t, v1, v2)
	h.script["root.aim"] = []Status{Running}
	h.script["root.aim2"] = []Status{Running}
	expectSteps(t, h.steps(2), []string{"running root.aim: root.aim:start root.aim", "running root.aim: root.aim"})
	m := MapRules(h.tree.Tree, b2.Tree)
	to := b2.NewAgent("a1", h.env)
	if _, err := PlanCarry([]*Agent{h.agent}, []*Agent{to}, nil, nil, []*RuleMap{m}); err == nil || !strings.Contains(err.Error(), "rule root.aim is gone; reset it first") {
		t.Errorf("carrying an unplaced agent: %v", err)
	}
	if gone := h.carry(b2); gone != "rule root.aim is gone [root.aim:cancel]" {
		t.Errorf("gone: %q", gone)
	}
	if h.agent.CursorLabel() != "root" || !h.agent.FirstRun() {
		t.Errorf("cursor %s, first run %v", h.agent.CursorLabel(), h.agent.FirstRun())
	}
	if v, _ := h.agent.Var("Marked"); !v {
		t.Error("the variable was not kept")
	}
	expectSteps(t, h.steps(1), []string{"running root.aim2: root.aim2:start root.aim2"})
}

// TestCarry_timeoutsAndCooldownsFollowTheirRules: a running timeout clock
// and a running cooldown are carried to their rules in the edited version,
// found by id (rules were inserted before them) and, for a rule without an
// id, by its place under its parent, though its line moved: the timeout
// fires and the cooldown ends at the same steps as without the edit.
func TestCarry_timeoutsAndCooldownsFollowTheirRules(t *testing.T) {
	v1 := `<behaviorTree><choice id="root">
  <sequence id="strike"><action name="ok" cooldown="8"/></sequence>
  <sequence id="hold" timeout="4"><action id=".wait" name="run"/></sequence>
</choice></behaviorTree>`
	v2 := `<behaviorTree><choice id="root">
  <action id="new" name="fail"/>
  <sequence id="strike">
    <action name="ok" cooldown="8"/>
  </sequence>
  <sequence id="hold" timeout="4"><action id=".wait" name="run"/></sequence>
</choice></behaviorTree>`
	h, b2 := carryHarness(t, v1, v2)
	expectSteps(t, h.steps(3), []string{
		"success root: action@test.xml:2:25",
		"running hold.wait: hold.wait",
		"running hold.wait: hold.wait",
	})
	if gone := h.carry(b2); gone != "" {
		t.Fatalf("lost its place: %s", gone)
	}
	expectSteps(t, h.steps(5), []string{
		"running hold.wait: hold.wait",
		"running hold.wait: hold.wait",
		// t=6: hold has been active since t=2: its timeout fires.
		"failure root:  [timeout hold]",
		// t=7: the ok rule was left at t=1: its cooldown runs until t=9.
		"running hold.wait: new hold.wait",
		"running hold.wait: hold.wait",
	})
}

// TestCarry_lanes: agents in the lanes of a parallel carry over with their
// lanes (each lane's rule state kept) when the lanes' rules are there; an
// agent a lane of which sits on a rule that is gone is unplaced; one whose
// rule the new version puts inside a lane (of a parallel it does not run)
// is unplaced too, with why.
func TestCarry_lanes(t *testing.T) {
	v1 := `<behaviorTree><sequence id="root">
  <parallel id="both"><action id=".a" name="count"/><action id=".b" name="count"/></parallel>
</sequence></behaviorTree>`
	for _, tc := range []struct{ name, v2, gone string }{
		{"kept", strings.Replace(v1, `<sequence id="root">`, `<sequence id="root"><success/>`, 1), ""},
		{"lane rule gone", strings.Replace(v1, `id=".b"`, `id=".c"`, 1), "rule both.b is gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, b2 := carryHarness(t, v1, tc.v2)
			expectSteps(t, h.steps(2), []string{"running both{both.a both.b}: count=1 count=1", "running both{both.a both.b}: count=2 count=2"})
			if gone := h.carry(b2); gone != tc.gone && !strings.HasPrefix(gone, tc.gone+" [") {
				t.Fatalf("gone %q, want %q", gone, tc.gone)
			}
			if tc.gone == "" {
				expectSteps(t, h.steps(1), []string{"running both{both.a both.b}: count=3 count=3"})
			} else {
				expectSteps(t, h.steps(1), []string{"running both{both.a both.c}: count=1 count=1"})
			}
		})
	}
	t.Run("rule moved into a lane", func(t *testing.T) {
		w1 := `<behaviorTree><sequence id="root"><action id="a" name="count"/></sequence></behaviorTree>`
		w2 := `<behaviorTree><sequence id="root"><parallel id="p"><action id="a" name="count"/><action id="b" name="count"/></parallel></sequence></behaviorTree>`
		h, b2 := carryHarness(t, w1, w2)
		h.steps(1)
		if gone := h.carry(b2); !strings.HasPrefix(gone, "rule a cannot keep its place: the saved cursor") || !strings.Contains(gone, "inside a lane of parallel p") {
			t.Errorf("gone %q", gone)
		}
	})
}
