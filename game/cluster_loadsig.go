package game

import (
	"slices"

	"github.com/btrun/btrun/cluster"
)

// A load into a running cluster (loadNoCopy) restores the agents on their
// shards, cancelling the actions they were running: what the cancel hooks
// log and send is the run's, as one process's Load writes the lines as it
// restores its agents in config order and queues the signals ahead of the
// next step's own. So a shard's load restores its agents aloud and adds
// each one's lines and signals to its reply at the agent's place
// (restoreAgentsTo); the conductor merges the shards' replies into one
// process's order, writes the lines and carries the signals into the next
// step's first deliveries (cluster.Conductor.LoadRange). A restore's
// trace changes (a signal the hook sent its own agent) stay with the
// agent for its next step's lines, as in one process.
//
// Only a load asks for this, with the loadOut item (a reload's or a
// move's restores are of agents whose cancel hooks ran elsewhere). A
// conductor that holds copies of the agents (a live view) loads them
// silently (decodeCopies): its copies' hooks run too, but their lines,
// signals and changes are the shards' agents' to give.

// loadOutItem names the Load item that asks the shards for what their
// restores wrote and sent.
const loadOutItem = "loadout"

// loadOut is that item.
var loadOut = cluster.Item{Kind: cluster.AgentSave, Agent: -1, Name: loadOutItem}

// LoadOut is the shard's cluster.LoadOutHost: a load that asks for it
// (loadOut) replies what the restores wrote and sent; another restores
// silently (restoreAgents).
func (h *shardHost) LoadOut(saves []cluster.Item, out *cluster.Out) error {
	if !slices.ContainsFunc(saves, func(it cluster.Item) bool { return it.Agent == -1 && it.Name == loadOutItem }) {
		return h.restoreAgents(saves)
	}
	return h.restoreAgentsTo(saves, out)
}

// decodeCopies loads data into the conductor's copies of the agents,
// keeping nothing of what their restores write, send or change: the
// shards' restores give those (LoadOut).
func (h *conductorHost) decodeCopies(data []byte) error {
	g := h.g
	g.silent = true
	_, err := g.decodeSave(data)
	g.silent = false
	clear(g.outbox)
	g.outbox = g.outbox[:0]
	for _, ga := range g.agents {
		ga.changes = ga.changes[:0]
	}
	return err
}
