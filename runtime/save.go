package runtime

import (
	"errors"
	"fmt"

	"github.com/btrun/btrun/runtime/savecodec"
)

// HostState lets a host that keeps state in agents (luabind: Lua tables)
// take part in saving and restoring them. The host's state of an agent is
// one Value in the save, which the host writes and reads piece by piece
// (Encoder.ValueNil and its siblings, Decoder.ValueHead), so that no Value
// is built on the way.
type HostState interface {
	// EncodeHost writes the agent's state as exactly one Value. After an
	// error, what it wrote is garbage, and so is the save.
	EncodeHost(e *savecodec.Encoder, a *Agent) error
	// CheckHost reads the Value EncodeHost wrote, all of it and nothing
	// after it, from d, and reports whether it can be restored. d's reads
	// refuse data that is not well formed (read nested values with
	// SkipValue, which bounds nesting); the restore takes the Value to end
	// where CheckHost stopped reading. CheckHost must not change anything:
	// restore checks every agent before it changes any.
	CheckHost(a *Agent, d *savecodec.Decoder) error
	// RestoreHost reads the same Value again, after every check passed,
	// from a d that holds it alone, and gives it to the agent.
	RestoreHost(a *Agent, d *savecodec.Decoder) error
}

// AgentsMagic and AgentsVersion frame the data SaveAgents writes. Version 2
// added each agent's generator, timeout clocks, cooldowns and choice orders;
// version 3 the lanes of parallels; version 4 gates (the rules that hold
// them, and after the agents the state of the gates they share); version 5
// each agent's stimuli (the last data and arrival time of each signal it
// holds); version 6 the counts of repeat and attempts and which rules
// with hooks or log.start started; version 7 each agent's slots (the tree
// each holds and the tree grafted into it); version 8 the states of active
// custom rules (custom_save.go); version 9 changed nothing in the agents'
// data (a game's save file, whose version is this one, added the world's
// game.shared). Versions 1 to 8 still load (RestoreAgents converts them).
const (
	AgentsMagic   = "BTRUNAGT"
	AgentsVersion = 9
)

// SaveAgents saves agents (with their host state, when host is not nil) as
// one self-contained block of bytes.
func SaveAgents(agents []*Agent, host HostState) ([]byte, error) {
	e := savecodec.NewEncoder()
	if err := EncodeAgents(e, agents, host); err != nil {
		return nil, err
	}
	return savecodec.WriteContainer(AgentsMagic, AgentsVersion, e), nil
}

