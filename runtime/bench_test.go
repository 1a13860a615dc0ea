package runtime

import (
	"fmt"
	goruntime "runtime"
	"testing"
)

// benchAgent is the game data of one agent in the benchmarks: a seed that
// varies behaviour between agents without any per-step allocation.
type benchAgent struct{ seed uint64 }

// seedRegistry registers cheap, deterministic Go versions of the seed
// example's actions and conditions: an action runs for a few steps then
// succeeds; the player is "nearby" for one stretch in five.
func seedRegistry() *Registry {
	reg := NewRegistry()
	nearby := func(a *Agent) bool {
		k := a.UserData().(*benchAgent)
		return (a.StepCount()/16+k.seed)%5 == 0
	}
	reg.RegisterCondition("playerNearby", ConditionFunc(func(a *Agent, p Params) (bool, error) { return nearby(a), nil }))
	reg.RegisterCondition("playerNotNearby", ConditionFunc(func(a *Agent, p Params) (bool, error) { return !nearby(a), nil }))
	for i, name := range []string{"wander", "turning", "wait", "flee", "backOff"} {
		period := uint64(3 + i)
		reg.RegisterAction(name, ActionFunc(func(a *Agent, p Params) (Status, error) {
			k := a.UserData().(*benchAgent)
			switch (a.StepCount() + k.seed) % period {
			case 0:
				return Success, nil
			case 1:
				if period > 4 {
					return Failure, nil
				}
			}
			return Running, nil
		}))
	}
	return reg
}

