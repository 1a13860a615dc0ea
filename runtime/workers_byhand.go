package runtime

import "fmt"

// Rounds by hand: StepAt's rounds one at a time, for a caller that ends
// each round itself between two calls. A cluster's shard does: its rounds
// end when every shard's have, in another process. The parallel parts and
// the merges are StepAt's own (parallel, stepOne, merge); only the loop is
// the caller's.
//
//	w.Begin(agents, t)
//	for {
//		waiting, err := w.NextRound()
//		... end the round: w.RoundAgents(), the resolvers' EndRound ...
//		if waiting == 0 { break } // (a cluster's shard goes on with the others')
//	}
//	out := w.Outcomes()
//
// Continue of w.Resolvers resumes the agents that paused.

// Begin starts a step of every agent at time t, run by NextRound.
func (w *Workers) Begin(agents []*Agent, t float64) error {
	if len(w.Of) < len(agents) {
		return fmt.Errorf("runtime: workers: %d agents, but a worker is given for %d", len(agents), len(w.Of))
	}
	if cap(w.out) < len(agents) {
		w.out = make([]Outcome, len(agents))
	}
	w.out = w.out[:len(agents)]
	for k := range w.lanes {
		w.lanes[k].run = w.lanes[k].run[:0]
		w.lanes[k].waiting = w.lanes[k].waiting[:0]
		w.lanes[k].busy = 0
	}
	for i := range agents {
		k := w.Of[i]
		if k < 0 || int(k) >= w.n {
			return fmt.Errorf("runtime: workers: agent %s is given worker %d of %d", agents[i].id, k, w.n)
		}
		w.lanes[k].run = append(w.lanes[k].run, int32(i))
	}
	w.byHand, w.byHandT, w.roundNo = agents, t, 0
	w.filters.set(w.Resolvers)
	return nil
}

// NextRound runs the next round's parallel part (the first steps every
// agent, the next resume those that paused, each with the resolver that
// answers it) and reports how many agents paused.
func (w *Workers) NextRound() (int, error) {
	agents := w.byHand
	if w.roundNo > 0 {
		waiting := 0
		for k := range w.lanes {
			l := &w.lanes[k]
			l.run, l.waiting = l.waiting, l.run[:0]
			waiting += len(l.run)
		}
		w.roundNo++
		if waiting == 0 { // nothing to run: an empty round
			clear(w.round)
			w.round = w.round[:0]
			return 0, nil
		}
		w.merge(agents)
	} else {
		w.roundNo = 1
	}
	w.parallel(agents, w.out, w.byHandT, w.roundNo > 1)
	for k := range w.lanes {
		if err := w.lanes[k].err; err != nil {
			return 0, err
		}
	}
	waiting := 0
	for k := range w.lanes {
		waiting += len(w.lanes[k].waiting)
	}
	return waiting, nil
}

// RoundAgents are the agents of the round NextRound ran, in the order of
// agents (valid until the next call).
func (w *Workers) RoundAgents() []*Agent {
	if w.roundNo == 1 {
		return w.byHand
	}
	return w.round
}

// Outcomes are the agents' outcomes so far, in the order of agents.
func (w *Workers) Outcomes() []Outcome { return w.out }
