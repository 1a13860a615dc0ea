package cluster

import "fmt"

// A save whose conductor holds no agents: each shard writes its range of
// the agents as one part of the save file's body (PartHost), and the
// conductor joins the parts in config order.

// SavePart is the Round of a Save message that asks for a shard's part
// (PartHost) instead of one save per agent.
const SavePart = 1

// PartHost is a ShardHost that writes its agents as one part of a save.
type PartHost interface {
	// SavePart adds one AgentSave item for its range [lo, hi): Agent lo,
	// Peer hi, at Place(PhaseSave, lo).
	SavePart(out *Out) error
}

func (s *Shard) savePart() error {
	h, ok := s.Host.(PartHost)
	if !ok {
		return fmt.Errorf("cluster: shard: the host writes no part of a save")
	}
	return h.SavePart(&s.out)
}

// SaveParts gathers every shard's part of a save, in config order: their
// ranges follow one another from agent 0 to the last.
func (c *Conductor) SaveParts(step uint64) ([]Item, error) {
	if err := c.init(); err != nil {
		return nil, err
	}
	parts, err := c.gatherSaves(step, SavePart)
	if err != nil {
		return nil, err
	}
	next := int32(0)
	for _, p := range parts {
		if p.Kind != AgentSave || p.Agent != next || p.Peer < p.Agent {
			return nil, fmt.Errorf("cluster: a save's part of agents %d..%d (a %s) where agent %d's comes next", p.Agent, p.Peer-1, p.Kind, next)
		}
		next = p.Peer
	}
	if int(next) != c.Layout.Agents() {
		return nil, fmt.Errorf("cluster: the shards saved %d agents of %d", next, c.Layout.Agents())
	}
	return parts, nil
}
