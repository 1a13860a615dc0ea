// Package peerwork is the peer workload: the Drag[en]gine example tree run
// the way BehaviorTree.CPP and go-behaviortree run it in the comparisons the
// documentation quotes, so that "ns per agent-step" means the same work in
// every implementation.
//
// Per agent there is a tick counter t, incremented after every step of that
// agent, and one call counter per action. The conditions are
// playerNearby = (t/7)%2 == 1 (integer division) and playerNotNearby, its
// negation. Each action call does v = counter%4, counter++ and returns
// running for v = 0 or 1, success for 2 and failure for 3; the first run
// after arrival counts as a call like any other. Over 100,000 steps of one
// agent that is 197,322 condition evaluations and 120,087 action calls.
//
// The package holds the workload twice: bound to btrun's runtime (Registry,
// NewAgents, StepAll) and as a hand-written Go switch over a 32-byte struct
// (Switch), the floor any tree runtime is measured against. The benchmarks
// in package runtime and the callgrind driver (runtime/internal/peerbench)
// both use it.
package peerwork

import (
	"fmt"

	"github.com/btrun/btrun/runtime"
)

// Actions are the example tree's actions, in the order of the tree's root
// choice; an action's index is the index of its call counter.
var Actions = [5]string{"wander", "turning", "wait", "flee", "backOff"}

// Totals over StepsPerAgent steps of one agent, as the workload defines them.
const (
	StepsPerAgent   = 100000
	TotalConditions = 197322
	TotalCalls      = 120087
)

// Data is one btrun agent's counters (its UserData).
type Data struct {
	T     uint64    // steps this agent has finished
	Calls [5]uint32 // calls of each action, indexed as Actions
}

// Nearby is playerNearby at tick t.
func Nearby(t uint64) bool { return (t/7)%2 == 1 }

// results maps v = counter%4 to the call's result.
var results = [4]runtime.Status{runtime.Running, runtime.Running, runtime.Success, runtime.Failure}

// Counts are the calls a counting Registry has seen.
type Counts struct {
	Conditions uint64
	Calls      uint64
}

// Registry registers the workload's conditions and actions, as the
// leanest Go functions the runtime takes (runtime.LeanCondition,
// runtime.LeanAction: functions of the agent alone). With count set, every
// condition evaluation and action call is also counted there (for the test
// of the totals; the benchmarks pass nil and pay nothing for it).
func Registry(count *Counts) *runtime.Registry {
	reg := runtime.NewRegistry()
	nearby := func(a *runtime.Agent) bool {
		d, _ := a.UserData().(*Data)
		return Nearby(d.T)
	}
	notNearby := func(a *runtime.Agent) bool {
		d, _ := a.UserData().(*Data)
		return !Nearby(d.T)
	}
	if count != nil {
		inNearby, inNot := nearby, notNearby
		nearby = func(a *runtime.Agent) bool { count.Conditions++; return inNearby(a) }
		notNearby = func(a *runtime.Agent) bool { count.Conditions++; return inNot(a) }
	}
	reg.RegisterCondition("playerNearby", runtime.LeanCondition(nearby))
	reg.RegisterCondition("playerNotNearby", runtime.LeanCondition(notNearby))
	for i, name := range Actions {
		run := func(a *runtime.Agent) runtime.Status {
			d, _ := a.UserData().(*Data)
			v := d.Calls[i] % 4
			d.Calls[i]++
			return results[v]
		}
		if count != nil {
			inner := run
			run = func(a *runtime.Agent) runtime.Status {
				count.Calls++
				return inner(a)
			}
		}
		reg.RegisterAction(name, runtime.LeanAction(run))
	}
	return reg
}

// FuncRegistry is Registry with the actions and conditions registered as
// runtime.ActionFunc and runtime.ConditionFunc, which take the rule's
// Params and return an error besides: what a step costs a tree of such
// functions. With count set, calls are counted as in Registry.
func FuncRegistry(count *Counts) *runtime.Registry {
	reg := runtime.NewRegistry()
	nearby := func(a *runtime.Agent, _ runtime.Params) (bool, error) {
		d, _ := a.UserData().(*Data)
		return Nearby(d.T), nil
	}
	notNearby := func(a *runtime.Agent, _ runtime.Params) (bool, error) {
		d, _ := a.UserData().(*Data)
		return !Nearby(d.T), nil
	}
	if count != nil {
		nearby, notNearby = countCond(count, nearby), countCond(count, notNearby)
	}
	reg.RegisterCondition("playerNearby", runtime.ConditionFunc(nearby))
	reg.RegisterCondition("playerNotNearby", runtime.ConditionFunc(notNearby))
	return registerActions(reg, count, func(run func(*runtime.Agent, runtime.Params) (runtime.Status, error)) runtime.Action {
		return runtime.ActionFunc(run)
	})
}

// OpaqueRegistry is Registry with the actions and conditions registered as
// values of types of their own (as Lua's, plugins' and most embedders' are)
// rather than as ActionFunc and ConditionFunc: the loop calls them through
// the Action and Condition interfaces, and the fast path does not take
// them. It measures what a step costs a tree of such actions.
func OpaqueRegistry() *runtime.Registry {
	reg := runtime.NewRegistry()
	reg.RegisterCondition("playerNearby", opaqueCond(func(a *runtime.Agent, _ runtime.Params) (bool, error) {
		return Nearby(a.UserData().(*Data).T), nil
	}))
	reg.RegisterCondition("playerNotNearby", opaqueCond(func(a *runtime.Agent, _ runtime.Params) (bool, error) {
		return !Nearby(a.UserData().(*Data).T), nil
	}))
	return registerActions(reg, nil, func(run func(*runtime.Agent, runtime.Params) (runtime.Status, error)) runtime.Action {
		return &opaqueAction{run}
	})
}