// encodeAgentRun writes each agent's snapshot and host state, appending
// what fails to errs.
func encodeAgentRun(e *savecodec.Encoder, agents []*Agent, host HostState, errs []error) []error {
	s := Snapshot{borrowed: true} // one for all: its lists are reused; written at once
	for _, a := range agents {
		if err := a.snapshotInto(&s); err != nil {
			errs = append(errs, err)
			continue
		}
		encodeSnapshotHead(e, &s)
		if host == nil {
			e.ValueNil()
		} else if err := host.EncodeHost(e, a); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// EncodeAgents writes the agents' snapshots into e, then the state of the
// gates they share (gates_save.go). On error, e holds garbage.
func EncodeAgents(e *savecodec.Encoder, agents []*Agent, host HostState) error {
	e.Uvarint(uint64(len(agents)))
	errs := encodeAgentRun(e, agents, host, nil)
	if err := encodeGateSets(e, agents); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// RestoreAgents restores agents from SaveAgents data: all or nothing. Every
// snapshot is decoded and checked against its agent (same ids, in order)
// before any agent changes; on any error every agent keeps its state.
func RestoreAgents(data []byte, agents []*Agent, host HostState) ([]string, error) {
	version, d, err := savecodec.ReadContainer(AgentsMagic, data)
	if err != nil {
		return nil, err
	}
	if version < 1 || version > AgentsVersion {
		return nil, fmt.Errorf("%w: agents data version %d; this btrun reads versions 1 to %d", ErrCorrupt, version, AgentsVersion)
	}
	plan, err := PlanAgents(d, agents, host)
	if err != nil {
		return nil, err
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	return plan.Warnings(), plan.Apply()
}

// AgentsPlan is a restore of many agents, checked and ready to apply.
type AgentsPlan struct {
	agents []*Agent
	plans  []RestorePlan
	hosts  []hostSpan // where each agent's host Value, still encoded, is in buf
	buf    []byte     // the save's bytes, until Apply is done
	strs   []string   // the save's string table, which the host Values refer to
	host   HostState
	hostD  savecodec.Decoder // reads one of hosts
	gates  []gateSetPlan     // the state of the Gates the agents share
	gwarn  []string          // what planning the gates let through
	// slab is the array the plans' slabs are cut from, kept for the next
	// Plan unless an agent took its part as its own (RestorePlan.Apply
	// does when the lengths differ): then nil.
	slab []uint64
}

// PlanAgents decodes one snapshot per agent (the save's agents must be the
// same, in the same order) and checks each, then the state of the gates
// they share, changing nothing.
func PlanAgents(d *savecodec.Decoder, agents []*Agent, host HostState) (*AgentsPlan, error) {
	p := &AgentsPlan{}
	if err := p.Plan(d, agents, host); err != nil {
		return nil, err
	}
	return p, nil
}

// Plan is PlanAgents into p. It reuses the arrays of the plan p held
// before, applied or abandoned (nothing of it is used any more): a game
// that loads again and again allocates them once, and finds them in the
// cache rather than in memory just taken from the system.
func (p *AgentsPlan) Plan(d *savecodec.Decoder, agents []*Agent, host HostState) error {
	n := d.Count(8)
	if d.Err() != nil {
		return d.Err()
	}
	if n != len(agents) {
		return fmt.Errorf("%w: the save holds %d agents, the game has %d", ErrUnknownID, n, len(agents))
	}
	plans, hosts := p.plans[:0], p.hosts[:0]
	if cap(plans) < n || cap(hosts) < n {
		plans, hosts = make([]RestorePlan, n), make([]hostSpan, n)
	}
	slabs := 0
	for _, a := range agents {
		slabs += a.bound.slabLen
	}
	slab := p.slab
	if cap(slab) < slabs {
		slab = make([]uint64, slabs)
	}
	slab = slab[:slabs] // each plan's part is written whole (planRestore)
	// Every plan is made anew by planRestore before it is used; a plan
	// left from before is only read if this one fails, and then not at all.
	*p = AgentsPlan{agents: agents, host: host, buf: d.Input(), strs: d.StringTable(), plans: plans[:n], hosts: hosts[:n], slab: slab}
	// Allocations per restore, not per agent: the snapshots are read
	// through one Snapshot, the plans keep what they need of it, every
	// agent's slab is cut from one array and rule bytes from another, and
	// the active paths are planned through one array.
	var s Snapshot
	var ruleBytes []byte
	var paths []lanePath
	var errs []error
	for i, a := range agents {
		decodeSnapshotHead(d, &s, &ruleBytes)
		k := a.bound.slabLen
		var err error
		if d.Err() == nil && s.ID == a.ID() {
			rp := &p.plans[i]
			rp.paths = paths
			err = a.planRestore(rp, &s, slab[:k:k])
			paths, rp.paths = rp.paths[:0], nil // the next agent's to plan with
		}
		slab = slab[k:]
		// The host's Value: the host checks it as it reads it (through d,
		// which refuses what is not well formed); else, or when the host
		// refuses it, it is skipped to find where it ends.
		start := d.Offset()
		if host != nil && err == nil && d.Err() == nil && s.ID == a.ID() {
			if err = host.CheckHost(a, d); err != nil && d.Err() == nil {
				d.Seek(start)
				d.SkipValue()
			}
		} else {
			d.SkipValue()
		}
		if d.Err() != nil {
			return d.Err()
		}
		p.hosts[i] = hostSpan{start, d.Offset()}
		if s.ID != a.ID() {
			return fmt.Errorf("%w: the save's agent %d is %q, the game's is %q: the save is of another game", ErrUnknownID, i+1, s.ID, a.ID())
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	var saved [][]GateSnapshot
	if savedVersion(d) >= 4 {
		saved = decodeGateSets(d)
		if d.Err() != nil {
			return d.Err()
		}
	}
	var err error
	p.gates, p.gwarn, err = planGateSets(saved, agents, p.plans)
	return err
}

// hostSpan is where an agent's host Value is in the save's bytes.
type hostSpan struct{ start, end int }

func (h hostSpan) len() int { return h.end - h.start }

// hostValue is a decoder of agent i's saved host Value (reused: one at a
// time).
func (p *AgentsPlan) hostValue(i int) *savecodec.Decoder {
	p.hostD = savecodec.MakeDecoder(0, p.buf[p.hosts[i].start:p.hosts[i].end], p.strs)
	return &p.hostD
}

// Warnings collects the agents' restore warnings. A warning about a tree
// would otherwise repeat for every agent of that tree, so each text comes
// once (without the agent's name when several agents share it).
func (p *AgentsPlan) Warnings() []string {
	count := map[string]int{}
	var order []string
	for i := range p.plans {
		rp := &p.plans[i]
		for _, w := range rp.warnings {
			k := w[len(rp.prefix()):]
			if count[k] == 0 {
				order = append(order, k)
			}
			count[k]++
		}
	}
	out := make([]string, len(order))
	for i, k := range order {
		if count[k] == 1 {
			out[i] = k
		} else {
			out[i] = fmt.Sprintf("%d agents: %s", count[k], k)
		}
	}
	return append(out, p.gwarn...)
}

// Apply restores every agent, then the gates they share. Errors from cancel
// hooks of replaced running actions, or from the host, are returned; every
// agent is restored anyway.
func (p *AgentsPlan) Apply() error {
	var errs []error
	for i := range p.plans {
		if err := p.plans[i].Apply(); err != nil {
			errs = append(errs, err)
		}
		if s, a := p.plans[i].slab, p.agents[i]; len(s) > 0 && len(a.slab) > 0 && &a.slab[0] == &s[0] {
			p.slab = nil // the agent's now: the next Plan takes a new array
		}
		if p.host != nil {
			d := p.hostValue(i)
			err := p.host.RestoreHost(p.agents[i], d)
			if err == nil && d.Remaining() != 0 {
				err = fmt.Errorf("%w: agent %s: the host read %d of the %d bytes of its state when restoring, all when checking", ErrCorrupt, p.agents[i].ID(), p.hosts[i].len()-d.Remaining(), p.hosts[i].len())
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	for i := range p.gates {
		p.gates[i].apply()
	}
	// A plan kept for reuse (Plan) does not keep the save's bytes alive.
	p.buf, p.strs, p.hostD = nil, nil, savecodec.Decoder{}
	return errors.Join(errs...)
}
