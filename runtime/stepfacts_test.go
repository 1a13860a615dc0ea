package runtime

import (
	"slices"
	"testing"
)

// TestStepFacts_aCopyShowsTheStepThatRanElsewhere: a copy of an agent,
// given the facts of a step its original ran (NewRuleRun, SetStepFacts),
// shows an observer what the original showed: runs that arrived, reasons,
// the interrupt and the gate events.
func TestStepFacts_aCopyShowsTheStepThatRanElsewhere(t *testing.T) {
	xml := bt(`<gates><gate name="gun" users="1"/></gates>
<sequence id="root"><action id="use" name="bt.wait" gate="gun"><parameter name="wait.seconds">5</parameter></action></sequence>`)
	tr, err := LoadBytes("t.xml", []byte(xml), LoadOptions{})
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
	orig, cp := b.NewAgent("x", env), b.NewAgent("x", env)
	rounds := &Rounds{Resolvers: []Resolver{gates}}
	if _, err := rounds.StepAt([]*Agent{orig}, 1); err != nil {
		t.Fatal(err)
	}
	if len(orig.GateEvents()) == 0 {
		t.Fatal("the original took no gate: the test shows nothing")
	}
	for _, arrived := range []bool{true, false} {
		if r := NewRuleRun(1, Running, arrived); r.Arrived() != arrived || r.Rule != 1 || r.Status != Running {
			t.Errorf("NewRuleRun(1, running, %t) = %+v, arrived %t", arrived, r, r.Arrived())
		}
	}
	in := Interrupt{Rule: 0, Kind: InterruptPreempt}
	whys := []Why{{Kind: WhyCondition, Rule: 1, Child: -1, Name: "!Hurt", Result: true, Read: "Hurt=false"}}
	cp.SetStepFacts(whys, in, orig.GateEvents())
	if got, _ := cp.LastInterrupt(); got != in {
		t.Errorf("the copy's interrupt: %+v", got)
	}
	if !slices.Equal(cp.GateEvents(), orig.GateEvents()) {
		t.Errorf("the copy's gate events: %v, the original's %v", cp.GateEvents(), orig.GateEvents())
	}
	if got := cp.Whys(); len(got) != 1 || got[0].Name != "!Hurt" || got[0].Read != "Hurt=false" {
		t.Errorf("the copy's reasons: %v", got)
	}
	cp.SetStepFacts(nil, Interrupt{}, nil)
	if _, ok := cp.LastInterrupt(); ok || len(cp.GateEvents()) != 0 || len(cp.Whys()) != 0 {
		t.Error("facts given again with none: the cp keeps the old ones")
	}
}
