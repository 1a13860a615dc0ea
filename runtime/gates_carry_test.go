package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// soloGateTree: an agent alone with its gate uses it for a second, then
// rests; the gate cools down for five seconds after each release.
const soloGateTree = `<behaviorTree>
  <gates><gate name="g" cooldown="5"/></gates>
  <sequence id="root">
    <action id=".use" name="bt.wait" gate="g"><parameter name="wait.seconds">1</parameter></action>
    <action id=".rest" name="bt.wait"><parameter name="wait.seconds">100</parameter></action>
  </sequence>
</behaviorTree>`

// gateText is the one gate of a Gates as text.
func gateText(g *Gates) string {
	gi := g.List()[0]
	return fmt.Sprintf("holders=%v since=%v takes=%d longest=%d", gi.Holders, gi.CoolingSince, gi.Takes, gi.LongestSteps)
}

// TestCarry_gatesOfAnAgentAlone: an agent created without shared gates has
// a Gates of its own, whose releases wait for its next step; a carry keeps
// its hold while it holds, and applies a release it requested at the step
// and time it requested it, so the cooldown runs as without the carry.
func TestCarry_gatesOfAnAgentAlone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps int
		want  string
	}{
		{"holding", 2, "holders=[solo] since=NaN takes=1 longest=1"},
		{"released in its last step", 3, "holders=[] since=1.5 takes=1 longest=2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bindXML(t, NewRegistry(), soloGateTree)
			a := b.NewAgent("solo", &Env{})
			for range tc.steps {
				if _, err := a.Step(0.5); err != nil {
					t.Fatal(err)
				}
			}
			carried, warnings := carryAll(t, []*Agent{a}, bindXML(t, NewRegistry(), soloGateTree))
			n := carried[0]
			if len(warnings) > 0 {
				t.Errorf("warnings %q", warnings)
			}
			if n.Gates() == a.Gates() {
				t.Fatal("the carried agent shares the old agent's gates")
			}
			if got := gateText(n.Gates()); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if got, want := gateText(n.Gates()), gateText(a.Gates()); got != want {
				t.Errorf("carried %s, the old agent's %s", got, want)
			}
		})
	}
}

// TestCarry_gateSettingsAndRules: carried to a version whose gate lets
// fewer agents in, the holders keep it; to a version whose holding rule
// names another gate, the agent lets the old one go (the cooldown runs from
// its time) and does not hold the new one (it did not take it).
func TestCarry_gateSettingsAndRules(t *testing.T) {
	two := strings.Replace(soloGateTree, `<gate name="g" cooldown="5"/>`, `<gate name="g" users="2" cooldown="5"/><gate name="h"/>`, 1)
	env := &Env{Gates: NewGates()}
	b := bindXML(t, NewRegistry(), two)
	if err := env.Gates.Add(b); err != nil {
		t.Fatal(err)
	}
	agents := []*Agent{b.NewAgent("a", env), b.NewAgent("b", env)}
	if _, err := StepRounds(nil, agents, func(a *Agent) (Status, error) { return a.Step(0.5) }, env.Gates); err != nil {
		t.Fatal(err)
	}
	if got, want := gateText(env.Gates), "holders=[a b] since=NaN takes=2 longest=0"; got != want {
		t.Fatalf("before: %s, want %s", got, want)
	}
	for _, tc := range []struct {
		name, xml string
		want      string
		warning   string
	}{
		{"fewer users", strings.Replace(two, `users="2"`, `users="1"`, 1), "holders=[a b] since=NaN takes=2 longest=0",
			`gate "g" now lets 1 agents hold it and 2 do`},
		{"rule names another gate", strings.Replace(two, `gate="g"`, `gate="h"`, 1), "holders=[] since=0.5 takes=2 longest=0",
			`agent a lets gate "g" go: none of its active rules holds it in the new version`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := bindXML(t, NewRegistry(), tc.xml)
			nenv := &Env{Gates: NewGates()}
			if err := nenv.Gates.Add(nb); err != nil {
				t.Fatal(err)
			}
			to := []*Agent{nb.NewAgent("a", nenv), nb.NewAgent("b", nenv)}
			p, err := PlanCarry(agents, to, nil, nil, []*RuleMap{MapRules(b.Tree, nb.Tree)})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Apply(); err != nil {
				t.Fatal(err)
			}
			if got := gateText(nenv.Gates); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if ws := strings.Join(p.Warnings(), "\n"); !strings.Contains(ws, tc.warning) {
				t.Errorf("no warning %q in\n%s", tc.warning, ws)
			}
			for _, a := range to {
				for _, name := range []string{"g", "h"} {
					held := tc.name == "fewer users" && name == "g"
					if slot, _ := a.GateSlot(name); (slot > 0) != held {
						t.Errorf("%s: slot %d of %s", a.ID(), slot, name)
					}
				}
			}
		})
	}
}

// TestCarry_toATreeWithoutGates: carried to a version that declares no
// gate, a holder keeps its place (its rule is still there) and lets the
// gate go, with a warning naming it.
func TestCarry_toATreeWithoutGates(t *testing.T) {
	b := bindXML(t, NewRegistry(), soloGateTree)
	a := b.NewAgent("solo", &Env{})
	if _, err := a.Step(0.5); err != nil {
		t.Fatal(err)
	}
	plain := strings.NewReplacer(`<gates><gate name="g" cooldown="5"/></gates>`, ``, ` gate="g"`, ``).Replace(soloGateTree)
	carried, warnings := carryAll(t, []*Agent{a}, bindXML(t, NewRegistry(), plain))
	if n := carried[0]; n.Gates() != nil || n.CursorLabel() != "root.use" {
		t.Errorf("carried: gates %v, at %s", n.Gates(), n.CursorLabel())
	}
	if want := `gate "g" is not declared any more; its holders (solo) let it go`; strings.Join(warnings, "\n") != want {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
}
