package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// whyLines writes an agent's reasons of its last step, one per line.
func whyLines(a *Agent) []string {
	rules := a.Tree().Tree.Rules
	var out []string
	for _, w := range a.Whys() {
		switch w.Kind {
		case WhyCondition:
			out = append(out, fmt.Sprintf("%s: %s=%t (%s)", rules[w.Rule].Label, w.Name, w.Result, w.Read))
		case WhyScore, WhyWeight:
			out = append(out, fmt.Sprintf("%s: %s %s %g", rules[w.Rule].Label, w.Kind, rules[w.Child].Label, w.Value))
		case WhyOrder:
			var l []string
			for _, c := range w.Order {
				l = append(l, rules[c].Label)
			}
			out = append(out, fmt.Sprintf("%s: order %s", rules[w.Rule].Label, strings.Join(l, " ")))
		case WhyRefused:
			out = append(out, fmt.Sprintf("%s: refused by %s (%s)", rules[w.Rule].Label, w.Name, w.Read))
		}
	}
	return out
}

type nopObserver struct{}

func (nopObserver) StepDone(*Agent, []RuleRun, Status, error) {}

func expectWhys(t *testing.T, step int, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("step %d: whys\n got  %s\n want %s", step, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

// Conditions of every kind, with what they read, worked out by hand.
func TestExplain_conditionsSayWhatTheyRead(t *testing.T) {
	h := newHarnessOpts(t, `<behaviorTree>
  <variables><variable name="Alarmed"/><variable name="Calm" default="true"/></variables>
  <signals><signal name="Hurt" expires="1"/></signals>
  <timestamps><timestamp name="Seen"/></timestamps>
  <gates><gate name="door" users="1" cooldown="2"/></gates>
  <choice id="root">
    <action name="ok" id="attack"><condition>Alarmed</condition></action>
    <action name="ok" id="flee"><condition>Calm</condition><condition>!Hurt.held</condition><condition>near</condition></action>
    <action name="ok" id="look"><condition>Seen.lessThan</condition><parameter name="Seen.lessThan">1.5</parameter></action>
    <action name="ok" id="wait"><conditionMode>anyTrue</conditionMode><condition>Seen.set</condition><condition>door.full</condition></action>
  </choice>
</behaviorTree>`, map[string]bool{"near": false}, BindOptions{})
	h.env.Explain = true
	h.step()
	expectWhys(t, 1, whyLines(h.agent), []string{
		"attack: Alarmed=false (Alarmed=false)",
		"flee: Calm=true (Calm=true)",
		"flee: !Hurt.held=true (no stimulus)",
		"flee: near=false ()", // a host's condition: what it read is its own
		"look: Seen.lessThan=false (Seen unset)",
		"wait: Seen.set=false (Seen unset)",
		"wait: door.full=false (door 0/1 held)",
	})
	// At t=1 (after the step, t=2 during it): Hurt arrives at 1.5, Seen set at 1.
	h.must(h.agent.SignalAt("Hurt", 1.5))
	h.agent.SetStampAt(0, 1)
	h.conds["near"] = true
	h.step()
	expectWhys(t, 2, whyLines(h.agent), []string{
		"attack: Alarmed=false (Alarmed=false)",
		"flee: Calm=true (Calm=true)",
		"flee: !Hurt.held=false (stimulus age 0.5 s)",
		"look: Seen.lessThan=true (Seen age 1 s)",
	})
	h.step() // t=3: Hurt (1.5 + 1) has expired; Seen is 2 s old
	expectWhys(t, 3, whyLines(h.agent), []string{
		"attack: Alarmed=false (Alarmed=false)",
		"flee: Calm=true (Calm=true)",
		"flee: !Hurt.held=true (stimulus expired, age 1.5 s)",
		"flee: near=true ()",
	})
	h.env.Explain = false
	h.step()
	if w := h.agent.Whys(); w != nil {
		t.Errorf("a step without Explain recorded %v", w)
	}
}

// Scores and weights with the order drawn; a refusal by a cooldown, with
// the time left.
func TestExplain_scoresWeightsOrdersAndCooldowns(t *testing.T) {
	h := newHarnessOpts(t, `<behaviorTree>
  <sequence id="root">
    <choice id="pick" order="score">
      <action name="fail" id="a"><parameter name="choice.score">2</parameter></action>
      <action name="fail" id="b"><parameter name="choice.score">5</parameter></action>
      <action name="fail" id="c"><parameter name="choice.score">0</parameter></action>
    </choice>
  </sequence>
</behaviorTree>`, nil, BindOptions{})
	h.env.Explain = true
	h.step()
	expectWhys(t, 1, whyLines(h.agent), []string{
		"pick: score a 2", "pick: score b 5", "pick: score c 0",
		"pick: order b a", // highest first; c scored 0 and is not tried
	})
	if got := strings.Join(h.leaves, " "); got != "b=failure a=failure" {
		t.Errorf("runs %s; want b, then a", got)
	}

	w := newHarnessOpts(t, `<behaviorTree>
  <choice id="root">
    <choice id="pick" order="weighted" cooldown="1.5">
      <action name="ok" id="a"><parameter name="choice.weight">3</parameter></action>
      <action name="ok" id="b"><parameter name="choice.weight">0</parameter></action>
      <action name="ok" id="c"><parameter name="choice.weight">1</parameter></action>
    </choice>
    <action name="ok" id="idle"/>
  </choice>
</behaviorTree>`, nil, BindOptions{})
	w.env.Explain = true
	w.env.Observer = nopObserver{}
	w.step()
	// The draw, by hand: u = float() x 4 over a (3) and c (1): a when u < 3.
	var rng Rand
	rng.SetState(AgentRandState(w.env.Seed, "a1"))
	u := rng.Float64() * 4
	first, second := "a", "c"
	if u >= 3 {
		first, second = "c", "a"
	}
	expectWhys(t, 1, whyLines(w.agent), []string{
		"pick: weight a 3", "pick: weight b 0", "pick: weight c 1",
		"pick: order " + first + " " + second + " b", // weight 0 last
	})
	w.step() // t=2: left at 1, cooldown 1.5: 0.5 s left
	expectWhys(t, 2, whyLines(w.agent), []string{"pick: refused by cooldown (0.5 s left)"})
}

// A gate full, then cooling, refuses a rule's arrival with its state.
func TestExplain_gateRefusals(t *testing.T) {
	tr, err := LoadBytes("g.xml", []byte(`<behaviorTree>
  <gates><gate name="gun" users="1" cooldown="2"/></gates>
  <choice id="root"><action name="bt.wait" id="use" gate="gun"><parameter name="wait.seconds">1</parameter></action><success id="idle"/></choice>
</behaviorTree>`), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(tr, NewRegistry(), BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gates := NewGates()
	if err := gates.Add(b); err != nil {
		t.Fatal(err)
	}
	env := &Env{Gates: gates, Explain: true, Observer: nopObserver{}}
	x, y := b.NewAgent("x", env), b.NewAgent("y", env)
	rounds := &Rounds{Resolvers: []Resolver{gates}}
	var got []string
	for i := range 3 {
		if _, err := rounds.StepAt([]*Agent{x, y}, float64(i+1)); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join(whyLines(y), "; "))
	}
	want := []string{
		"use: refused by gate gun (gun 1/1 held)",                   // x took it first
		"use: refused by gate gun (gun 0/1 held, cooling 2 s more)", // x let it go at t=2
		"use: refused by gate gun (gun 0/1 held, cooling 1 s more)",
	}
	expectWhys(t, 0, got, want)
}

// TestExplain_withoutAnObserver: a step that records is run as an
// observed one, so an Env with Explain and no Observer records the same
// reasons as one with an Observer, whether or not the step could take the
// quiet path (a choice of plain actions, which the fast path runs).
func TestExplain_withoutAnObserver(t *testing.T) {
	xml := bt(`<variables><variable name="V"/></variables>
<choice id="root"><action id="a" name="ok"><condition>V</condition></action><action id="b" name="ok"><condition>!V</condition></action></choice>`)
	var got [2][]string
	for k, observed := range []bool{true, false} {
		h := newHarness(t, xml, nil)
		h.env.Observer = nil
		if observed {
			h.env.Observer = nopObserver{}
		}
		h.env.Explain = true
		for step := 1; step <= 3; step++ {
			if _, err := h.agent.Step(1); err != nil {
				t.Fatal(err)
			}
			got[k] = append(got[k], fmt.Sprintf("step %d: %s", step, strings.Join(whyLines(h.agent), "; ")))
			h.must(h.agent.SetVar("V", step == 2))
		}
	}
	if a, b := strings.Join(got[0], "\n"), strings.Join(got[1], "\n"); a != b || !strings.Contains(a, "a: V=false (V=false); b: !V=true (V=false)") {
		t.Errorf("observed:\n%s\nnot observed:\n%s", a, b)
	}
}
