package game

import (
	"fmt"
	"slices"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime/savecodec"
)

// A load of a save holding other agents than the processes list
// (Options.AgentsFromSave: agents added and removed before the save): the
// conductor's game takes the save's agents, and every shard must list the
// same agents before it is given its range's saves. The conductor sends
// the list (ids and trees, by place) and a new cut of the layout; each
// shard makes the agents of its new range it lacks, keeps those it has,
// and closes the others (the load restores them all next). A load of the
// agents the processes list already sends nothing.

// agentEntry is an agent of the list: its id and its [[trees]] entry.
type agentEntry struct {
	id   string
	tree int32
}

// agentList is the game's list of agents, as every process of a cluster
// lists them.
func (g *Game) agentList() []agentEntry {
	out := make([]agentEntry, len(g.agents))
	for i, ga := range g.agents {
		out[i] = agentEntry{g.agentID(ga), ga.tree}
	}
	return out
}

// sendList gives every shard the conductor's list of agents and its range
// of a new cut, when the list is not was, the list the shards have.
func (h *conductorHost) sendList(c *cluster.Conductor, was []agentEntry) error {
	list := h.g.agentList()
	if slices.Equal(list, was) {
		return nil
	}
	layout := cluster.Cut(len(list), c.Layout.Shards())
	_, err := c.ChangeAgents(h.g.step, cluster.Item{Kind: cluster.AgentList, Agent: -1, Peer: -1, Data: encodeAgentList(list)}, layout)
	return err
}

func encodeAgentList(list []agentEntry) []byte {
	e := savecodec.NewEncoder()
	e.Uvarint(uint64(len(list)))
	for _, a := range list {
		e.String(a.id)
		e.Uvarint(uint64(a.tree))
	}
	return savecodec.WriteContainer(agentListMagic, SaveVersion, e)
}

// agentListMagic marks a list of agents crossing to the shards.
const agentListMagic = "BTRUNLST"

// decodeAgentList reads a list of agents of a game with trees trees.
func decodeAgentList(b []byte, trees int) ([]agentEntry, error) {
	_, d, err := savecodec.ReadContainer(agentListMagic, b)
	if err != nil {
		return nil, fmt.Errorf("game: the list of agents from the conductor: %w", err)
	}
	n := d.Count(2)
	if n > MaxAgents {
		return nil, fmt.Errorf("game: a list of %d agents from the conductor; a game has at most %d", n, MaxAgents)
	}
	out := make([]agentEntry, 0, n)
	seen := make(map[string]bool, n)
	for range n {
		a := agentEntry{id: d.String(), tree: int32(min(d.Uvarint(), uint64(trees)))}
		if d.Err() != nil {
			break
		}
		if a.id == "" || seen[a.id] || int(a.tree) >= trees {
			return nil, fmt.Errorf("game: the list of agents from the conductor: agent %q (tree %d) at place %d", a.id, a.tree, len(out))
		}
		seen[a.id] = true
		out = append(out, a)
	}
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("game: the list of agents from the conductor: %w", err)
	}
	return out, nil
}

// takeList makes the shard's agents those of the list, holding [lo, hi):
// the agents of the range it has (same id and tree) are kept, the others
// of the range made (the load that follows restores them), the rest only
// listed; the agents it had and no longer holds are closed and forgotten.
func (h *shardHost) takeList(data []byte, lo, hi int32) error {
	g := h.g
	list, err := decodeAgentList(data, len(g.cfg.Trees))
	if err != nil {
		return err
	}
	if lo < 0 || hi < lo || int(hi) > len(list) {
		return fmt.Errorf("game: a shard's range %d..%d of %d agents", lo, hi-1, len(list))
	}
	agents := make([]*gameAgent, len(list))
	var workerOf []int32
	counts := make([]int, max(len(g.workers), 1))
	if g.workers != nil {
		workerOf = make([]int32, len(list)) // outside the range: worker 0, never stepped
	}
	kept := map[*gameAgent]bool{}
	for i := lo; i < hi; i++ {
		if ga := g.byID[list[i].id]; ga != nil && ga.a != nil && ga.tree == list[i].tree {
			agents[i], kept[ga] = ga, true
			if g.workers != nil {
				workerOf[i] = g.workerOf[ga.idx]
				counts[workerOf[i]]++
			}
		}
	}
	var made []*gameAgent
	abort := func() {
		for _, ga := range made {
			if e := luaEngineOf(ga.a); e != nil {
				e.Detach(ga.a)
			}
		}
	}
	for i := range agents {
		if agents[i] != nil {
			continue
		}
		ga := &gameAgent{tree: list[i].tree}
		ga.kind = g.kindOf(g.treeName(ga), list[i].id) // translate.go
		agents[i] = ga
		if int32(i) < lo || int32(i) >= hi {
			continue
		}
		k := slices.Index(counts, slices.Min(counts)) // the worker with the fewest
		if err := g.makeAgent(ga, list[i].id, nil, k); err != nil {
			abort()
			return fmt.Errorf("game: making agent %s on a shard: %w", list[i].id, err)
		}
		made = append(made, ga)
		counts[k]++
		if g.workers != nil {
			workerOf[i] = int32(k)
		}
	}
	// Close the agents the shard no longer holds; what their cancel hooks
	// write is not the run's (the load restores the agents the save holds).
	g.silent = true
	defer func() { g.silent = false }()
	for _, ga := range g.agents {
		if ga.a == nil || kept[ga] {
			continue
		}
		_ = ga.a.Close() // an error of a close no run sees is no error of the load
		if e := luaEngineOf(ga.a); e != nil {
			e.Detach(ga.a)
		}
		delete(g.byPtr, ga.a)
		g.setData(ga, nil)
	}
	g.agents = agents
	g.doing = make([]string, len(agents))
	g.opening = make([]string, len(agents))
	clear(g.byID)
	for i, ga := range agents {
		ga.idx = int32(i)
		g.opening[i] = list[i].id
		g.byID[list[i].id] = ga
		if ga.a != nil {
			g.byPtr[ga.a] = ga
		}
	}
	if g.workers != nil {
		g.workerOf = workerOf
		for k, w := range g.workers {
			w.agents = counts[k]
		}
	}
	g.shareStimuli()
	if g.lua != nil && g.lua.game != nil {
		g.worldRefill()
	}
	g.agentsChanged()
	if err := h.takeRange(lo, hi); err != nil {
		return err
	}
	if err := g.flushTrace(); err != nil {
		return err
	}
	g.cl.trace.Reset()
	g.cl.out.Reset()
	return nil
}
