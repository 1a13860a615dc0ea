package runtime

import (
	"errors"
	"fmt"

	"github.com/btrun/btrun/runtime/savecodec"
)

// A carry moves agents over to edited versions of their trees, while the
// game runs (a hot reload): each new agent, bound to the new version (and,
// for a game with scripts, to a new host: a fresh Lua state with the new
// scripts), takes its old agent's whole state, as a save and a restore
// would, with every rule reference (the cursor, timeout clocks, cooldowns,
// choice orders) found through a RuleMap instead of by id. So an agent keeps
// its variables, timestamps, generator, host state (ctx.memory, ctx.agent,
// and ctx.state of the rule it sits on) and its place, as long as the rule
// it sits on is still there. The gates it holds, and the state of the gates
// the agents share, are carried too (gates_carry.go).
//
// What a carry does not do is decide what happens to an agent whose rule is
// gone: RuleMap.Unplaced says who they are, and the caller resets them
// first (their running action is cancelled by the old version's cancel
// hook, and their active rules are left, so that cooldowns start); they are
// then carried over at the root.

// carried is what a snapshot made for a carry knows beyond a save's: the
// map to the new version and the cursor's place in the old one.
type carried struct {
	m      *RuleMap
	cursor int32
}

// cursorIn finds the snapshot's cursor in t: by its id, or, carried, through
// the RuleMap.
func (s *Snapshot) cursorIn(t *Tree) (int32, bool) {
	if c := s.carry; c != nil {
		return c.m.cursor(c.cursor, s.Running)
	}
	return t.RuleIndex(s.Cursor)
}

// ruleIn finds a rule the snapshot names by label and index (a clock, a
// cooldown, an order): in b's tree as a save is read, or, carried, through
// the RuleMap (the index is then the rule's in the old version).
func (s *Snapshot) ruleIn(b *BoundTree, label string, index int32) (int32, bool) {
	if c := s.carry; c != nil {
		return c.m.Rule(index)
	}
	return b.resolveLabel(label, index)
}

// CarryPlan is a carry, checked and ready to apply.
type CarryPlan struct {
	to    []*Agent
	plans []RestorePlan
	host  HostState
	enc   *savecodec.Encoder // the host state of every agent, as the old host wrote it
	spans [][2]int           // where agent i's is in enc
	hostD savecodec.Decoder
	gates []gateCarry // the state of the gates the new agents share (gates_carry.go)
	gwarn []string
}