func loadSeed(tb testing.TB) *BoundTree {
	tb.Helper()
	tree, err := LoadFile("../scripts/ai/dragengine-exampleapp.xml", LoadOptions{Root: ".."})
	if err != nil {
		tb.Fatal(err)
	}
	b, err := Bind(tree, seedRegistry(), BindOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func seedAgents(b *BoundTree, n int, env *Env) []*Agent {
	agents := make([]*Agent, n)
	for i := range agents {
		agents[i] = b.NewAgent(fmt.Sprintf("wanderer-%d", i+1), env)
		agents[i].SetUserData(&benchAgent{seed: uint64(i * 7)})
	}
	return agents
}

// BenchmarkSeedTree steps 10,000 agents on the seed example tree; one op is
// one agent-step.
func BenchmarkSeedTree(b *testing.B) {
	bound := loadSeed(b)
	env := &Env{}
	agents := seedAgents(bound, 10000, env)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := agents[i%len(agents)].Step(0.1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSeedTree_handWrittenSwitch is the floor: the same behaviour as
// BenchmarkSeedTree written as a Go switch with no tree at all.
func BenchmarkSeedTree_handWrittenSwitch(b *testing.B) {
	type state struct {
		cur, step, seed uint64
	}
	agents := make([]state, 10000)
	for i := range agents {
		agents[i].seed = uint64(i * 7)
	}
	act := func(s *state, period uint64) Status {
		switch (s.step + s.seed) % period {
		case 0:
			return Success
		case 1:
			if period > 4 {
				return Failure
			}
		}
		return Running
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := &agents[i%len(agents)]
		s.step++
		near := (s.step/16+s.seed)%5 == 0
		for {
			var st Status
			switch s.cur {
			case 0:
				if near {
					st = Failure
				} else {
					st = act(s, 3)
				}
			case 1, 2:
				if near {
					st = Failure
				} else {
					st = act(s, 3+s.cur)
				}
			case 3, 4:
				if !near {
					st = Failure
				} else {
					st = act(s, 3+s.cur)
				}
			default:
				st = Success
			}
			if st == Running {
				break
			}
			if st == Success || s.cur == 5 {
				s.cur = 0
				break
			}
			s.cur++
		}
	}
}

// TestSeedTree_stepDoesNotAllocate is the hot-path promise: stepping an agent
// allocates nothing.
func TestSeedTree_stepDoesNotAllocate(t *testing.T) {
	bound := loadSeed(t)
	agents := seedAgents(bound, 100, &Env{})
	for range 50 { // warm up: the env's scratch grows once
		for _, a := range agents {
			a.Step(0.1)
		}
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

// BenchmarkAgentMemory reports the heap bytes one agent costs (without game
// data or action state), measured over 10,000 agents that have stepped. The
// id strings belong to the caller (NewAgent keeps them without copying).
func BenchmarkAgentMemory(b *testing.B) {
	tree, err := LoadFile("../scripts/ai/dragengine-exampleapp.xml", LoadOptions{Root: ".."})
	if err != nil {
		b.Fatal(err)
	}
	reg := NewRegistry()
	reg.RegisterCondition("playerNearby", ConditionFunc(func(a *Agent, p Params) (bool, error) { return a.StepCount()%5 == 0, nil }))
	reg.RegisterCondition("playerNotNearby", ConditionFunc(func(a *Agent, p Params) (bool, error) { return a.StepCount()%5 != 0, nil }))
	for _, n := range []string{"wander", "turning", "wait", "flee", "backOff"} {
		reg.RegisterAction(n, ActionFunc(func(a *Agent, p Params) (Status, error) {
			if a.StepCount()%3 == 0 {
				return Success, nil
			}
			return Running, nil
		}))
	}
	bound, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		b.Fatal(err)
	}
	const n = 10000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("wanderer-%d", i+1)
	}
	env := &Env{}
	var perAgent float64
	agents := make([]*Agent, n) // the caller's slice, not the agents' cost
	for range b.N {
		clear(agents)
		var before, after goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		for i := range agents {
			agents[i] = bound.NewAgent(ids[i], env)
		}
		for range 10 {
			for _, a := range agents {
				a.Step(0.1)
			}
		}
		goruntime.GC()
		goruntime.ReadMemStats(&after)
		perAgent = float64(after.HeapAlloc-before.HeapAlloc) / n
		goruntime.KeepAlive(agents)
	}
	b.ReportMetric(perAgent, "bytes/agent")
}

// guardsTree is a priority list whose two guards watch their conditions
// (abort="lower"): every step checks them while wander runs, and either
// preempts it when its condition turns true.
const guardsTree = `<behaviorTree><choice id="root">
  <action id="flee" name="flee" abort="lower"><condition>hurt</condition></action>
  <action id="fight" name="fight" abort="lower"><condition>enemy</condition></action>
  <action id="wander" name="wander"/>
</choice></behaviorTree>`

func guardsAgents(tb testing.TB, n int) []*Agent {
	tb.Helper()
	reg := NewRegistry()
	reg.RegisterCondition("hurt", ConditionFunc(func(a *Agent, p Params) (bool, error) {
		return (a.StepCount()+a.UserData().(*benchAgent).seed)%23 == 0, nil
	}))
	reg.RegisterCondition("enemy", ConditionFunc(func(a *Agent, p Params) (bool, error) {
		return (a.StepCount()/8+a.UserData().(*benchAgent).seed)%4 == 0, nil
	}))
	for i, name := range []string{"flee", "fight", "wander"} {
		period := uint64(3 + 2*i)
		reg.RegisterAction(name, ActionFunc(func(a *Agent, p Params) (Status, error) {
			if (a.StepCount()+a.UserData().(*benchAgent).seed)%period == 0 {
				return Success, nil
			}
			return Running, nil
		}))
	}
	tree, err := LoadBytes("guards.xml", []byte(guardsTree), LoadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return seedAgents(b, n, &Env{})
}

// BenchmarkGuards_abortLower steps 10,000 agents of guardsTree; one op is
// one agent-step, checks and preemptions included.
func BenchmarkGuards_abortLower(b *testing.B) {
	agents := guardsAgents(b, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := agents[i%len(agents)].Step(0.1); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGuards_stepDoesNotAllocate: watching two guards (checks, preemptions,
// cancels) costs no allocation per step.
func TestGuards_stepDoesNotAllocate(t *testing.T) {
	agents := guardsAgents(t, 100)
	preempts := 0
	for range 50 { // warm up: scratch buffers and each agent's extension grow once
		for _, a := range agents {
			a.Step(0.1)
			if in, ok := a.LastInterrupt(); ok && in.Kind == InterruptPreempt {
				preempts++
			}
		}
	}
	if preempts == 0 {
		t.Fatal("no preemption in the warm-up: the tree does not exercise the checks")
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
