package runtime_test

import (
	"fmt"
	"sync/atomic"

	"github.com/btrun/btrun/runtime"
)

// ExampleWorkers steps 1,000 agents on 4 goroutines. Each worker has its
// own Env (and whatever the game keeps per thread), agents of one tree share
// the bound tree and the gates; the results are those of one goroutine.
func ExampleWorkers() {
	const xml = `<behaviorTree>
  <gates><gate name="door" users="2"/></gates>
  <choice id="root">
    <action id="through" name="walk" gate="door"/>
    <action id="wait" name="walk"/>
  </choice>
</behaviorTree>`
	tree, err := runtime.LoadBytes("door.xml", []byte(xml), runtime.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var walks atomic.Int64 // actions run on several goroutines at once
	reg := runtime.NewRegistry()
	reg.RegisterAction("walk", runtime.ActionFunc(func(a *runtime.Agent, p runtime.Params) (runtime.Status, error) {
		walks.Add(1)
		return runtime.Running, nil
	}))
	bound, err := runtime.Bind(tree, reg, runtime.BindOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	gates := runtime.NewGates()
	if err := gates.Add(bound); err != nil {
		fmt.Println(err)
		return
	}

	const n, agents = 4, 1000
	w := runtime.NewWorkers(n, gates) // gates resolve takes at the end of each round
	defer w.Close()                   // ends its goroutines
	envs := make([]*runtime.Env, n)
	for k := range envs {
		envs[k] = &runtime.Env{Gates: gates, Seed: 1}
	}
	all := make([]*runtime.Agent, agents)
	w.Of = make([]int32, agents)
	for i := range all {
		k := i * n / agents // a contiguous run of agents per worker
		w.Of[i] = int32(k)
		all[i] = bound.NewAgent(fmt.Sprintf("walker-%d", i+1), envs[k])
	}
	for step := 1; step <= 10; step++ {
		outcomes, err := w.StepAt(all, float64(step)*0.1)
		if err != nil {
			fmt.Println(err)
			return
		}
		_ = outcomes // each agent's Status and error, in the order of all
	}
	fmt.Println(all[0].CursorLabel(), all[1].CursorLabel(), all[999].CursorLabel(), walks.Load())
	// Output: through through wait 10000
}
