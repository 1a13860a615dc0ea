package runtime

// Gates across processes: a cluster's shards step agents in processes of
// their own, and every process keeps a copy of the gates (the agents'
// conditions read them during steps: G.open, G.full, a gate's slot). At
// the end of each round every process is given every agent's part of the
// round, in config order, and ends the round with EndRoundParts: the same
// releases and takes in the same order as EndRound, so that every copy
// makes the same decisions. An agent that runs in this process is given
// its answer as with EndRound (Continue resumes it); for the copy of an
// agent that runs elsewhere, only the gates change.

// GatePart is one agent's part in the end of a round: the releases its
// step asked for in the round (applied first, with every agent's) and the
// take it waits at (decided after every release).
type GatePart struct {
	Releases []GateRelease
	Take     int32 // the tree's gate the step waits at; -1 for none
	Step     uint64
	Time     float64 // the agent's step and time at the take
}

// GateRelease is a release an agent's step asked for: the tree's gate, at
// the agent's step and time.
type GateRelease struct {
	Gate int32
	Step uint64
	Time float64
}

// GatePart reports the agent's part in the round that is ending, sharing
// g; ok is false when it has none (no release asked, no take waited at).
func (a *Agent) GatePart(g *Gates) (GatePart, bool) {
	x := a.gatesOf(g)
	if x == nil {
		return GatePart{}, false
	}
	p := GatePart{Take: -1}
	for _, r := range x.releases {
		p.Releases = append(p.Releases, GateRelease{Gate: r.gate, Step: r.step, Time: r.time})
	}
	if a.phase == phaseWaitGate && x.answer == takeAsked {
		p.Take, p.Step, p.Time = x.want, a.step, a.time
	}
	return p, len(p.Releases) > 0 || p.Take >= 0
}

// EndRoundParts ends a round from the parts of its agents, in config
// order: agents[i] is the agent itself when own[i] (its part is the one
// GatePart reports), else its copy in this process. Releases first, then
// takes, as EndRound.
func (g *Gates) EndRoundParts(agents []*Agent, own []bool, parts []GatePart) {
	for i, a := range agents {
		if own[i] {
			if x := a.gatesOf(g); x != nil && len(x.releases) > 0 {
				a.applyReleases(x)
			}
			continue
		}
		if a.gatesOf(g) == nil {
			continue
		}
		for _, r := range parts[i].Releases {
			a.gate(r.Gate).release(a, r.Step, r.Time)
		}
	}
	for i, a := range agents {
		x := a.gatesOf(g)
		if x == nil || parts[i].Take < 0 {
			continue
		}
		if own[i] {
			if a.phase == phaseWaitGate && x.answer == takeAsked {
				a.decideTake(x)
			}
			continue
		}
		st := a.gate(parts[i].Take)
		if !st.open(parts[i].Time) {
			st.stats.Refusals++
			continue
		}
		st.grant(a, parts[i].Step, parts[i].Time)
	}
}

// Keep keeps the gates' state and returns what puts it back. A cluster's
// conductor restores its copies of agents from their shards' saves: a
// restore releases the gates the agent's rules held and takes them again
// (at the end of the holders, with a new cooldown), while the copy of the
// gates, kept by every round's end, is right already.
func (g *Gates) Keep() (restore func()) {
	kept := make([]gateState, len(g.gates))
	for i, st := range g.gates {
		kept[i] = st
		kept[i].holders = append([]gateHolder(nil), st.holders...)
	}
	return func() {
		for i := range kept {
			g.gates[i] = kept[i]
		}
	}
}
