package game

import (
	"errors"
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// The making and dropping of the agents a shard gains and loses in a move
// (cluster_rebalance.go): a shard's game holds runtime agents only for its
// range (cluster_range.go), so the range and the agents change together.

// dropAgents drops the shard's agents at places [lo, keepLo) and
// [keepHi, hi), whose saves were taken, and makes [keepLo, keepHi) its
// range. A dropped agent is closed (its running action cancelled, its
// gates left) with the game silent, and what that writes or sends is cut
// back: a move is invisible. Its Lua state is freed and its runtime agent
// forgotten; its directory entry stays. The gates get back the state they
// had, by place: the dropped agents' holds stay, under their places.
func (h *shardHost) dropAgents(lo, keepLo, keepHi, hi int32) error {
	g := h.g
	var gates []runtime.GateState
	if g.gates != nil {
		gates = g.gates.State(func(a *runtime.Agent) int32 { return g.byPtr[a].idx })
	}
	sent, notes := len(g.outbox), g.cl.relay.kept()
	g.silent = true
	var errs []error
	parts := [][2]int32{{lo, keepLo}, {keepHi, hi}}
	for _, part := range parts {
		for _, ga := range g.agents[part[0]:part[1]] {
			if err := ga.a.Close(); err != nil {
				errs = append(errs, fmt.Errorf("game: agent %s leaving its shard: %w", ga.a.ID(), err))
			}
		}
	}
	g.silent = false
	g.cl.relay.cut(notes) // a live view's notes of the closes (a log of a cancel hook)
	// Detached after every close: a Lua state walks its memory at its next
	// call after a detach, which a close's cancel hook may be.
	for _, part := range parts {
		for _, ga := range g.agents[part[0]:part[1]] {
			if e := luaEngineOf(ga.a); e != nil {
				e.Detach(ga.a)
			}
			delete(g.byPtr, ga.a)
			ga.a, ga.changes = nil, ga.changes[:0]
			g.doing[ga.idx] = ""
			// Its last status is its next shard's to report (report_pick.go):
			// kept here, it would pass for the agent's when it comes back.
			ga.status, ga.err = 0, nil
			g.worldTable(ga)
			if g.workers != nil {
				g.workers[g.workerOf[ga.idx]].agents--
				g.workerOf[ga.idx] = 0
			}
		}
	}
	clear(g.outbox[sent:])
	g.outbox = g.outbox[:sent]
	g.cl.lo, g.cl.hi = keepLo, keepHi
	g.held.lo, g.held.hi = keepLo, keepHi
	g.activeStale = true
	if g.gates != nil {
		if err := g.gates.SetState(gates, h.placeAgent); err != nil {
			errs = append(errs, fmt.Errorf("game: the gates after a move: %w", err))
		}
	}
	if err := g.flushTrace(); err != nil {
		errs = append(errs, err)
	}
	g.cl.trace.Reset()
	g.cl.out.Reset()
	return errors.Join(errs...)
}

// placeAgent is the shard's agent at place p, or nil (another shard's).
func (h *shardHost) placeAgent(p int32) *runtime.Agent {
	if p < 0 || int(p) >= len(h.g.agents) {
		return nil
	}
	return h.g.agents[p].a
}

// makeAgents makes the runtime agents of saves (each on the worker with
// fewest agents, attached to its Lua state with the agent's data), makes
// [lo, hi) the shard's range, and restores them from the saves
// (restoreAgents: the gates kept by place, the agents taking up their
// places' holds).
func (h *shardHost) makeAgents(saves []cluster.Item, lo, hi int32) error {
	g := h.g
	made := 0
	for _, it := range saves {
		ga := g.agents[it.Agent]
		k := 0
		for j, w := range g.workers {
			if w.agents < g.workers[k].agents {
				k = j
			}
		}
		if err := g.makeAgent(ga, g.agentID(ga), g.data[ga], k); err != nil {
			h.unmake(saves[:made])
			return fmt.Errorf("game: agent %s joining its shard: %w", g.agentID(ga), err)
		}
		made++
		g.byPtr[ga.a] = ga
		if g.workers != nil {
			g.workerOf[ga.idx] = int32(k)
			g.workers[k].agents++
		}
	}
	g.cl.lo, g.cl.hi = lo, hi
	g.held.lo, g.held.hi = lo, hi
	g.activeStale = true
	if err := h.restoreAgents(saves); err != nil {
		return err
	}
	for _, it := range saves {
		g.worldTable(g.agents[it.Agent])
	}
	return nil
}

// worldTable puts the agent's table in the world's game.agents if the
// shard makes it, or takes it out (tableAgent: the shard's agents' tables
// only; the lists of ids and trees name every agent and do not change).
func (g *Game) worldTable(ga *gameAgent) {
	if g.lua == nil || g.lua.game == nil {
		return
	}
	agents, _ := g.lua.game.RawGetString("agents").(*lua.LTable)
	if agents == nil {
		return
	}
	if ga.a == nil {
		agents.RawSetString(g.agentID(ga), lua.LNil)
		return
	}
	if d, err := g.lua.engine.Data(ga.a); err == nil && !g.contract {
		agents.RawSetString(ga.a.ID(), d.AgentValue())
	}
}

// unmake forgets the agents of saves just made, when a later one could
// not be: the shard is as it was.
func (h *shardHost) unmake(saves []cluster.Item) {
	g := h.g
	for _, it := range saves {
		ga := g.agents[it.Agent]
		if e := luaEngineOf(ga.a); e != nil {
			e.Detach(ga.a)
		}
		delete(g.byPtr, ga.a)
		ga.a = nil
		if g.workers != nil {
			g.workers[g.workerOf[ga.idx]].agents--
			g.workerOf[ga.idx] = 0
		}
	}
}

// kept is the number of notes the relay keeps (0 without a relay).
func (r *relay) kept() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.notes)
}

// cut forgets the notes kept after the first n.
func (r *relay) cut(n int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.notes[n:])
	r.notes = r.notes[:n]
}