type opaqueAction struct {
	run func(*runtime.Agent, runtime.Params) (runtime.Status, error)
}

func (o *opaqueAction) Run(a *runtime.Agent, p runtime.Params) (runtime.Status, error) {
	return o.run(a, p)
}

type opaqueCondition struct {
	test func(*runtime.Agent, runtime.Params) (bool, error)
}

func (o *opaqueCondition) Test(a *runtime.Agent, p runtime.Params) (bool, error) { return o.test(a, p) }

func opaqueCond(f func(*runtime.Agent, runtime.Params) (bool, error)) runtime.Condition {
	return &opaqueCondition{f}
}

// registerActions registers the workload's actions, each made an Action by
// wrap.
func registerActions(reg *runtime.Registry, count *Counts, wrap func(func(*runtime.Agent, runtime.Params) (runtime.Status, error)) runtime.Action) *runtime.Registry {
	for i, name := range Actions {
		run := func(a *runtime.Agent, _ runtime.Params) (runtime.Status, error) {
			d, _ := a.UserData().(*Data)
			v := d.Calls[i] % 4
			d.Calls[i]++
			return results[v], nil
		}
		if count != nil {
			inner := run
			run = func(a *runtime.Agent, p runtime.Params) (runtime.Status, error) {
				count.Calls++
				return inner(a, p)
			}
		}
		reg.RegisterAction(name, wrap(run))
	}
	return reg
}

func countCond(count *Counts, f func(*runtime.Agent, runtime.Params) (bool, error)) func(*runtime.Agent, runtime.Params) (bool, error) {
	return func(a *runtime.Agent, p runtime.Params) (bool, error) {
		count.Conditions++
		return f(a, p)
	}
}

// Load loads the example tree from path and binds it to reg.
func Load(path string, reg *runtime.Registry) (*runtime.BoundTree, error) {
	tree, err := runtime.LoadFile(path, runtime.LoadOptions{})
	if err != nil {
		return nil, err
	}
	return runtime.Bind(tree, reg, runtime.BindOptions{})
}

// Agents are n btrun agents of the workload with their counters, which
// live in one slice (one allocation for all of them).
type Agents struct {
	Agents []*runtime.Agent
	Data   []Data
}

// NewAgents makes n agents on b sharing env.
func NewAgents(b *runtime.BoundTree, n int, env *runtime.Env) *Agents {
	g := &Agents{Agents: make([]*runtime.Agent, n), Data: make([]Data, n)}
	for i := range g.Agents {
		g.Agents[i] = b.NewAgent(fmt.Sprintf("agent-%d", i+1), env)
		g.Agents[i].SetUserData(&g.Data[i])
	}
	return g
}

// Step steps agent i once (dt 0.1) and advances its tick counter.
func (g *Agents) Step(i int) error {
	if _, err := g.Agents[i].Step(0.1); err != nil {
		return err
	}
	g.Data[i].T++
	return nil
}

// StepAll steps every agent once, in order, as Step does each: the loop
// walks the agents and their counters side by side rather than calling
// Step, so that the harness adds little to what it measures.
func (g *Agents) StepAll() error {
	data := g.Data[:len(g.Agents)]
	for i, a := range g.Agents {
		if _, err := a.Step(0.1); err != nil {
			return err
		}
		data[i].T++
	}
	return nil
}

// Switch is one agent of the workload written as a Go switch: the counters
// and the index of the action the agent is running (or 0, where a finished
// step leaves it: the root choice starts at its first child). 32 bytes.
type Switch struct {
	T     uint64    // steps this agent has finished
	Calls [5]uint32 // calls of each action, indexed as Actions
	Cur   uint32    // the action running, or 0
}

// Step is one step of the example tree's root choice, by hand: each action
// is tried in order when its condition holds; running keeps the agent on
// it, success ends the step, failure (or a failed condition) moves on; past
// the last action the <success/> rule ends the step.
func (s *Switch) Step() {
	switch s.Cur {
	case 0:
		if !Nearby(s.T) && s.call(0) {
			return
		}
		fallthrough
	case 1:
		if !Nearby(s.T) && s.call(1) {
			return
		}
		fallthrough
	case 2:
		if !Nearby(s.T) && s.call(2) {
			return
		}
		fallthrough
	case 3:
		if Nearby(s.T) && s.call(3) {
			return
		}
		fallthrough
	case 4:
		if Nearby(s.T) && s.call(4) {
			return
		}
	}
	s.Cur = 0
	s.T++
}

// call runs action i and reports whether it ended the step (running or
// success); failure lets the choice move on.
func (s *Switch) call(i uint32) bool {
	v := s.Calls[i] % 4
	s.Calls[i]++
	switch v {
	case 0, 1:
		s.Cur = i
	case 2:
		s.Cur = 0
	default:
		return false
	}
	s.T++
	return true
}

// StepSwitches steps every switch agent once.
func StepSwitches(agents []Switch) {
	for i := range agents {
		agents[i].Step()
	}
}
