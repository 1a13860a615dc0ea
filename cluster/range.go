package cluster

import "fmt"

// LoadRange gives every shard the saves of its agents (AgentSave items,
// one per agent, Agent its place), whatever layout made them, and common,
// the items every shard gets with them (the state of what they all keep a
// copy of: the gates), first. A shard holds only its range of agents, so
// that it is given only theirs.
func (c *Conductor) LoadRange(step uint64, saves, common []Item) error {
	if err := c.init(); err != nil {
		return err
	}
	if len(saves) != c.Layout.Agents() {
		return fmt.Errorf("cluster: a save of %d agents for %d", len(saves), c.Layout.Agents())
	}
	c.begin(Load, step)
	for k := range c.out {
		for i, it := range common {
			it.Order, it.Sub = Place(PhaseSave, -1), uint64(i)
			c.out[k].Items = append(c.out[k].Items, it)
		}
	}
	for _, s := range saves {
		k := c.Layout.Of(s.Agent)
		if k < 0 || s.Kind != AgentSave {
			return fmt.Errorf("cluster: a save's %s for agent %d, which no shard holds", s.Kind, s.Agent)
		}
		s.Order, s.Sub = Place(PhaseSave, int64(s.Agent)), 0
		c.out[k].Items = append(c.out[k].Items, s)
	}
	if err := c.exchange(true); err != nil {
		return err
	}
	return c.CarryIn(c.outbox) // loadsig.go: what the restores' cancel hooks sent
}
