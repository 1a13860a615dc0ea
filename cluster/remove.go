package cluster

// An agent removed from a game with gates: every process keeps a copy of
// the gates (the agents' conditions read them), and in one process the
// removed agent's close releases the gates it held, at its step and time.
// Only its shard can close it (it alone holds the agent), so the removal
// takes two messages: CloseAgent has the agent's shard close it and reply
// with the releases its close made; the conductor applies them to its own
// copy, and gives them to every shard with the AgentRemove item of
// ChangeAgents (in Data), each applying them by the agent's place before
// it forgets the agent.

// CloseAgent has the shard holding the agent at place p (id id) close it,
// between two steps, as the first half of its removal: what its close
// wrote is written, the signals it sent are routed to the next step's
// first deliveries (those to the agent are dropped by its removal). It
// returns the close's error ("" for none) and its gate releases (the
// game's encoding; nil when it released none).
func (c *Conductor) CloseAgent(step uint64, p int32, id string) (closeErr string, releases []byte, err error) {
	c.closed = nil
	closeErr, err = c.ChangeAgents(step, Item{Kind: AgentClose, Agent: p, Peer: -1, Text: id}, c.Layout)
	releases, c.closed = c.closed, nil
	return closeErr, releases, err
}
