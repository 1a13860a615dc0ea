package runtime

import (
	"errors"
	"fmt"
	"math"

	"github.com/btrun/btrun/runtime/savecodec"
)

// Saving and restoring gates (format version 4). An agent's snapshot holds
// the active rules that hold a gate (Snapshot.Holds), by label and index
// like other per-rule state. The shared state of every Gates the saved
// agents use (each gate's holders in the order they took it, the time of
// its last release, its counts) follows the agents in SaveAgents data and
// in a btrun save, one gate set per Gates in the order the agents first
// use them: the game's one, or one per agent that has gates of its own.
// A restore checks that the two agree (an agent holds a gate by its rules
// exactly when it is among the gate's holders) and replaces the whole
// state of each Gates: restore every agent that shares a Gates together.

// RuleHold is a saved hold: an active rule (by label and index) that holds
// a gate (by name).
type RuleHold struct {
	Rule  string
	Index int32
	Gate  string
}

// GateSnapshot is the saved shared state of one gate.
type GateSnapshot struct {
	Name     string
	Users    int
	Cooldown float64
	Since    float64 // agent time of the last release; NaN when never released
	Holders  []HolderSnapshot
	Stats    GateStats
}

// HolderSnapshot is an agent holding a gate, by id, the step and time at
// which it took it, and the most holders the gate had at the end of a
// round since then.
type HolderSnapshot struct {
	Agent string
	Step  uint64
	Time  float64
	Seen  int
}

// snapshotHolds saves the active rules that hold their gate.
func (a *Agent) snapshotHolds(s *Snapshot) {
	b := a.bound
	if !b.gated {
		return
	}
	rules := b.Tree.Rules
	for i := range b.feats {
		f := &b.feats[i]
		if f.holdBit >= 0 && a.slab[b.holdBase+int(f.holdBit>>6)]&(1<<(f.holdBit&63)) != 0 {
			s.Holds = append(s.Holds, RuleHold{Rule: rules[i].Label, Index: int32(i), Gate: b.Tree.Gates[f.gate].Name})
		}
	}
}

// planHolds maps the saved holds onto the tree's rules with gates: each
// must be an active rule with that gate (else, in the tree it was saved
// from, the data is corrupt; in an edited tree, it is dropped). active
// tells whether a rule is active in the planned state.
func (p *RestorePlan) planHolds(s *Snapshot, active func(int32) bool, bad func(string, ...any) error) error {
	a := p.a
	b := a.bound
	for _, h := range s.Holds {
		r, ok := s.ruleIn(b, h.Rule, h.Index)
		fits := ok && b.feats[r].holdBit >= 0 && b.Tree.Gates[b.feats[r].gate].Name == h.Gate
		switch {
		case s.carry != nil && (!fits || !active(r)):
			// Carried over to an edited tree whose rule is gone, no longer
			// names the gate, or is not active: the hold ends as leaving
			// the rule would end it. The gates' carry (gates_carry.go)
			// releases the gate when no other rule holds it, and says so.
			continue
		case !fits:
			if err := bad("the hold of gate %q by rule %s has no rule with that gate to go to", h.Gate, h.Rule); err != nil {
				return err
			}
		case !active(r):
			if err := bad("rule %s holds gate %q but is not active", h.Rule, h.Gate); err != nil {
				return err
			}
		default:
			f := &b.feats[r]
			w := &p.slab[b.holdBase+int(f.holdBit>>6)]
			mask := uint64(1) << (f.holdBit & 63)
			if *w&mask != 0 {
				return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("the hold of gate %q by rule %s is saved twice", h.Gate, h.Rule)}
			}
			*w |= mask
			p.slab[b.gateCount+int(f.gate)]++
		}
	}
	return nil
}

// plannedHolds reports whether the planned agent holds the tree's gate i.
func (p *RestorePlan) plannedHolds(i int32) bool {
	b := p.a.bound
	if p.bound != nil {
		b = p.bound // the view whose slots hold the saved trees (slots_save.go)
	}
	return b.gateCount >= 0 && p.slab[b.gateCount+int(i)] > 0
}

// rehold makes the agent a holder of each gate its restored rules hold, at
// the end of the holders, when it is not one: what Agent.Restore can do
// without the gates' saved state (RestoreAgents then puts that back whole).
func (a *Agent) rehold() {
	b := a.bound
	if !b.gated || a.ext == nil || a.ext.gates == nil {
		return
	}
	a.ext.gates.events = a.ext.gates.events[:0]
	for i := range b.Tree.Gates {
		if st := a.gate(int32(i)); a.holds(int32(i)) && st.slot(a) == 0 {
			st.holders = append(st.holders, gateHolder{a: a, step: a.step, time: a.time})
		}
	}
}

// gateSets lists the distinct Gates of agents, in the order the agents first
// use them.
func gateSets(agents []*Agent) []*Gates {
	var out []*Gates
	for _, a := range agents {
		g := a.Gates()
		if g == nil {
			continue
		}
		seen := false
		for _, h := range out {
			if h == g {
				seen = true
				break
			}
		}
		if !seen {
			out = append(out, g)
		}
	}
	return out
}

