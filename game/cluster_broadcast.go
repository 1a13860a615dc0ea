package game

import (
	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// broadcast is a signal to every agent ("all": the schedule's, the
// world's game.signal) on a live conductor: one delivery for every agent
// (Agent -1, Peer -1), which each shard hands to its agents in config
// order, as it hands a signal an agent sent to "all" (Route). The
// receivers' lines come back at the delivery's place ranked by agent, so
// the merge puts them in the single run's order. One delivery per agent
// made the conductor's step start (the data encoded and an item sent per
// agent) follow the number of agents rather than what happened. It reports
// false, and does nothing, where the game delivers to each agent itself.
func (g *Game) broadcast(signal string, data runtime.Value, from string) bool {
	r := g.cl
	if r == nil || !r.conductor || !r.live {
		return false
	}
	r.ownLines()
	b, err := r.encodeValue(data)
	if err != nil {
		g.out.repeatable(g.Time(g.step), "world", "error: "+err.Error())
		return true
	}
	r.entries = append(r.entries, cluster.Item{Kind: cluster.Delivery, Agent: -1, Peer: -1, Text: from, Name: signal, Data: b})
	return true
}
