// Command peerbench steps the peer workload (runtime/internal/peerwork) so
// that callgrind can count the instructions of an agent-step: one round of
// every agent first (the setup's last growth: the Env's scratch), then
// -steps more rounds inside stepRounds, the only function worth counting.
//
// From the repository's root:
//
//	go build -o /tmp/peerbench ./runtime/internal/peerbench
//	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.steps \
//	    --toggle-collect='main.stepRounds' /tmp/peerbench -agents 1000 -steps 1000
//	callgrind_annotate /tmp/cg.steps | head -30
//
// The "PROGRAM TOTALS" of that run divided by agents × steps is the
// instructions per agent-step. Every agent starts at t = 0 and the work of a
// step depends on t, so the count depends on the steps, not the agents: a
// thousand steps do 1.970 condition evaluations and 1.200 action calls per
// agent-step, as the full 100,000 do to within 0.2%; a few dozen do not. As a cross-check without the toggle, the
// whole program's count minus that of a setup-only run (-steps 0) gives the
// same figure within a few instructions; callgrind.sh beside this file runs
// both ways and prints the figures. With -opaque the actions and conditions
// are values of types of their own, called through the runtime's
// interfaces, as Lua's and plugins' are, which the fast path does not take;
// with -funcs they are runtime.ActionFunc and runtime.ConditionFunc, which
// take the rule's Params and return an error, rather than the lean forms.
// With -observe the agents' Env has an
// Observer (one that counts the rules run), as a game that traces its
// steps does: those steps record every run in full. GODEBUG=asyncpreemptoff=1 keeps Go's
// preemption signals away, on which callgrind 3.19 aborts.
package main

import (
	"flag"
	"fmt"
	"os"
	goruntime "runtime"
	"time"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/internal/peerwork"
)

func main() {
	agents := flag.Int("agents", 1000, "agents stepped round-robin")
	steps := flag.Int("steps", 1000, "rounds counted after the first (0: setup only)")
	impl := flag.String("impl", "btrun", "btrun, or switch for the hand-written Go switch")
	tree := flag.String("tree", "scripts/ai/dragengine-exampleapp.xml", "the example tree")
	observe := flag.Bool("observe", false, "btrun: step with an Observer that counts the rules run (what a game that traces its steps pays)")
	funcs := flag.Bool("funcs", false, "btrun: register the actions and conditions as runtime.ActionFunc and runtime.ConditionFunc (peerwork.FuncRegistry) rather than their lean forms")
	opaque := flag.Bool("opaque", false, "btrun: register the actions and conditions as types of their own, called through the Action and Condition interfaces, as Lua's and plugins' are (peerwork.OpaqueRegistry)")
	flag.Parse()
	if err := run(*impl, *tree, *agents, *steps, *observe, *opaque, *funcs); err != nil {
		fmt.Fprintln(os.Stderr, "peerbench:", err)
		os.Exit(1)
	}
}

func run(impl, tree string, agents, steps int, observe, opaque, funcs bool) error {
	var (
		round func() error
		calls func() uint64 // action calls so far, all agents
	)
	switch impl {
	case "btrun":
		reg := peerwork.Registry(nil)
		switch {
		case opaque:
			reg = peerwork.OpaqueRegistry()
		case funcs:
			reg = peerwork.FuncRegistry(nil)
		}
		b, err := peerwork.Load(tree, reg)
		if err != nil {
			return err
		}
		env := &runtime.Env{}
		if observe {
			env.Observer = &runCounter{}
		}
		g := peerwork.NewAgents(b, agents, env)
		round = g.StepAll
		calls = func() (n uint64) {
			for i := range g.Data {
				n += sum(g.Data[i].Calls)
			}
			return n
		}
	case "switch":
		s := make([]peerwork.Switch, agents)
		round = func() error { peerwork.StepSwitches(s); return nil }
		calls = func() (n uint64) {
			for i := range s {
				n += sum(s[i].Calls)
			}
			return n
		}
	default:
		return fmt.Errorf("-impl %q: want btrun or switch", impl)
	}
	if err := round(); err != nil {
		return err
	}
	// Count on one thread, with the setup's garbage collected: callgrind
	// follows calls per thread, and the goroutine must not move mid-count.
	goruntime.LockOSThread()
	goruntime.GC()
	before := calls()
	start := time.Now()
	if err := stepRounds(round, steps); err != nil {
		return err
	}
	d := time.Since(start)
	if n := agents * steps; n > 0 {
		fmt.Printf("peerbench: %s, %d agents x %d steps: %.3f action calls and %.1f ns per agent-step\n",
			impl, agents, steps, float64(calls()-before)/float64(n), float64(d.Nanoseconds())/float64(n))
	}
	return nil
}

// runCounter is an Observer that counts the rules run.
type runCounter struct{ runs uint64 }

func (c *runCounter) StepDone(_ *runtime.Agent, runs []runtime.RuleRun, _ runtime.Status, _ error) {
	c.runs += uint64(len(runs))
}

func sum(c [5]uint32) (n uint64) {
	for _, x := range c {
		n += uint64(x)
	}
	return n
}

// stepRounds runs round steps times; callgrind counts this function.
//
//go:noinline
func stepRounds(round func() error, steps int) error {
	for range steps {
		if err := round(); err != nil {
			return err
		}
	}
	return nil
}
