package runtime

import (
	"fmt"
	"math"
)

// Gates: limits shared by the agents of a game. The idea comes from two
// sources: Lumberyard's modular behavior trees (LimitConcurrentUsers: at
// most N agents in a branch at once, "fifty enemies, fifty grenades in the
// air" answered by one thrower at a time) and the synchronized behavior
// trees paper (gate nodes holding state shared by every agent of a tree:
// semaphores, global cooldowns, and groups that go on only when N agents
// are in a branch together).
//
// A tree declares gates (<gates><gate name users cooldown/></gates>); a
// rule with gate="NAME" takes the gate when the cursor arrives at it and
// holds it while it is active. The state every agent shares (who holds
// each gate, in the order they took it, and when it was last released)
// lives in a Gates, created once for the agents that share it: a game
// makes one, a Go embedder one per group of agents (Env.Gates). An agent
// created without one gets a Gates of its own.
//
// Takes and releases are resolved in rounds (rounds.go), like plugin
// calls: a take pauses the agent's step (the take is a pending call); when
// every agent of the round has paused or ended its step, EndRound applies
// the round's releases first, then grants or refuses the takes in the
// order of the round's agents (config order); the agents resume in that
// order. During a round nothing changes the shared state: G.open, G.full
// and bt.gate.wait read it as of the last round's end, and every agent
// keeps what it requested (a take, releases) in its own state. So the
// result does not depend on the order in which agents ran within a round,
// nor on the threads they ran on.
//
// The agent's side (its holds, a take in progress, its releases) is in
// gate_agent.go; saves in gates_save.go.

// Gates is the state of the gates shared by a group of agents. It is
// changed only between rounds (EndRound, and releases between steps):
// agents read it during a round. Use it from the goroutine that ends the
// rounds.
type Gates struct {
	gates  []gateState
	byName map[string]int32
	links  map[*BoundTree]*gateLink
	// solo is the one agent of a Gates made for it alone (an agent created
	// without Env.Gates): it ends its own rounds, at a take and at the
	// start of its next step (settle).
	solo *Agent
}

// gateState is one gate.
type gateState struct {
	decl    GateDecl
	holders []gateHolder // in the order they took the gate
	since   float64      // agent time of the last release (the cooldown runs from it); NaN: never released
	stats   GateStats
}

// gateHolder is an agent holding a gate, when it took it, and the most
// holders the gate had at the end of a round since then (bt.gate.wait).
type gateHolder struct {
	a     *Agent
	place int32 // a holder this process does not hold (a == nil): its place (gates_cluster.go)
	step  uint64
	time  float64
	seen  int
}

// gateLink ties a tree's gates to a Gates: slots[i] is the index in the
// Gates of the tree's gate i. Shared by every agent of the tree.
type gateLink struct {
	g     *Gates
	slots []int32
}

// GateStats counts what happened to a gate: takes granted, takes refused,
// and the longest hold (from the take to the release, ongoing holds
// included), in steps and in seconds.
type GateStats struct {
	Takes, Refusals uint64
	LongestSteps    uint64
	LongestSeconds  float64
}

// NewGates returns an empty Gates. Add the trees of the agents that will
// share it, then give it to them through Env.Gates.
func NewGates() *Gates {
	return &Gates{byName: map[string]int32{}, links: map[*BoundTree]*gateLink{}}
}

// Add declares the gates of tree b. A gate another tree declared already is
// shared with it; declared with other settings, it is an error naming both
// declarations (and so both files).
func (g *Gates) Add(b *BoundTree) error {
	_, err := g.link(b)
	return err
}

