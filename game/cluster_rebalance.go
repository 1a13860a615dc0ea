package game

import (
	"fmt"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime/savecodec"
)

// Moving agents between shards ([cluster] rebalance = true; package
// cluster's rebalance.go decides the moves). A shard releases the agents it
// loses as their saves and adopts those it gains from theirs, at a step's
// end. What an agent is on its shard and not in its save moves with it: the
// error its output folds (output_fold.go), since its repeats are counted by
// the shard that steps it.
//
// A shard makes only its range's agents (cluster_range.go), so adopting
// MAKES the agents (runtime agent on a worker, Lua state, data) and
// restores them from their saves (restoreAgents), and releasing DROPS them
// (closed silently, their Lua state freed), leaving their directory
// entries. Gates are kept by place: every process keeps the gates' copy in
// line at every round's end, with the agents' places in their holders, and
// a move puts the state it had back after making or dropping agents, so a
// moved agent holds and waits where it did.

// moveMagic marks a moving agent's record: its save and its folded error.
const moveMagic = "BTRUNMOV"

// balancer is the conductor's policy of moves, when the config asks for
// them.
func (g *Game) balancer() *cluster.Balancer {
	if !g.cfg.Cluster.Rebalance {
		return nil
	}
	return &cluster.Balancer{}
}

// ShardMoves are how a shard measures the cost of its steps, which the
// conductor's moves follow. The zero ShardMoves measures the wall time
// the shard spends serving its conductor; the others are for tests and
// benchmarks, and change where agents run, never what a run writes.
type ShardMoves struct {
	// Clock reads the time the cost is measured in (nil: the monotonic
	// wall clock), such as the process's CPU time.
	Clock func() time.Duration
	// Cost, when set, is the step's cost given the agents the shard steps
	// and the time it measured: a cost passed in, to force moves.
	Cost func(step uint64, agents int, busy time.Duration) float64
	// Burn, when set, is called with the shard's number of agents before
	// each step's first round: work that slows the shard down on purpose,
	// measured with the rest.
	Burn func(agents int)
}

// serve serves the shard's conductor over link with these settings.
func (m ShardMoves) serve(h *shardHost, link cluster.ShardLink) error {
	var host cluster.ShardHost = h
	if m.Burn != nil {
		host = burningHost{h, m.Burn}
	}
	s := &cluster.Shard{Host: host, Link: link}
	s.Meter.Clock = m.Clock
	if m.Cost != nil {
		s.Meter.Cost = func(step uint64, busy time.Duration) float64 {
			return m.Cost(step, int(h.g.cl.hi-h.g.cl.lo), busy)
		}
	}
	return s.Run()
}

// burningHost is a shard's host that does Burn's work at each step's start.
type burningHost struct {
	*shardHost
	burn func(agents int)
}

func (b burningHost) Round(round uint32, answers []cluster.Item, out *cluster.Out) (int, error) {
	if round == 1 {
		b.burn(int(b.g.cl.hi - b.g.cl.lo))
	}
	return b.shardHost.Round(round, answers, out)
}

// Balancer is the conductor's policy of moves (nil: the run moves no
// agents): its Stats, and its Decide for a report of each window.
func (c *Conductor) Balancer() *cluster.Balancer { return c.c.Balance }

// Layout is which shard steps which agents now.
func (c *Conductor) Layout() cluster.Layout { return c.c.Layout }

// Release adds the records of the shard's agents outside [lo, hi), which
// it no longer steps, and drops them (dropAgents).
func (h *shardHost) Release(lo, hi int32, out *cluster.Out) error {
	g := h.g
	r := g.cl
	keepLo, keepHi := max(r.lo, lo), min(r.hi, hi)
	if keepLo >= keepHi {
		keepLo, keepHi = r.lo, r.lo
	}
	oldLo, oldHi := r.lo, r.hi
	var saves cluster.Out
	for _, part := range [][2]int32{{oldLo, keepLo}, {keepHi, oldHi}} {
		if part[0] >= part[1] {
			continue
		}
		r.lo, r.hi = part[0], part[1] // Save saves the shard's range
		err := h.Save(&saves)
		r.lo, r.hi = oldLo, oldHi
		if err != nil {
			return err
		}
	}
	for _, it := range saves.Items {
		ga := g.agents[it.Agent]
		e := savecodec.NewEncoder()
		e.Blob(it.Data)
		rep := g.out.repeats[ga.a.ID()]
		e.Bool(rep != nil)
		if rep != nil {
			e.String(rep.text)
			e.Uvarint(uint64(rep.count))
			e.Float(rep.first)
			e.Float(rep.last)
			delete(g.out.repeats, ga.a.ID())
		}
		it.Data = savecodec.WriteContainer(moveMagic, SaveVersion, e)
		out.Add(it.Order, 0, it)
	}
	return h.dropAgents(oldLo, keepLo, keepHi, oldHi)
}

// Adopt makes the agents of saves (Release's records) and restores them
// (makeAgents), then steps [lo, hi).
func (h *shardHost) Adopt(lo, hi int32, saves []cluster.Item) error {
	g := h.g
	r := g.cl
	// What it keeps is within its new range (it released the rest), and
	// the saves are those of every other agent of the range, once each:
	// else it would make an agent twice, or step one it lacks.
	kept := r.hi - r.lo
	if kept > 0 && (r.lo < lo || r.hi > hi) {
		return fmt.Errorf("game: shard of agents %d..%d adopting agents %d..%d without releasing the others", r.lo, r.hi-1, lo, hi-1)
	}
	if hi > int32(len(g.agents)) {
		return fmt.Errorf("game: shard of agents %d..%d adopting agents %d..%d of %d", r.lo, r.hi-1, lo, hi-1, len(g.agents))
	}
	if want := int(hi-lo) - int(kept); len(saves) != want {
		return fmt.Errorf("game: shard of agents %d..%d adopting agents %d..%d from %d saves, not %d", r.lo, r.hi-1, lo, hi-1, len(saves), want)
	}
	restore := make([]cluster.Item, len(saves))
	folds := make([]*repeat, len(saves))
	for i, it := range saves {
		if it.Agent < lo || it.Agent >= hi || r.holds(it.Agent) || (i > 0 && it.Agent <= saves[i-1].Agent) {
			return fmt.Errorf("game: shard of agents %d..%d adopting agent %d for agents %d..%d", r.lo, r.hi-1, it.Agent, lo, hi-1)
		}
		_, d, err := savecodec.ReadContainer(moveMagic, it.Data)
		if err != nil {
			return fmt.Errorf("game: agent %d moving to its shard: %w", it.Agent, err)
		}
		restore[i] = it
		restore[i].Data = d.Blob()
		if d.Bool() {
			folds[i] = &repeat{text: d.String(), count: int(d.Uvarint()), first: d.Float(), last: d.Float()}
		}
		if err := d.Done(); err != nil {
			return fmt.Errorf("game: agent %d moving to its shard: %w", it.Agent, err)
		}
	}
	// The agents are made, then restored from their saves as a load
	// restores a shard's agents, the gates kept by place.
	if err := h.makeAgents(restore, lo, hi); err != nil {
		return err
	}
	for i, f := range folds {
		if f != nil {
			if g.out.repeats == nil {
				g.out.repeats = map[string]*repeat{}
			}
			g.out.repeats[g.agents[saves[i].Agent].a.ID()] = f
		}
	}
	return nil
}
