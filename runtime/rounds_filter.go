package runtime

// Round filters: a resolver whose round end concerns only some of the
// round's agents (the gates: those that asked for a take or released a
// gate) says which, and Rounds and Workers hand it only those, still in
// config order. The others would be looked at and passed over: at 100,000
// agents the gates' two passes over every agent of the first round took
// about 3.4 ms of every step, on one thread, while a round's takes and
// releases are a handful. The question is asked right after each agent's
// step in the round, while the agent is in the cache of the thread that
// stepped it (with workers, on every worker at once).

// A RoundFilter is a Resolver whose EndRound needs only some agents of a
// round: Rounds and Workers hand it those it wants, in config order,
// instead of every agent of the round.
type RoundFilter interface {
	Resolver
	// Wants reports whether a, which has just run its part of the round,
	// is one the resolver's EndRound must see. Called on the goroutine
	// that stepped a, for different agents at once (with Workers).
	Wants(a *Agent) bool
}

// Wants reports whether a asked for a take of g's gates or requested a
// release in the round it has just run (RoundFilter: EndRound passes over
// any other agent).
func (g *Gates) Wants(a *Agent) bool {
	x := a.gatesOf(g)
	return x != nil && (len(x.releases) > 0 || (a.phase == phaseWaitGate && x.answer == takeAsked))
}

// roundFilters is which of a list of resolvers are filters: filters[j] is
// nil for one that sees every agent of the round.
type roundFilters struct {
	filters []RoundFilter
	any     bool
}

func (f *roundFilters) set(resolvers []Resolver) {
	f.filters = f.filters[:0]
	f.any = false
	for _, res := range resolvers {
		rf, _ := res.(RoundFilter)
		f.filters = append(f.filters, rf)
		f.any = f.any || rf != nil
	}
}

// pick appends i to picked[j] for every filter j that wants a.
func (f *roundFilters) pick(picked [][]int32, a *Agent, i int32) {
	for j, rf := range f.filters {
		if rf != nil && rf.Wants(a) {
			picked[j] = append(picked[j], i)
		}
	}
}

// grow makes picked hold a list per resolver, each emptied.
func (f *roundFilters) grow(picked [][]int32) [][]int32 {
	for len(picked) < len(f.filters) {
		picked = append(picked, nil)
	}
	for j := range picked {
		picked[j] = picked[j][:0]
	}
	return picked
}

// endRound ends a round for each of resolvers (those set was given): a
// filter gets the agents of picked(j), indices into agents in config
// order, gathered in *shown; any other resolver the whole round.
func (f *roundFilters) endRound(resolvers []Resolver, agents, round []*Agent, shown *[]*Agent, picked func(j int) []int32) error {
	for j, res := range resolvers {
		if f.filters[j] == nil {
			if err := res.EndRound(round); err != nil {
				return err
			}
			continue
		}
		*shown = (*shown)[:0]
		for _, i := range picked(j) {
			*shown = append(*shown, agents[i])
		}
		if err := res.EndRound(*shown); err != nil {
			return err
		}
	}
	return nil
}