// link returns tree b's link to g, declaring its gates on first use.
func (g *Gates) link(b *BoundTree) (*gateLink, error) {
	if l, ok := g.links[b]; ok {
		return l, nil
	}
	decls := b.Tree.Gates
	var errs ErrorList
	for _, d := range decls {
		if i, ok := g.byName[d.Name]; ok {
			old := &g.gates[i].decl
			if old.Users != d.Users || old.Cooldown != d.Cooldown {
				errs = append(errs, &Error{Pos: d.Pos, Err: ErrInvalidTree,
					Msg: fmt.Sprintf("gate %q is declared here with %s and at %s with %s; the agents of a game share a gate, so every tree declares it with the same settings",
						d.Name, gateSettings(d.Users, d.Cooldown), old.Pos, gateSettings(old.Users, old.Cooldown))})
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	l := &gateLink{g: g, slots: make([]int32, len(decls))}
	for k, d := range decls {
		i, ok := g.byName[d.Name]
		if !ok {
			i = int32(len(g.gates))
			g.byName[d.Name] = i
			g.gates = append(g.gates, gateState{decl: d, since: math.NaN()})
		}
		l.slots[k] = i
	}
	g.links[b] = l
	return l, nil
}

// GateInfo is a gate's declaration, state and counts, as Gates.List
// reports them.
type GateInfo struct {
	GateDecl
	Holders []string // the ids of the agents holding it, in the order they took it
	// CoolingSince is the agent time of the last release, from which the
	// cooldown runs; NaN when it was never released.
	CoolingSince float64
	GateStats
}

// List reports every gate, in the order their trees declared them. Ongoing
// holds count towards the longest hold, measured to their holders' current
// step and time.
func (g *Gates) List() []GateInfo {
	g.settle()
	out := make([]GateInfo, len(g.gates))
	for i := range g.gates {
		st := &g.gates[i]
		info := GateInfo{GateDecl: st.decl, CoolingSince: st.since, GateStats: st.stats}
		for _, h := range st.holders {
			if h.a == nil { // held in another process: its place, and no current step to measure to
				info.Holders = append(info.Holders, remoteName(h.place))
				continue
			}
			info.Holders = append(info.Holders, h.a.id)
			info.longest(h.a.step-h.step, h.a.time-h.time)
		}
		out[i] = info
	}
	return out
}

// longest records a hold of steps steps and secs seconds.
func (s *GateStats) longest(steps uint64, secs float64) {
	s.LongestSteps = max(s.LongestSteps, steps)
	s.LongestSeconds = max(s.LongestSeconds, secs)
}

// open reports whether gate i could be taken at time t: not full, not
// cooling down.
func (st *gateState) open(t float64) bool {
	return len(st.holders) < st.decl.Users && !st.cooling(t)
}

// cooling reports whether the gate is cooling down at time t.
func (st *gateState) cooling(t float64) bool {
	return st.decl.Cooldown > 0 && !math.IsNaN(st.since) && t-st.since < st.decl.Cooldown
}

// slot is the place (1, 2, ...) of agent a among the gate's holders, or 0.
func (st *gateState) slot(a *Agent) int {
	for k := range st.holders {
		if st.holders[k].a == a {
			return k + 1
		}
	}
	return 0
}

// grant makes agent a a holder of the gate, from step and time t.
func (st *gateState) grant(a *Agent, step uint64, t float64) {
	st.holders = append(st.holders, gateHolder{a: a, step: step, time: t})
	for k := range st.holders {
		st.holders[k].seen = max(st.holders[k].seen, len(st.holders))
	}
	st.stats.Takes++
}

// release removes agent a from the gate's holders at step and time t: the
// cooldown runs from t, and the hold counts towards the longest.
func (st *gateState) release(a *Agent, step uint64, t float64) {
	k := st.slot(a) - 1
	if k < 0 {
		return
	}
	st.releaseHold(st.holders[k], step, t)
	copy(st.holders[k:], st.holders[k+1:])
	st.holders[len(st.holders)-1] = gateHolder{}
	st.holders = st.holders[:len(st.holders)-1]
}

// EndRound ends a round (Resolver): round holds the agents that ran in it,
// in config order. The releases they requested are applied first, then
// their takes are granted or refused, in that order, at each agent's time:
// a take is granted when the gate has room and is not cooling down.
func (g *Gates) EndRound(round []*Agent) error {
	for _, a := range round {
		if x := a.gatesOf(g); x != nil && len(x.releases) > 0 {
			a.applyReleases(x)
		}
	}
	for _, a := range round {
		if a.phase == phaseWaitGate {
			if x := a.gatesOf(g); x != nil && x.answer == takeAsked {
				a.decideTake(x)
			}
		}
	}
	return nil
}

// Continue resumes the step of an agent paused at a take of these gates
// (Resolver), once EndRound decided it. ok is false for an agent that does
// not wait for one.
func (g *Gates) Continue(a *Agent) (Status, error, bool) {
	if a.phase != phaseWaitGate {
		return 0, nil, false
	}
	x := a.gatesOf(g)
	if x == nil || (x.answer != takeGranted && x.answer != takeRefused) {
		return 0, nil, false // not decided (the round has not ended), or forgotten (the agent was closed)
	}
	st, err := a.completeTake()
	return st, err, true
}

// settle ends the round of a Gates made for one agent alone, whose releases
// wait for the next step (or a take) to be applied: what the state is
// between steps.
func (g *Gates) settle() {
	if a := g.solo; a != nil {
		if x := a.gatesOf(g); x != nil && len(x.releases) > 0 {
			a.applyReleases(x)
		}
	}
}
