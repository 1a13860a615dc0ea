package game

import "github.com/btrun/btrun/cluster"

// What the spawns send (ctx:send, bt.broadcast) waits in one process for
// the first step's deliveries, ahead of everything the step sends (the
// world's tick's handlers too). A shard kept it in its outbox until its
// first take, which a tick's world delivery could be: it then followed
// the tick's handlers' signals, or came before another shard's spawns'.
// So a shard gives it with its start's lines, at the spawn's place
// (keepSent), and the conductor carries it into the first step's queue
// (cluster.Conductor.StartLines), or, holding copies whose start is the
// run's, carries its copies' (carrySpawned).

// keepSent keeps the signals the game's agents sent since the last take,
// at order, rank hi, with the start's lines.
func (g *Game) keepSent(order, hi uint64) error {
	r := g.cl
	for _, s := range g.outbox {
		data, err := r.encodeValue(s.data)
		if err != nil {
			return err
		}
		r.start.out.Add(order, hi, cluster.Item{Kind: cluster.Signal, Agent: s.from.idx, Text: s.to, Name: s.signal, Data: data})
	}
	clear(g.outbox)
	g.outbox = g.outbox[:0]
	return nil
}

// carrySpawned carries what the conductor's copies' spawns sent into the
// first step's queue (the shards' copies of it were dropped with their
// start's lines).
func (h *conductorHost) carrySpawned(c *cluster.Conductor) error {
	g := h.g
	if len(g.outbox) == 0 {
		return nil
	}
	var out cluster.Out
	for _, s := range g.outbox {
		data, err := g.cl.encodeValue(s.data)
		if err != nil {
			return err
		}
		out.Add(spawnPlace(s.from.idx), uint64(s.from.idx), cluster.Item{Kind: cluster.Signal, Agent: s.from.idx, Text: s.to, Name: s.signal, Data: data})
	}
	clear(g.outbox)
	g.outbox = g.outbox[:0]
	return c.CarryIn(out.Items)
}
