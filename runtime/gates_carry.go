package runtime

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Carrying gates over in a hot reload (carry.go). An agent's holds are
// rule state: each active rule that held a gate holds it in the new version
// when the RuleMap finds the rule there, still active and still naming that
// gate (planHolds). The state the agents share is carried by gate name,
// from the Gates the old agents share to the one the new agents share: a
// gate keeps its holders (in the order they took it, with the step and time
// of the take and what bt.gate.wait saw since), the time of its last
// release and its counts.
//
// What the new version changes is applied as leaving rules would apply it:
//   - an agent none of whose rules holds the gate any more (the rules that
//     held it are gone, or no longer name it, or are no longer active)
//     releases it: it leaves the holders, the hold counts towards the
//     longest, and the cooldown runs from the agent's time, as at a release
//     between steps;
//   - a gate no tree declares any more is dropped with its holders;
//   - a gate declared with other settings keeps its holders and its last
//     release: the new cooldown runs from that release, and a gate with more
//     holders than its new users is full until enough of them let it go
//     (nobody is turned out of a rule it is in).
//
// Releases an old agent requested in a round that has not ended are
// applied at the step and time they were requested. The agents the caller
// reset before the carry (their place is gone) released their gates then.

// gateCarry is the planned state of one Gates of the new agents.
type gateCarry struct {
	to    *Gates
	gates []gateState // by index in to.gates: its holders, last release and counts
}

// planGateCarry plans the carry of the gate state the agents from share
// onto the Gates the agents to share; plans[i] carries from[i] to to[i].
// Agents that share a Gates must share one after the carry too, and agents
// that did not must not.
func planGateCarry(from, to []*Agent, plans []RestorePlan) ([]gateCarry, []string, error) {
	var out []gateCarry
	var warnings []string
	newOf := map[*Gates]*Gates{}
	oldOf := map[*Gates]*Gates{}
	var pairs [][2]*Gates
	for i, old := range from {
		og, ng := old.Gates(), to[i].Gates()
		if ng != nil {
			if _, ok := oldOf[ng]; !ok {
				oldOf[ng] = nil
				pairs = append(pairs, [2]*Gates{nil, ng})
			}
		}
		if og == nil {
			continue
		}
		if n, ok := newOf[og]; ok {
			if n != ng {
				return nil, nil, &Error{Agent: old.id, Msg: "cannot carry the gates over: agents that shared gates would not share them any more"}
			}
			continue
		}
		newOf[og] = ng
		if ng == nil {
			continue
		}
		if o := oldOf[ng]; o != nil && o != og {
			return nil, nil, &Error{Agent: old.id, Msg: "cannot carry the gates over: agents that did not share gates would share them"}
		}
		oldOf[ng] = og
	}
	for k := range pairs {
		pairs[k][0] = oldOf[pairs[k][1]]
	}
	// Old gates whose agents' new trees declare no gate at all.
	for _, old := range from {
		if og := old.Gates(); og != nil && newOf[og] == nil {
			warnings = append(warnings, droppedGates(og, nil)...)
			newOf[og] = og // warned once
		}
	}
	var errs []error
	for _, pair := range pairs {
		c, w, err := planGateSet(pair[0], pair[1], from, to, plans)
		warnings = append(warnings, w...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, c)
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return out, warnings, nil
}

// planGateSet plans the state of ng from og's (nil: the old agents shared
// no gates).
func planGateSet(og, ng *Gates, from, to []*Agent, plans []RestorePlan) (gateCarry, []string, error) {
	c := gateCarry{to: ng, gates: make([]gateState, len(ng.gates))}
	for i := range c.gates {
		c.gates[i] = gateState{since: math.NaN()}
	}
	var warnings []string
	carried := map[*Agent]int{} // old agent -> its index in from and to
	for i, old := range from {
		if og != nil && old.Gates() == og && to[i].Gates() == ng {
			carried[old] = i
		}
	}
	if og != nil {
		warnings = droppedGates(og, ng)
		for i := range og.gates {
			ost := &og.gates[i]
			j, ok := ng.byName[ost.decl.Name]
			if !ok {
				continue // dropped with its holders (droppedGates)
			}
			st, decl := &c.gates[j], &ng.gates[j].decl
			st.since, st.stats = ost.since, ost.stats
			for _, h := range ost.holders {
				k, ok := carried[h.a]
				if ok && plans[k].holdsGate(j) {
					st.holders = append(st.holders, gateHolder{a: to[k], step: h.step, time: h.time, seen: h.seen})
					continue
				}
				step, t, pending := releaseOf(h.a, int32(i))
				st.releaseHold(h, step, t)
				if ok && !pending {
					warnings = append(warnings, fmt.Sprintf("agent %s lets gate %q go: none of its active rules holds it in the new version", h.a.id, decl.Name))
				}
			}
			if n := len(st.holders); n > decl.Users {
				warnings = append(warnings, fmt.Sprintf("gate %q now lets %d agents hold it and %d do: they keep it, and it is full until fewer than %d hold it",
					decl.Name, decl.Users, n, decl.Users))
			}
		}
	}
	// Every new agent that holds a gate by its carried rules is among its
	// holders (a hold comes from an old agent's, which made it a holder).
	var errs []error
	for i, a := range to {
		if a.Gates() != ng {
			continue
		}
		for j, slot := range a.ext.gates.link.slots {
			if plans[i].plannedHolds(int32(j)) && c.gates[slot].slot(a) == 0 {
				errs = append(errs, &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("holds gate %q by its rules but is not among the gate's holders", ng.gates[slot].decl.Name)})
			}
		}
	}
	return c, warnings, errors.Join(errs...)
}

// releaseOf is the step and time at which old agent a releases the gate of
// index i of its Gates in a carry that takes the gate from it: when it
// requested the release in a round that has not ended, then (pending);
// else now.
func releaseOf(a *Agent, i int32) (step uint64, t float64, pending bool) {
	if x := a.ext.gates; x != nil {
		for _, rel := range x.releases {
			if x.link.slots[rel.gate] == i {
				return rel.step, rel.time, true
			}
		}
	}
	return a.step, a.time, false
}

// releaseHold is a holder's release in a planned state: the hold counts
// towards the longest, and the cooldown runs from t.
func (st *gateState) releaseHold(h gateHolder, step uint64, t float64) {
	st.stats.longest(step-h.step, t-h.time)
	if math.IsNaN(st.since) || t > st.since {
		st.since = t
	}
}

// droppedGates warns of the gates of og that ng (nil: none) does not
// declare and that had holders.
func droppedGates(og, ng *Gates) []string {
	var out []string
	for i := range og.gates {
		st := &og.gates[i]
		if ng != nil {
			if _, ok := ng.byName[st.decl.Name]; ok {
				continue
			}
		}
		if len(st.holders) > 0 {
			ids := make([]string, len(st.holders))
			for k, h := range st.holders {
				ids[k] = h.a.id
			}
			out = append(out, fmt.Sprintf("gate %q is not declared any more; its holders (%s) let it go", st.decl.Name, strings.Join(ids, ", ")))
		}
	}
	return out
}

// apply replaces the new Gates' holders, last releases and counts with the
// carried ones.
func (c *gateCarry) apply() {
	for i := range c.to.gates {
		st := &c.to.gates[i]
		st.holders = append(st.holders[:0], c.gates[i].holders...)
		st.since, st.stats = c.gates[i].since, c.gates[i].stats
	}
}
