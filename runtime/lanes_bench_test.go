package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// twoLaneTree is the benchmark's parallel: an agent walks while it aims;
// when the walk ends (or fails) the aiming is cancelled, it rests, and it
// starts over. Each agent-step runs both lanes, and every few steps the
// parallel finishes, cancels a lane and is entered again.
const twoLaneTree = `<behaviorTree><sequence id="root" loop="true">
  <parallel id="move" success="1">
    <action id="walk" name="walk"/>
    <action id="aim" name="aim"/>
  </parallel>
  <action id="rest" name="rest"/>
</sequence></behaviorTree>`

func twoLaneAgents(tb testing.TB, n int) []*Agent {
	tb.Helper()
	reg := NewRegistry()
	for i, name := range []string{"walk", "aim", "rest"} {
		period := uint64(5 + 2*i)
		reg.RegisterAction(name, &Lifecycle{
			OnRun: func(a *Agent, p Params) (Status, error) {
				if a.FirstRun() {
					return Running, nil // so that a step never loops back to the same action
				}
				switch (a.StepCount() + a.UserData().(*benchAgent).seed) % period {
				case 0:
					return Success, nil
				case 1:
					if name == "walk" {
						return Failure, nil
					}
				}
				return Running, nil
			},
			OnCancel: func(a *Agent, p Params) error { return nil },
		})
	}
	tree, err := LoadBytes("lanes.xml", []byte(twoLaneTree), LoadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return seedAgents(b, n, &Env{})
}

// BenchmarkParallel_twoLanes steps 10,000 agents of twoLaneTree; one op is
// one agent-step.
func BenchmarkParallel_twoLanes(b *testing.B) {
	agents := twoLaneAgents(b, 10000)
	for _, a := range agents { // the first entry allocates each agent's lanes
		a.Step(0.1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := agents[i%len(agents)].Step(0.1); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParallel_stepDoesNotAllocate: after an agent's first entry into a
// parallel, running lanes, finishing the parallel, cancelling lanes and
// entering it again allocate nothing.
func TestParallel_stepDoesNotAllocate(t *testing.T) {
	agents := twoLaneAgents(t, 100)
	finished := 0
	for range 50 { // warm up: scratch buffers and each agent's lanes are made once
		for _, a := range agents {
			a.Step(0.1)
			if a.CursorLabel() == "rest" {
				finished++
			}
		}
	}
	if finished == 0 {
		t.Fatal("no parallel finished in the warm-up: the tree does not exercise what it should")
	}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		agents[i%len(agents)].Step(0.1)
		i++
	})
	if allocs != 0 {
		t.Errorf("a step allocates %v times, want 0", allocs)
	}
}

// wideParallel is an agent whose tree is one parallel of n lanes, each an
// action that keeps running, so that every step gives every lane a turn.
func wideParallel(tb testing.TB, n int) *Agent {
	tb.Helper()
	reg := NewRegistry()
	reg.RegisterAction("run", ActionFunc(func(a *Agent, p Params) (Status, error) { return Running, nil }))
	var b strings.Builder
	b.WriteString(`<behaviorTree><parallel id="p">`)
	for i := range n {
		fmt.Fprintf(&b, `<action id="l%d" name="run"/>`, i)
	}
	b.WriteString(`</parallel></behaviorTree>`)
	return bindXML(tb, reg, b.String()).NewAgent("a", &Env{RunawayLimit: MaxRunawayLimit})
}

// BenchmarkParallel_wide steps an agent whose parallel has 5,000 or 20,000
// lanes: one op is one step, which gives every lane a turn (running) and
// checks the parallel's counts after each; ns/lane is the cost of one
// lane's turn, which must not grow with the number of lanes.
func BenchmarkParallel_wide(b *testing.B) {
	for _, n := range []int{5000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			a := wideParallel(b, n)
			a.Step(0.1) // enters it: the lanes are allocated
			b.ResetTimer()
			for range b.N {
				if st, err := a.Step(0.1); st != Running || err != nil {
					b.Fatal(st, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/lane")
		})
	}
}
