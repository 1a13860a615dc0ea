package game

import (
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// A reload on a conductor that holds no agents (Options.Conductor,
// cluster_nocopy.go) makes copies of every agent from the shards' saves
// for the reload only, runs Game.Reload over them as a conductor with
// copies does (so the carry's decisions are taken once, over every agent
// in config order, as in one process), gives the shards the carried saves,
// and forgets the copies. The conductor holds the whole game's agents for
// the reload's duration (docs/cluster.md, "Reloads").

// makeCopies makes a runtime agent on the conductor for every agent of the
// game (each on the worker with fewest agents, attached to its Lua state
// with its data, in the world's game.agents), restored from saves, with
// the gates' holders (kept by place between reloads) bound to them.
func (h *conductorHost) makeCopies(saves []cluster.Item) error {
	g := h.g
	var gates []runtime.GateState
	if g.gates != nil {
		gates = g.gates.State(func(a *runtime.Agent) int32 { return g.byPtr[a].idx })
	}
	for _, ga := range g.agents {
		if ga.a != nil {
			continue
		}
		k := 0
		for j, w := range g.workers {
			if w.agents < g.workers[k].agents {
				k = j
			}
		}
		if err := g.makeAgent(ga, g.agentID(ga), g.data[ga], k); err != nil {
			h.forgetCopies()
			return fmt.Errorf("game: agent %s's copy for a reload: %w", g.agentID(ga), err)
		}
		g.byPtr[ga.a] = ga
		if g.workers != nil {
			g.workerOf[ga.idx] = int32(k)
			g.workers[k].agents++
		}
	}
	g.held.lo, g.held.hi = 0, int32(len(g.agents)) // the reload's loadout makes every agent
	g.activeStale = true
	if err := h.takeSaves(saves); err != nil {
		h.forgetCopies()
		return err
	}
	if g.gates != nil {
		if err := g.gates.SetState(gates, g.agentAt); err != nil {
			h.forgetCopies()
			return fmt.Errorf("game: the gates for a reload's copies: %w", err)
		}
	}
	for _, ga := range g.agents {
		g.worldTable(ga)
	}
	return nil
}

// forgetCopies forgets the copies makeCopies made (or the reload made in
// their place): the conductor holds no agent again, and the gates keep
// their holders by place.
func (h *conductorHost) forgetCopies() {
	g := h.g
	var gates []runtime.GateState
	if g.gates != nil {
		gates = g.gates.State(func(a *runtime.Agent) int32 { return g.byPtr[a].idx })
	}
	for _, ga := range g.agents {
		if ga.a == nil {
			continue
		}
		if g.workers != nil {
			g.workers[g.workerOf[ga.idx]].agents--
			g.workerOf[ga.idx] = 0
		}
		g.forgetCopy(ga)
	}
	g.held.lo, g.held.hi = 0, 0
	g.activeStale = true
	if g.gates != nil {
		// The same number of gates: State read them just now.
		_ = g.gates.SetState(gates, func(int32) *runtime.Agent { return nil })
	}
}