// encodeGateSets writes the state of every Gates the agents use. A Gates
// whose round has not ended (releases requested and not applied) cannot be
// saved.
func encodeGateSets(e *savecodec.Encoder, agents []*Agent) error {
	sets := gateSets(agents)
	for _, a := range agents {
		if x := a.ext; x != nil && x.gates != nil && len(x.gates.releases) > 0 && x.gates.link.g.solo != a {
			return &Error{Agent: a.id, Err: ErrBusy, Msg: "cannot save: the agent released a gate in a round that has not ended (Gates.EndRound)"}
		}
	}
	e.Uvarint(uint64(len(sets)))
	for _, g := range sets {
		encodeGateSet(e, g.snapshot())
	}
	return nil
}

// snapshot is the Gates' state as plain data.
func (g *Gates) snapshot() []GateSnapshot {
	g.settle()
	out := make([]GateSnapshot, len(g.gates))
	for i := range g.gates {
		st := &g.gates[i]
		s := GateSnapshot{Name: st.decl.Name, Users: st.decl.Users, Cooldown: st.decl.Cooldown, Since: st.since, Stats: st.stats}
		for _, h := range st.holders {
			s.Holders = append(s.Holders, HolderSnapshot{Agent: h.id(), Step: h.step, Time: h.time, Seen: h.seen})
		}
		out[i] = s
	}
	return out
}

// gateSet writes one Gates' saved state.
func encodeGateSet(e *savecodec.Encoder, set []GateSnapshot) {
	e.Uvarint(uint64(len(set)))
	for i := range set {
		g := &set[i]
		e.String(g.Name)
		e.Uvarint(uint64(g.Users))
		e.Float(g.Cooldown)
		e.Float(g.Since)
		e.Uvarint(uint64(len(g.Holders)))
		for _, h := range g.Holders {
			e.String(h.Agent)
			e.Uvarint(h.Step)
			e.Float(h.Time)
			e.Uvarint(uint64(h.Seen))
		}
		e.Uvarint(g.Stats.Takes)
		e.Uvarint(g.Stats.Refusals)
		e.Uvarint(g.Stats.LongestSteps)
		e.Float(g.Stats.LongestSeconds)
	}
}

// decodeGateSets reads what encodeGateSets wrote.
func decodeGateSets(d *savecodec.Decoder) [][]GateSnapshot {
	n := d.Count(1)
	if n == 0 {
		return nil
	}
	out := make([][]GateSnapshot, 0, n)
	for range n {
		k := d.Count(28)
		set := make([]GateSnapshot, 0, k)
		for range k {
			g := GateSnapshot{Name: d.String(), Users: int(min(d.Uvarint(), maxGateUsers+1)), Cooldown: d.Float(), Since: d.Float()}
			h := d.Count(11)
			for range h {
				g.Holders = append(g.Holders, HolderSnapshot{Agent: d.String(), Step: d.Uvarint(), Time: d.Float(), Seen: int(min(d.Uvarint(), maxGateUsers+1))})
			}
			g.Stats = GateStats{Takes: d.Uvarint(), Refusals: d.Uvarint(), LongestSteps: d.Uvarint(), LongestSeconds: d.Float()}
			if d.Err() != nil {
				return nil
			}
			set = append(set, g)
		}
		out = append(out, set)
	}
	return out
}

// gateSetPlan is a Gates' saved state checked against it, ready to apply.
type gateSetPlan struct {
	g     *Gates
	gates []gateState // by index in g: what g.gates become (decl aside)
}