// PlanCarry checks that the agents from (running the old versions of their
// trees, with the old host fromHost) can be carried over to the agents to
// (the same ids in the same order, running the new versions, with toHost),
// and returns the plan, changing nothing. maps holds a RuleMap from each old
// tree to its new version. Every agent must keep its place
// (RuleMap.Unplaced); the others are an error, as is host state the new
// host cannot take. Hosts may be nil (a game without one).
func PlanCarry(from, to []*Agent, fromHost, toHost HostState, maps []*RuleMap) (*CarryPlan, error) {
	if len(from) != len(to) {
		return nil, fmt.Errorf("runtime: carry of %d agents onto %d", len(from), len(to))
	}
	p := &CarryPlan{to: to, host: toHost, enc: savecodec.NewEncoder(), plans: make([]RestorePlan, len(to)), spans: make([][2]int, len(to))}
	var s Snapshot
	var ruleBytes []byte
	var errs []error
	for i, old := range from {
		a := to[i]
		if err := carryable(old, a, maps); err != nil {
			errs = append(errs, err)
			continue
		}
		m := mapFor(maps, old, a)
		if err := old.snapshotOf(&s, true); err != nil {
			errs = append(errs, err)
			continue
		}
		s.carry = &carried{m: m, cursor: old.cursor}
		if len(s.RuleBytes) > 0 { // the old agent's own slice: copied, so that the plan owns what it keeps
			start := len(ruleBytes)
			ruleBytes = append(ruleBytes, s.RuleBytes...)
			s.RuleBytes = ruleBytes[start:len(ruleBytes):len(ruleBytes)]
		}
		if err := a.planRestore(&p.plans[i], &s, make([]uint64, a.bound.slabLen)); err != nil {
			errs = append(errs, err)
			continue
		}
		start := len(p.enc.Bytes())
		if fromHost == nil {
			p.enc.ValueNil()
		} else if err := fromHost.EncodeHost(p.enc, old); err != nil {
			errs = append(errs, err)
			continue
		}
		p.spans[i] = [2]int{start, len(p.enc.Bytes())}
		if toHost != nil {
			d := p.hostValue(i)
			err := toHost.CheckHost(a, d)
			if err == nil && d.Err() == nil && d.Remaining() != 0 {
				err = fmt.Errorf("%w: agent %s: the new host reads %d of the %d bytes of its state", ErrCorrupt, a.id, p.spans[i][1]-p.spans[i][0]-d.Remaining(), p.spans[i][1]-p.spans[i][0])
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var err error
	if p.gates, p.gwarn, err = planGateCarry(from, to, p.plans); err != nil {
		return nil, err
	}
	return p, nil
}

// carryable checks that old can be carried over to a: same id, a map for
// its trees, and a place in the new version.
func carryable(old, a *Agent, maps []*RuleMap) error {
	switch {
	case old.id != a.id:
		return &Error{Agent: a.id, Err: ErrUnknownID, Msg: fmt.Sprintf("cannot carry agent %q over to agent %q", old.id, a.id)}
	case old.Paused() || a.Paused():
		return &Error{Agent: a.id, Err: ErrBusy, Msg: "cannot carry an agent over while a step is paused"}
	}
	m := mapFor(maps, old, a)
	if m == nil {
		return &Error{Agent: a.id, Msg: fmt.Sprintf("no rule map from tree %s to its new version", old.bound.Tree.File)}
	}
	if g, lost := m.Unplaced(old, a); lost {
		return &Error{Agent: a.id, Err: ErrUnknownID, Msg: fmt.Sprintf("cannot carry the agent over: its %s; reset it first", g)}
	}
	return nil
}

// mapFor finds the map from old's tree to a's.
func mapFor(maps []*RuleMap, old, a *Agent) *RuleMap {
	for _, m := range maps {
		if m.from == old.bound.Tree && m.to == a.bound.Tree {
			return m
		}
	}
	return nil
}

// hostValue is a decoder of agent i's host state (reused: one at a time).
func (p *CarryPlan) hostValue(i int) *savecodec.Decoder {
	sp := p.spans[i]
	p.hostD = savecodec.MakeDecoder(AgentsVersion, p.enc.Bytes()[sp[0]:sp[1]], p.enc.Strings())
	return &p.hostD
}

// Warnings are what the carry lets through: variables and timestamps no
// longer declared, clocks, cooldowns and orders of rules that are gone
// (each text once, counted when several agents share it).
func (p *CarryPlan) Warnings() []string {
	return (&AgentsPlan{plans: p.plans, gwarn: p.gwarn}).Warnings()
}

// Apply gives every new agent its old agent's state. The new agents must
// not have stepped; errors from the host are returned, and every agent is
// carried anyway.
func (p *CarryPlan) Apply() error {
	var errs []error
	for i := range p.plans {
		if err := p.plans[i].Apply(); err != nil {
			errs = append(errs, err)
		}
		if p.host != nil {
			if err := p.host.RestoreHost(p.to[i], p.hostValue(i)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for i := range p.gates {
		p.gates[i].apply()
	}
	return errors.Join(errs...)
}

// orderIn is a saved choice order for choice r of b's tree: as saved, or,
// carried, with each child's position in the old version turned into its
// position in the new one. Children that are gone are left out, and
// children the new version added are not in the order (they are tried when
// the choice is next entered), as for a choice whose order left them out.
func (s *Snapshot) orderIn(r int32, o RuleOrder) []int32 {
	c := s.carry
	if c == nil {
		return o.Order
	}
	from, to := c.m.from, c.m.to
	out := make([]int32, 0, len(o.Order))
	for _, pos := range o.Order {
		old, ok := childAt(from, o.Index, int(pos))
		if !ok {
			return nil
		}
		n, ok := c.m.Rule(old)
		if ok && to.Rules[n].Parent == r {
			out = append(out, int32(position(to, n)))
		}
	}
	return out
}

// laneCursorIn finds a saved lane's cursor in t: by its id, or, carried,
// through the RuleMap.
func (s *Snapshot) laneCursorIn(t *Tree, l *LaneSnapshot) (int32, bool) {
	if c := s.carry; c != nil {
		return c.m.Rule(l.cursorAt)
	}
	return t.RuleIndex(l.Cursor)
}
