package host

import "github.com/btrun/btrun/runtime"

// Outcome is how one agent's step ended.
type Outcome = runtime.Outcome

// StepAll runs one step of every agent in rounds, as the runtime's rounds
// do (runtime.Rounds), with the set answering the plugin calls: every
// agent, in order, runs until its step ends or reaches a plugin call; the
// round's calls go to each plugin as one batch (Flush); the waiting agents
// resume, in order, with their replies; and so on until every step has
// ended. step starts an agent's step (for instance a.StepAt(t)). set may be
// nil when there are no plugins. A game whose agents also share gates
// steps them with a runtime.Rounds holding both the gates and the set.
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
	if set == nil {
		return runtime.StepRounds(out, agents, step)
	}
	if len(set.rounds.Resolvers) == 0 {
		set.rounds.Resolvers = []runtime.Resolver{set}
	}
	res, err := set.rounds.Step(agents, step)
	// The outcomes are the kept Rounds' until the next step: out gets a
	// copy (a copy costs less than growing the rounds' lists each step).
	if cap(out) < len(res) {
		out = make([]Outcome, len(res))
	}
	out = out[:len(res)]
	copy(out, res)
	return out, err
}

// EndRound sends the round's calls, one batch per plugin (Flush): the set
// is a runtime.Resolver. A round without calls sends nothing.
func (s *Set) EndRound(round []*runtime.Agent) error {
	if len(s.queued) == 0 {
		return nil
	}
	if s.concurrent {
		s.inConfigOrder(round)
	}
	return s.Flush()
}

// Continue resumes an agent waiting for a call of the set (Resume); ok is
// false for an agent that does not (runtime.Resolver).
func (s *Set) Continue(a *runtime.Agent) (runtime.Status, error, bool) {
	if s.concurrent {
		s.mu.Lock()
	}
	k := s.find(a)
	if k < 0 {
		if s.concurrent {
			s.mu.Unlock()
		}
		return 0, nil, false
	}
	t := s.take(k) // what Resume would find again: one lock per call, not two
	if s.concurrent {
		s.mu.Unlock()
	}
	st, err := s.deliver(a, t)
	return st, err, true
}

// SetConcurrent prepares the set for agents stepped on several goroutines
// at once (runtime.Workers): their calls may be queued and they may be
// resumed concurrently, each agent from one goroutine. Flush and EndRound
// stay on one goroutine, between the parallel parts. A set used from one
// goroutine leaves it off and takes no lock.
func (s *Set) SetConcurrent(on bool) {
	s.concurrent = on
	if on && s.sentAt == nil {
		s.sentAt = map[*runtime.Agent]int32{}
	}
}