// planGateSets checks the saved gate sets against the Gates of the agents
// being restored (plans[i] is agents[i]'s plan) and returns what to apply,
// with warnings. saved is nil for a save without gates (before version 4):
// every Gates is then emptied.
func planGateSets(saved [][]GateSnapshot, agents []*Agent, plans []RestorePlan) ([]gateSetPlan, []string, error) {
	sets := gateSets(agents)
	if saved != nil && len(saved) != len(sets) {
		return nil, nil, fmt.Errorf("%w: the save holds %d sets of gates, the agents share %d", ErrCorrupt, len(saved), len(sets))
	}
	var warnings []string
	var errs []error
	out := make([]gateSetPlan, len(sets))
	for k, g := range sets {
		p := &out[k]
		p.g = g
		p.gates = make([]gateState, len(g.gates))
		for i := range p.gates {
			p.gates[i] = gateState{since: math.NaN()}
		}
		var set []GateSnapshot
		if saved != nil {
			set = saved[k]
		}
		members := gateMembers(g, agents, set)
		for i := range g.gates {
			for _, h := range g.gates[i].holders {
				if m, ok := members[h.id()]; !ok || agents[m] != h.a {
					errs = append(errs, fmt.Errorf("%w: gate %q is held by agent %s, which this restore does not cover; restore every agent that shares the gates together", ErrUnknownID, g.gates[i].decl.Name, h.id()))
				}
			}
		}
		holderOf := map[int32]map[string]bool{} // gate index -> holder ids saved
		seenGate := map[int32]bool{}
		for _, sg := range set {
			i, ok := g.byName[sg.Name]
			if !ok {
				warnings = append(warnings, fmt.Sprintf("gate %q of the save is not declared any more; dropped", sg.Name))
				continue
			}
			if seenGate[i] {
				errs = append(errs, fmt.Errorf("%w: gate %q is saved twice", ErrCorrupt, sg.Name))
				continue
			}
			seenGate[i] = true
			decl := &g.gates[i].decl
			if sg.Users != decl.Users || sg.Cooldown != decl.Cooldown {
				warnings = append(warnings, fmt.Sprintf("gate %q was saved with %s and is now declared with %s; its holders keep it",
					sg.Name, gateSettings(sg.Users, sg.Cooldown), gateSettings(decl.Users, decl.Cooldown)))
			}
			if math.IsInf(sg.Since, 0) || math.IsInf(sg.Stats.LongestSeconds, 0) || math.IsNaN(sg.Stats.LongestSeconds) {
				errs = append(errs, fmt.Errorf("%w: gate %q has a bad time", ErrCorrupt, sg.Name))
				continue
			}
			st := &p.gates[i]
			st.since, st.stats = sg.Since, sg.Stats
			ids := map[string]bool{}
			holderOf[i] = ids
			for _, h := range sg.Holders {
				m, ok := members[h.Agent]
				switch {
				case !ok:
					errs = append(errs, fmt.Errorf("%w: gate %q is saved as held by agent %q, which is not among the agents restored with it", ErrUnknownID, sg.Name, h.Agent))
					continue
				case ids[h.Agent]:
					errs = append(errs, fmt.Errorf("%w: gate %q is saved as held twice by agent %q", ErrCorrupt, sg.Name, h.Agent))
					continue
				case math.IsNaN(h.Time) || math.IsInf(h.Time, 0) || h.Step > maxSavedStep || h.Seen > maxGateUsers:
					errs = append(errs, fmt.Errorf("%w: gate %q is saved as taken by agent %q at a bad step or time", ErrCorrupt, sg.Name, h.Agent))
					continue
				}
				ids[h.Agent] = true
				plan := &plans[m]
				if !plan.holdsGate(i) {
					msg := fmt.Sprintf("agent %s is saved among the holders of gate %q, and none of its saved rules holds it", h.Agent, sg.Name)
					if plan.edited {
						warnings = append(warnings, msg+"; it is not a holder any more")
						continue
					}
					errs = append(errs, fmt.Errorf("%w: %s", ErrCorrupt, msg))
					continue
				}
				st.holders = append(st.holders, gateHolder{a: agents[m], step: h.Step, time: h.Time, seen: h.Seen})
			}
		}
		// Every agent that holds a gate by its rules is among its holders.
		for i, a := range agents {
			if a.Gates() != g {
				continue
			}
			for j, slot := range a.ext.gates.link.slots {
				if plans[i].plannedHolds(int32(j)) && !holderOf[slot][a.id] {
					errs = append(errs, fmt.Errorf("%w: agent %s holds gate %q by its saved rules but is not among the gate's saved holders", ErrCorrupt, a.id, g.gates[slot].decl.Name))
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return out, warnings, nil
}

// gateMembers finds, among the agents sharing g, those that hold one of
// its gates now or in set (the saved gates): their index in agents by id.
// Those are the only agents looked up by id; a game's many agents that
// hold nothing cost a pointer comparison each, not an entry in a map.
func gateMembers(g *Gates, agents []*Agent, set []GateSnapshot) map[string]int {
	members := map[string]int{}
	for i := range g.gates {
		for _, h := range g.gates[i].holders {
			members[h.id()] = -1
		}
	}
	for _, sg := range set {
		for _, h := range sg.Holders {
			members[h.Agent] = -1
		}
	}
	if len(members) == 0 {
		return members
	}
	for i, a := range agents {
		if a.Gates() != g {
			continue
		}
		if _, ok := members[a.id]; ok {
			members[a.id] = i
		}
	}
	for id, i := range members {
		if i < 0 {
			delete(members, id) // not among the agents sharing g
		}
	}
	return members
}

// holdsGate reports whether the planned agent holds the gate of index i in
// its Gates.
func (p *RestorePlan) holdsGate(i int32) bool {
	for j, slot := range p.a.ext.gates.link.slots {
		if slot == i && p.plannedHolds(int32(j)) {
			return true
		}
	}
	return false
}

// apply replaces the Gates' state with the plan's.
func (p *gateSetPlan) apply() {
	for i := range p.g.gates {
		st := &p.g.gates[i]
		st.holders = append(st.holders[:0], p.gates[i].holders...)
		st.since, st.stats = p.gates[i].since, p.gates[i].stats
	}
}
