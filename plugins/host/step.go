package host

import "github.com/btrun/btrun/runtime"

// Outcome is how one agent's step ended.
type Outcome struct {
	Status runtime.Status // Success, Failure, Running or Errored
	Err    error
}

// StepAll runs one step of every agent in rounds, as SPEC §8 says: every
// agent, in order, runs until its step ends or reaches a plugin call; the
// round's calls go to each plugin as one batch (Flush); the waiting agents
// resume, in order, with their replies; and so on until every step has
// ended. step starts an agent's step (for instance a.StepAt(t)). set may be
// nil when there are no plugins.
//
// The error is not an agent's: agents' errors are in their Outcomes. It is
// returned only when the batching contract is broken (see Flush); the
// outcomes are then incomplete.
func StepAll(agents []*runtime.Agent, step func(a *runtime.Agent) (runtime.Status, error), set *Set) ([]Outcome, error) {
	return StepAllInto(make([]Outcome, len(agents)), agents, step, set)
}

// StepAllInto is StepAll writing into out (resized to len(agents)), so
// that a game loop reuses one slice.
func StepAllInto(out []Outcome, agents []*runtime.Agent, step func(a *runtime.Agent) (runtime.Status, error), set *Set) ([]Outcome, error) {
	if cap(out) < len(agents) {
		out = make([]Outcome, len(agents))
	}
	out = out[:len(agents)]
	var waiting []int32
	for i, a := range agents {
		st, err := step(a)
		out[i] = Outcome{st, err}
		if st == runtime.Paused {
			waiting = append(waiting, int32(i))
		}
	}
	if set == nil {
		return out, nil
	}
	for len(waiting) > 0 {
		if err := set.Flush(); err != nil {
			return out, err
		}
		next := waiting[:0]
		for _, i := range waiting {
			st, err := set.Resume(agents[i])
			out[i] = Outcome{st, err}
			if st == runtime.Paused {
				next = append(next, i)
			}
		}
		waiting = next
	}
	return out, nil
}
