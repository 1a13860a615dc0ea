package game

import (
	"bytes"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// The start of a cluster's run whose conductor holds no agents. Every
// process runs the world's init (a shard's spawns need what it leaves in
// the world's Lua state); the world's own lines are the conductor's to
// write. Each signal the init delivers is counted, in every process alike
// (every delivery to every listed agent, held or not: init is the same
// script over the same list), and what the delivery writes on the shard
// that holds its receiver is kept at the count's place; the conductor's
// own lines before it keep the place before. Then each shard spawns its
// agents, keeping what each spawn writes at the agent's place. The
// conductor asks for what the shards kept (cluster.StartLines) and writes
// it with its own lines, merged: the single run's start, byte for byte.
// (A shard that serves a conductor starts after the conductor's init,
// whose signals reached its agents already: cluster_init49.go. Its init
// then delivers nothing, but after a conductor with copies, whose lines
// are the run's.)

// startRecords is what a process keeps of its start.
type startRecords struct {
	on   bool   // the start is kept by place (a shard; a conductor without copies)
	in   bool   // a delivery of the init is under way
	seq  uint64 // the init's deliveries so far
	out  cluster.Out
	sent bool // a shard gave its records (StartLines)
}

// The places of the start's records: the init's deliveries (the
// conductor's lines before delivery n at 2n, the delivery's at 2n+1), then
// the spawns by agent.
func initPlace(n uint64) uint64 { return cluster.Place(cluster.PhaseSchedule, int64(n)) }
func spawnPlace(i int32) uint64 { return cluster.Place(cluster.PhaseRound, int64(i)) }

// startDeliver is deliver during the world's init of a cluster's start.
func (g *Game) startDeliver(ga *gameAgent, signal string, data runtime.Value, from string, s uint64, t float64) {
	r := g.cl
	n := r.start.seq
	r.start.seq++
	if err := g.flushTrace(); err != nil {
		g.out.repeatable(t, "world", "error: "+err.Error())
	}
	if r.conductor {
		g.keepLines(initPlace(2*n), 0)
	} else {
		r.trace.Reset() // the world's lines: the conductor writes them
		r.out.Reset()
	}
	r.start.in = true
	g.deliver(ga, signal, data, from, s, t)
	r.start.in = false
	if !r.conductor && ga != nil && ga.a != nil {
		if err := g.flushTrace(); err != nil {
			g.out.repeatable(t, "world", "error: "+err.Error())
		}
		g.keepLines(initPlace(2*n+1), uint64(ga.idx))
	}
}

// keepLines keeps what the game wrote since it last kept or took, at
// order, rank hi.
func (g *Game) keepLines(order, hi uint64) {
	r := g.cl
	if r.trace.Len() > 0 {
		r.start.out.Add(order, hi, cluster.Item{Kind: cluster.Record, Text: "trace", Data: bytes.Clone(r.trace.Bytes())})
		r.trace.Reset()
	}
	if r.out.Len() > 0 {
		r.start.out.Add(order, hi, cluster.Item{Kind: cluster.Record, Text: "out", Data: bytes.Clone(r.out.Bytes())})
		r.out.Reset()
	}
}

// startSpawns ends the init's part of the start: the conductor keeps its
// last lines after every delivery, a shard drops the world's.
func (g *Game) startSpawns() error {
	r := g.cl
	if r == nil || !r.start.on || r.live {
		return nil
	}
	if err := g.flushTrace(); err != nil {
		return err
	}
	if r.conductor {
		g.keepLines(initPlace(2*r.start.seq), 0)
		return nil
	}
	r.trace.Reset()
	r.out.Reset()
	return nil
}

// spawned keeps what agent ga's spawn wrote, at its place.
func (g *Game) spawned(ga *gameAgent) error {
	r := g.cl
	if r == nil || !r.start.on || r.live {
		return nil
	}
	if err := g.flushTrace(); err != nil {
		return err
	}
	g.keepLines(spawnPlace(ga.idx), uint64(ga.idx))
	return g.keepSent(spawnPlace(ga.idx), uint64(ga.idx)) // cluster_init49_spawn.go
}

// StartLines gives what the shard's start kept (cluster.StartHost), once.
func (h *shardHost) StartLines(out *cluster.Out) error {
	if err := h.startNow(); err != nil { // cluster_init49.go: a start that waited for the conductor's init
		return err
	}
	s := &h.g.cl.start
	if s.sent {
		return nil
	}
	s.sent = true
	out.Items = append(out.Items, s.out.Items...)
	s.out = cluster.Out{}
	return nil
}

// startNoCopy runs the conductor's part of the start (the world's init)
// and writes it with what the shards' starts kept, in the single run's
// order.
func (h *conductorHost) startNoCopy(c *cluster.Conductor) error {
	g := h.g
	if err := g.OpenTrace(); err != nil {
		return err
	}
	if err := g.Start(); err != nil {
		return err
	}
	if err := g.flushTrace(); err != nil {
		return err
	}
	g.keepLines(initPlace(2*g.cl.start.seq), 0) // a game without a world script: all its lines
	own := g.cl.start.out.Items
	g.cl.start.out = cluster.Out{}
	g.cl.goLive()
	return c.StartLines(own, false)
}
