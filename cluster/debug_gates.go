package cluster

import "fmt"

// A live view's jump between steps leaves the agent's rules, and in a game
// with gates the rules it leaves release the gates they held, at once, at
// the agent's step and time (one process's Agent.Jump). Every process
// keeps a copy of the gates (the agents' conditions read them), but only
// the agent's shard can apply the jump: so, as an agent's removal does
// (remove.go), the jump takes two messages when it released a gate. Its
// shard replies to the jump with the releases (a DebugNote item named
// DebugGates, Data the game's encoding of the agent's gate part); the
// conductor applies them to its own copy and gives them to every shard
// in a second Debug message (an item named DebugGates, Agent the jumping
// agent), each shard but the agent's applying them by the agent's place.
// Without it, the copies part: a later take one copy grants is refused by
// another, and a reload, save or checkpoint that reads the conductor's
// copy finds an agent holding a gate by its rules but not among its
// holders.

// DebugGates is a Debug item (and a reply's DebugNote item) carrying the
// gate releases of a jump between steps, for Agent (Data: the game's
// encoding).
const DebugGates = "gates"

// DebugJumpInput is DebugInput for a jump: when the jump released gates,
// it gives every shard the releases (each shard but the agent's applies
// them to its copy of the gates) and returns them for the conductor's
// copy (nil when it released none).
func (c *Conductor) DebugJumpInput(step uint64, cmd Item) (releases []byte, err error) {
	if err := c.DebugInput(step, cmd); err != nil {
		return nil, err
	}
	releases, err = c.takeGateNote(cmd.Agent)
	if err != nil || releases == nil {
		return nil, err
	}
	c.begin(Debug, step)
	for k := range c.out {
		c.out[k].Items = append(c.out[k].Items, Item{Kind: DebugNote, Order: Place(PhaseDelivery, 0), Agent: cmd.Agent, Peer: -1, Name: DebugGates, Data: releases})
	}
	if err := c.exchange(false); err != nil {
		return nil, fmt.Errorf("cluster: after step %d, the gates agent %d's jump released: %w", step, cmd.Agent, err)
	}
	return releases, nil
}

// takeGateNote takes out of the notes the releases of agent p's jump (nil
// for none): one DebugGates note at most, of that agent.
func (c *Conductor) takeGateNote(p int32) ([]byte, error) {
	var releases []byte
	found := false
	kept := c.notes[:0]
	for _, n := range c.notes {
		if n.Name != DebugGates {
			kept = append(kept, n)
			continue
		}
		if found || n.Agent != p {
			return nil, fmt.Errorf("cluster: a shard replied to agent %d's jump with the gate releases of agent %d", p, n.Agent)
		}
		found, releases = true, n.Data
	}
	clear(c.notes[len(kept):])
	c.notes = kept
	if found && len(releases) == 0 {
		return nil, fmt.Errorf("cluster: a shard replied to agent %d's jump with empty gate releases", p)
	}
	return releases, nil
}
