package runtime

import (
	"fmt"
	"strconv"
)

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
// take it waits at (decided after every release). Gates are named by their
// index in the Gates (the same in every process that adds the same trees
// in the same order), not in the agent's tree: a process that does not
// hold the agent applies its part without its tree.
type GatePart struct {
	Releases []GateRelease
	Take     int32 // the gate the step waits at; -1 for none
	Step     uint64
	Time     float64 // the agent's step and time at the take
}

// GateRelease is a release an agent's step asked for: the gate, at the
// agent's step and time.
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
	slots := x.link.slots
	p := GatePart{Take: -1}
	for _, r := range x.releases {
		p.Releases = append(p.Releases, GateRelease{Gate: slots[r.gate], Step: r.step, Time: r.time})
	}
	if a.phase == phaseWaitGate && x.answer == takeAsked {
		p.Take, p.Step, p.Time = slots[x.want], a.step, a.time
	}
	return p, len(p.Releases) > 0 || p.Take >= 0
}

// EndRoundParts ends a round from the parts of its agents, in config
// order. agents[i] is the agent itself when own[i] (its part is the one
// GatePart reports, and Continue resumes it), its copy in this process
// when not, or nil for an agent this process does not hold: that one
// holds gates under its place, places[i] (a process that holds only some
// of the agents keeps no *Agent for the others). Releases first, then
// takes, as EndRound. A part naming a gate the Gates does not have is an
// error, and nothing of the round is applied.
func (g *Gates) EndRoundParts(agents []*Agent, own []bool, places []int32, parts []GatePart) error {
	if len(own) != len(agents) || len(places) != len(agents) || len(parts) != len(agents) {
		return fmt.Errorf("runtime: a round's gate parts: %d agents, %d owners, %d places, %d parts", len(agents), len(own), len(places), len(parts))
	}
	for i, p := range parts {
		if own[i] {
			continue
		}
		for _, r := range p.Releases {
			if r.Gate < 0 || int(r.Gate) >= len(g.gates) {
				return fmt.Errorf("runtime: a round's gate parts: agent %d releases gate %d of %d", places[i], r.Gate, len(g.gates))
			}
		}
		if p.Take >= int32(len(g.gates)) {
			return fmt.Errorf("runtime: a round's gate parts: agent %d takes gate %d of %d", places[i], p.Take, len(g.gates))
		}
	}
	for i, a := range agents {
		if own[i] {
			if x := a.gatesOf(g); x != nil && len(x.releases) > 0 {
				a.applyReleases(x)
			}
			continue
		}
		if a != nil && a.gatesOf(g) == nil {
			continue
		}
		for _, r := range parts[i].Releases {
			g.gates[r.Gate].releaseOf(a, places[i], r.Step, r.Time)
		}
	}
	for i, a := range agents {
		if own[i] {
			if x := a.gatesOf(g); x != nil && a.phase == phaseWaitGate && x.answer == takeAsked {
				a.decideTake(x)
			}
			continue
		}
		if parts[i].Take < 0 || (a != nil && a.gatesOf(g) == nil) {
			continue
		}
		st := &g.gates[parts[i].Take]
		if !st.open(parts[i].Time) {
			st.stats.Refusals++
			continue
		}
		st.grant(a, parts[i].Step, parts[i].Time)
		if a == nil {
			st.holders[len(st.holders)-1].place = places[i]
		}
	}
	return nil
}

// releaseOf releases the gate held by a, or with a nil by the agent held
// elsewhere at place.
func (st *gateState) releaseOf(a *Agent, place int32, step uint64, t float64) {
	if a != nil {
		st.release(a, step, t)
		return
	}
	for k := range st.holders {
		if h := st.holders[k]; h.a == nil && h.place == place {
			st.releaseHold(h, step, t)
			copy(st.holders[k:], st.holders[k+1:])
			st.holders[len(st.holders)-1] = gateHolder{}
			st.holders = st.holders[:len(st.holders)-1]
			return
		}
	}
}

// id is a holder's agent id, or for one held elsewhere its place's name.
func (h *gateHolder) id() string {
	if h.a == nil {
		return remoteName(h.place)
	}
	return h.a.id
}

// remoteName names an agent this process does not hold by its place.
func remoteName(place int32) string { return "#" + strconv.Itoa(int(place)) }

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

// GateState is one gate's shared state with its holders by place: what a
// process that holds only some of the agents is given to continue a run
// (State, SetState).
type GateState struct {
	Since   float64 // agent time of the last release; NaN when never released
	Stats   GateStats
	Holders []PlaceHold
}

// PlaceHold is a holder by its agent's place, with the step and time at
// which it took the gate and the most holders the gate had at the end of
// a round since then.
type PlaceHold struct {
	Place int32
	Step  uint64
	Time  float64
	Seen  int
}

// State is the state of every gate, in the Gates' order, with each holder
// named by place(agent) (or its place, for an agent held elsewhere).
func (g *Gates) State(place func(*Agent) int32) []GateState {
	g.settle()
	out := make([]GateState, len(g.gates))
	for i := range g.gates {
		st := &g.gates[i]
		s := GateState{Since: st.since, Stats: st.stats}
		for _, h := range st.holders {
			p := h.place
			if h.a != nil {
				p = place(h.a)
			}
			s.Holders = append(s.Holders, PlaceHold{Place: p, Step: h.step, Time: h.time, Seen: h.seen})
		}
		out[i] = s
	}
	return out
}

// SetState replaces the state of every gate with s (from State): a holder
// is agent(place) when this process holds it, else held elsewhere under
// its place. A state of another number of gates is an error, and nothing
// changes. Restore the agents first: a restore retakes their gates, which
// this replaces.
func (g *Gates) SetState(s []GateState, agent func(place int32) *Agent) error {
	if len(s) != len(g.gates) {
		return fmt.Errorf("runtime: a state of %d gates for %d", len(s), len(g.gates))
	}
	for i := range g.gates {
		st := &g.gates[i]
		clear(st.holders)
		st.holders = st.holders[:0]
		for _, h := range s[i].Holders {
			st.holders = append(st.holders, gateHolder{a: agent(h.Place), place: h.Place, step: h.Step, time: h.Time, seen: h.Seen})
		}
		st.since, st.stats = s[i].Since, s[i].Stats
	}
	return nil
}
