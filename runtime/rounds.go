package runtime

import "fmt"

// Rounds: how the steps of many agents are run when a step can pause at a
// call that others answer (a plugin's call, the take of a gate), so that the
// answers do not depend on which agent ran first nor on the thread it ran
// on.
//
//  1. Every agent, in config order, runs its step until it ends or pauses.
//  2. When every agent of the round has paused or ended, the round ends:
//     each Resolver gets the round's agents (EndRound), in config order; a
//     plugin set sends the round's calls as one batch per plugin, gates
//     apply the round's releases and then grant or refuse its takes.
//  3. The agents that paused resume, in config order, each with its
//     answer, and run until they end or pause again: the next round.
//  4. Until no agent waits. The last round ends like the others (its
//     releases are applied).
//
// Issue by issue, the rounds were the plugin host's; they live here so that
// gates work in a game without plugins, and so that a game that runs agents
// on several threads can share them: what changes shared state happens in
// EndRound, on one goroutine, in config order.

// Outcome is how one agent's step ended.
type Outcome struct {
	Status Status // Success, Failure, Running or Errored (Paused only when a resolver failed)
	Err    error
}

// Resolver answers the calls that agents' steps paused at, once per round.
type Resolver interface {
	// EndRound is called when every agent of a round has paused or ended
	// its step. round holds the agents that ran in the round, in config
	// order (every agent in the first round, then the resumed ones). An
	// error is not an agent's: it breaks the rounds (the outcomes are then
	// incomplete).
	EndRound(round []*Agent) error
	// Continue resumes the step of an agent paused at one of the
	// resolver's calls, with its answer, until the step ends or pauses
	// again. ok is false when the agent does not wait for this resolver.
	Continue(a *Agent) (st Status, err error, ok bool)
}

// Rounds runs the steps of a group of agents in rounds, with the resolvers
// that answer their calls (a plugin set, the agents' Gates). It keeps its
// buffers from one step to the next: a game makes one and uses it every
// step. Not safe for concurrent use.
type Rounds struct {
	Resolvers []Resolver
	// Ended, when set, is called as each agent's step ends (step_ended.go).
	Ended StepEnded

	out     []Outcome
	waiting []int32
	round   []*Agent

	filters roundFilters // rounds_filter.go
	picked  [][]int32    // per resolver, the agents of the round its filter wants
	shown   []*Agent     // a filter's agents of the round
}

// StepAt runs one step of every agent at time t (Agent.StepAt) in rounds
// and returns each agent's outcome, in the order of agents (valid until the
// next call). The error breaks the rounds (see Resolver.EndRound), or names
// an agent that paused at a call no resolver answers.
func (r *Rounds) StepAt(agents []*Agent, t float64) ([]Outcome, error) {
	return r.run(agents, nil, t)
}

// Step is StepAt with the step started by step (for instance a.Step(dt)).
func (r *Rounds) Step(agents []*Agent, step func(a *Agent) (Status, error)) ([]Outcome, error) {
	return r.run(agents, step, 0)
}

// StepRounds runs one step of every agent in rounds, once: Rounds.Step
// writing the outcomes into out (grown as needed).
func StepRounds(out []Outcome, agents []*Agent, step func(a *Agent) (Status, error), resolvers ...Resolver) ([]Outcome, error) {
	r := Rounds{Resolvers: resolvers, out: out}
	return r.run(agents, step, 0)
}

func (r *Rounds) run(agents []*Agent, step func(a *Agent) (Status, error), t float64) ([]Outcome, error) {
	if cap(r.out) < len(agents) {
		r.out = make([]Outcome, len(agents))
	}
	out := r.out[:len(agents)]
	waiting := r.waiting[:0]
	r.filters.set(r.Resolvers)
	r.picked = r.filters.grow(r.picked)
	for i, a := range agents {
		var st Status
		var err error
		if step != nil {
			st, err = step(a)
		} else {
			st, err = a.StepAt(t)
		}
		out[i] = Outcome{st, err}
		if st == Paused {
			waiting = append(waiting, int32(i))
		} else if r.Ended != nil {
			r.Ended(0, int32(i), a, st, err)
		}
		if r.filters.any {
			r.filters.pick(r.picked, a, int32(i))
		}
	}
	round := agents
	for {
		if err := r.endRound(agents, round); err != nil {
			r.waiting = waiting
			return out, err
		}
		if len(waiting) == 0 {
			break
		}
		r.round = r.round[:0]
		r.picked = r.filters.grow(r.picked)
		next := waiting[:0]
		for _, i := range waiting {
			a := agents[i]
			r.round = append(r.round, a)
			st, err, ok := r.resume(a)
			if !ok {
				r.waiting = waiting
				return out, fmt.Errorf("runtime: rounds: agent %s is paused at a call that none of the %d resolvers answers", a.id, len(r.Resolvers))
			}
			out[i] = Outcome{st, err}
			if st == Paused {
				next = append(next, i)
			} else if r.Ended != nil {
				r.Ended(0, i, a, st, err)
			}
			if r.filters.any {
				r.filters.pick(r.picked, a, i)
			}
		}
		waiting = next
		round = r.round
	}
	r.waiting = waiting
	clear(r.round) // let go of the agents
	clear(r.shown)
	return out, nil
}

// endRound ends a round: each resolver gets the round's agents, or a
// filter those of them it wants (rounds_filter.go).
func (r *Rounds) endRound(agents, round []*Agent) error {
	return r.filters.endRound(r.Resolvers, agents, round, &r.shown, func(j int) []int32 { return r.picked[j] })
}

// resume resumes a with the resolver whose call it waits for.
func (r *Rounds) resume(a *Agent) (Status, error, bool) {
	for _, res := range r.Resolvers {
		if st, err, ok := res.Continue(a); ok {
			return st, err, true
		}
	}
	return 0, nil, false
}
