package runtime

import (
	"fmt"
	"testing"
)

// contendTree: every agent wants the gate each step it does not hold it;
// a holder keeps it a few steps. With 10,000 agents and ten places, each
// step nearly every agent asks and is refused, ten are granted, and about
// three release.
const contendTree = `<behaviorTree>
  <gates><gate name="g" users="10" cooldown="0.1"/></gates>
  <choice id="root">
    <sequence id="use" gate="g">
      <action id=".hold" name="bt.wait"><parameter name="wait.seconds">0.3</parameter></action>
    </sequence>
    <yield id="idle"/>
  </choice>
</behaviorTree>`

func contendAgents(tb testing.TB, n int) ([]*Agent, *Gates) {
	tb.Helper()
	tree, err := LoadBytes("contend.xml", []byte(contendTree), LoadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	b, err := Bind(tree, NewRegistry(), BindOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	gates := NewGates()
	if err := gates.Add(b); err != nil {
		tb.Fatal(err)
	}
	env := &Env{Gates: gates}
	agents := make([]*Agent, n)
	for i := range agents {
		agents[i] = b.NewAgent(fmt.Sprintf("a%d", i+1), env)
	}
	return agents, gates
}

// BenchmarkGates_10000agentsContend steps 10,000 agents contending for a
// gate of ten places in rounds (each step: one round of takes, one of
// resumed steps); one op is one agent-step.
func BenchmarkGates_10000agentsContend(b *testing.B) {
	agents, gates := contendAgents(b, 10000)
	r := Rounds{Resolvers: []Resolver{gates}}
	step := 0
	run := func() {
		step++
		if _, err := r.StepAt(agents, float64(step)*0.1); err != nil {
			b.Fatal(err)
		}
	}
	for range 10 { // the buffers grow to their size
		run()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += len(agents) {
		run()
	}
	st := gates.List()[0]
	b.ReportMetric(float64(st.Refusals)/float64(st.Takes), "refusals/take")
}

// TestGates_contendingAllocatesNothingPerStep: once its buffers have
// grown, a step of agents contending for a gate allocates nothing.
func TestGates_contendingAllocatesNothingPerStep(t *testing.T) {
	agents, gates := contendAgents(t, 500)
	r := Rounds{Resolvers: []Resolver{gates}}
	step := 0
	run := func() {
		step++
		if _, err := r.StepAt(agents, float64(step)*0.1); err != nil {
			t.Fatal(err)
		}
	}
	for range 20 {
		run()
	}
	if allocs := testing.AllocsPerRun(50, run); allocs != 0 {
		t.Errorf("%.1f allocations per step of %d agents", allocs, len(agents))
	}
	st := gates.List()[0]
	if st.Takes < 100 || st.Refusals < 1000 {
		t.Errorf("the agents do not contend: %+v", st.GateStats)
	}
}
