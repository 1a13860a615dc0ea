package cluster

import (
	"fmt"
)

// Agents added and removed between two steps: every shard changes its
// directory of agents as one process changes its list (the places after a
// removed agent move up one; an added one comes last), and takes its range
// of the new layout, which the conductor chooses (an added agent joins the
// last shard; a removed one leaves its shard's range; no other agent
// changes shards). After a load of a save holding other agents, every
// shard takes the save's list (AgentList) and its range of a new cut.

// AgentsHost is a shard host that takes agents added and removed.
type AgentsHost interface {
	// ChangeAgents applies change (AgentAdd: add the agent, restoring it
	// from its save where the shard's new range holds it; AgentRemove:
	// remove it, closing it where the shard held it, its records and
	// signals added to out at Place(PhaseDelivery, 0), its close's error
	// as an AgentRemove item; AgentList: take the list of agents, making
	// those of the new range, to be loaded next) and makes [lo, hi) the
	// shard's range.
	ChangeAgents(change *Item, lo, hi int32, out *Out) error
}

// ChangeAgents gives every shard change (an AgentAdd or AgentRemove item,
// or none with Kind 0: the ranges only) and its range in layout, writes
// the records they reply, routes the signals sent into the next step's
// first deliveries, and makes layout the conductor's. It returns the
// error a removed agent's close returned ("" for none).
func (c *Conductor) ChangeAgents(step uint64, change Item, layout Layout) (string, error) {
	if err := c.init(); err != nil {
		return "", err
	}
	if layout.Shards() != c.Layout.Shards() {
		return "", fmt.Errorf("%w: %d shards in the new layout, %d in the old", ErrLayout, layout.Shards(), c.Layout.Shards())
	}
	c.begin(InputAgents, step)
	for k := range c.out {
		if change.Kind != 0 {
			c.out[k].Items = append(c.out[k].Items, change)
		}
		lo, hi := layout.Range(k)
		c.out[k].Items = append(c.out[k].Items, Item{Kind: AgentRange, Agent: lo, Peer: hi})
		if err := c.Link.Send(k, &c.out[k]); err != nil {
			return "", err
		}
	}
	if err := c.Link.Gather(c.replies); err != nil {
		return "", fmt.Errorf("cluster: after step %d, changing the agents: %w", step, err)
	}
	c.lists = c.lists[:0]
	for k := range c.replies {
		if err := c.changeReplied(k, &change); err != nil { // reply_check.go
			return "", err
		}
		c.lists = append(c.lists, c.replies[k].Items)
	}
	var err error
	if c.merged, err = Merge(c.merged[:0], c.lists...); err != nil {
		return "", err
	}
	c.records, c.outbox = c.records[:0], c.outbox[:0]
	closeErr := ""
	for _, it := range c.merged {
		switch it.Kind {
		case Record:
			c.records = append(c.records, it)
		case Signal:
			c.outbox = append(c.outbox, it)
		case AgentRemove:
			closeErr = it.Text
		case AgentClose:
			c.closed = it.Data // remove.go
		default:
			return "", fmt.Errorf("cluster: a shard replied to an agent's change with a %s item", it.Kind)
		}
	}
	if len(c.records) > 0 {
		if err := c.Host.Write(c.records); err != nil {
			return "", err
		}
	}
	if err := c.carry1(); err != nil {
		return "", err
	}
	if change.Kind == AgentRemove {
		c.removePlace(change.Agent)
	}
	c.Layout = layout
	return closeErr, nil
}

// removePlace makes the carried deliveries those of the game without the
// agent at place p: one to it is dropped (as one process drops signals to
// an agent removed), places after it move up one, and a signal it sent
// to all reaches every agent left.
func (c *Conductor) removePlace(p int32) {
	kept := c.inCarry[:0]
	for _, d := range c.inCarry {
		switch {
		case d.Agent == p:
			continue
		case d.Agent > p:
			d.Agent--
		}
		switch {
		case d.Peer == p:
			d.Peer = -1
		case d.Peer > p:
			d.Peer--
		}
		kept = append(kept, d)
	}
	clear(c.inCarry[len(kept):])
	c.inCarry = kept
}

// changeAgents serves an InputAgents message.
func (s *Shard) changeAgents(m *Message) error {
	h, ok := s.Host.(AgentsHost)
	if !ok {
		return fmt.Errorf("cluster: shard: this shard takes no agents added or removed")
	}
	var change Item
	var rng *Item
	for i := range m.Items {
		switch it := &m.Items[i]; it.Kind {
		case AgentAdd, AgentRemove, AgentList, AgentClose:
			change = *it
		case AgentRange:
			rng = it
		default:
			return fmt.Errorf("cluster: shard: a %s item in a %s message", it.Kind, m.Kind)
		}
	}
	if rng == nil || rng.Agent < 0 || rng.Peer < rng.Agent {
		return fmt.Errorf("cluster: shard: a %s message without a range", m.Kind)
	}
	return h.ChangeAgents(&change, rng.Agent, rng.Peer, &s.out)
}
