package runtime

import (
	"errors"
	"fmt"
)

// HostState lets a host that keeps state in agents (luabind: Lua tables)
// take part in saving and restoring them. CheckHost must not change
// anything: restore checks every agent before it changes any.
type HostState interface {
	SaveHost(a *Agent) (Value, error)
	CheckHost(a *Agent, v Value) error
	RestoreHost(a *Agent, v Value) error
}

// AgentsMagic and AgentsVersion frame the data SaveAgents writes. Version 2
// added each agent's generator, timeout clocks, cooldowns and choice orders;
// version 1 data still loads (RestoreAgents converts it).
const (
	AgentsMagic   = "BTRUNAGT"
	AgentsVersion = 2
)

// SaveAgents saves agents (with their host state, when host is not nil) as
// one self-contained block of bytes.
func SaveAgents(agents []*Agent, host HostState) ([]byte, error) {
	e := NewEncoder()
	if err := EncodeAgents(e, agents, host); err != nil {
		return nil, err
	}
	return WriteContainer(AgentsMagic, AgentsVersion, e), nil
}

// EncodeAgents writes the agents' snapshots into e.
func EncodeAgents(e *Encoder, agents []*Agent, host HostState) error {
	e.Uvarint(uint64(len(agents)))
	var errs []error
	for _, a := range agents {
		s, err := a.Snapshot()
		if err == nil && host != nil {
			s.Host, err = host.SaveHost(a)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		e.Snapshot(&s)
	}
	return errors.Join(errs...)
}

// RestoreAgents restores agents from SaveAgents data: all or nothing. Every
// snapshot is decoded and checked against its agent (same ids, in order)
// before any agent changes; on any error every agent keeps its state.
func RestoreAgents(data []byte, agents []*Agent, host HostState) ([]string, error) {
	version, d, err := ReadContainer(AgentsMagic, data)
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
	plans  []*RestorePlan
	snaps  []Snapshot
	host   HostState
}

// PlanAgents decodes one snapshot per agent (the save's agents must be the
// same, in the same order) and checks each, changing nothing.
func PlanAgents(d *Decoder, agents []*Agent, host HostState) (*AgentsPlan, error) {
	n := d.Count(8)
	if d.Err() != nil {
		return nil, d.Err()
	}
	if n != len(agents) {
		return nil, fmt.Errorf("%w: the save holds %d agents, the game has %d", ErrUnknownID, n, len(agents))
	}
	p := &AgentsPlan{agents: agents, host: host, snaps: make([]Snapshot, n), plans: make([]*RestorePlan, n)}
	var errs []error
	for i, a := range agents {
		p.snaps[i] = d.Snapshot()
		if d.Err() != nil {
			return nil, d.Err()
		}
		if p.snaps[i].ID != a.ID() {
			return nil, fmt.Errorf("%w: the save's agent %d is %q, the game's is %q: the save is of another game", ErrUnknownID, i+1, p.snaps[i].ID, a.ID())
		}
		rp, err := a.PlanRestore(&p.snaps[i])
		if err == nil && host != nil {
			err = host.CheckHost(a, p.snaps[i].Host)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.plans[i] = rp
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// Warnings collects the agents' restore warnings. A warning about a tree
// would otherwise repeat for every agent of that tree, so each text comes
// once (without the agent's name when several agents share it).
func (p *AgentsPlan) Warnings() []string {
	count := map[string]int{}
	var order []string
	for _, rp := range p.plans {
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
	return out
}

// Apply restores every agent. Errors from cancel hooks of replaced running
// actions, or from the host, are returned; every agent is restored anyway.
func (p *AgentsPlan) Apply() error {
	var errs []error
	for i, rp := range p.plans {
		if err := rp.Apply(); err != nil {
			errs = append(errs, err)
		}
		if p.host != nil {
			if err := p.host.RestoreHost(p.agents[i], p.snaps[i].Host); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
