package game

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// A shard holds only its range of agents (docs/cluster.md, "How it
// works"). Its game lists every agent of the config (the directory: id,
// tree, kind and place, a gameAgent each), and makes runtime agents, Lua
// tables and stores only for the places [lo, hi) of its range: for the
// others gameAgent.a is nil. So a shard's memory follows its agents, not
// the game's. What needs the others does without them: the gates end
// rounds from their parts by place (runtime.Gates.EndRoundParts), a
// signal's data is checked against the receiver's tree from the directory
// (treeOf), the world's init sees every id in game.ids and only the
// shard's agents' tables, and a load restores the shard's agents from
// their own saves and the gates from their state by place
// (restoreAgents), never the whole save file.

// ShardOf names a shard of a cluster: K of N (Options.Shard).
type ShardOf struct{ K, N int }

// heldRange is the places [lo, hi) whose agents a shard's game makes, and
// the trees of the others: by [[trees]] entry, then by translating
// [[agents]] entry (kind), made once per load (treeOf reads them with no
// look-up by name: a signal to all checks every receiver's tree).
type heldRange struct {
	lo, hi int32
	trees  []*runtime.Tree
}

// listTrees makes the trees treeOf reads, from the game's bound trees.
func (g *Game) listTrees() {
	h := g.held
	h.trees = h.trees[:0]
	for _, tc := range g.cfg.Trees {
		h.trees = append(h.trees, treeIn(g.trees[tc.Name]))
	}
	for k := range g.cfg.Agents {
		h.trees = append(h.trees, treeIn(g.trees[kindKey(k)]))
	}
}

// treeIn is a bound tree's tree, or nil.
func treeIn(b *runtime.BoundTree) *runtime.Tree {
	if b == nil {
		return nil
	}
	return b.Tree
}

// holdRange notes the range of shard s among agents agents (nil: the game
// makes every agent), or the empty range of a conductor that holds no
// agents (cluster_nocopy.go).
func (g *Game) holdRange(s *ShardOf, conductor bool, agents int) error {
	if s == nil {
		if conductor {
			g.held = &heldRange{}
		}
		return nil
	}
	if conductor {
		return fmt.Errorf("game: Options.Shard and Options.Conductor: a game is a shard or the conductor")
	}
	if s.N < 1 || s.K < 0 || s.K >= s.N {
		return fmt.Errorf("game: Options.Shard: shard %d of %d", s.K, s.N)
	}
	lo, hi := cluster.Cut(agents, s.N).Range(s.K)
	g.held = &heldRange{lo: lo, hi: hi}
	return nil
}

// holdsPlace reports whether the game makes the agent at place i.
func (g *Game) holdsPlace(i int) bool {
	return g.held == nil || (int32(i) >= g.held.lo && int32(i) < g.held.hi)
}

// openHeldWorkers is openWorkers over the agents the game makes: a shard
// spreads its range over its workers (each [[agents]] entry's part of the
// range as openWorkers spreads an entry), and the places outside it,
// which no worker steps, count for none.
func (g *Game) openHeldWorkers(setting int, counts []int) {
	if g.held == nil {
		total := 0
		for _, c := range counts {
			total += c
		}
		g.openWorkers(resolveWorkers(setting, total), counts)
		return
	}
	lo, hi := int(g.held.lo), int(g.held.hi)
	clipped := make([]int, len(counts))
	start := 0
	for e, c := range counts {
		clipped[e] = max(0, min(start+c, hi)-max(start, lo))
		start += c
	}
	g.openWorkers(resolveWorkers(setting, hi-lo), clipped)
	if g.workers == nil {
		return
	}
	of := make([]int32, start) // the places outside the range: worker 0, never stepped
	copy(of[lo:hi], g.workerOf)
	g.workerOf = of
	g.par.Of = of
}

// treeOf is the tree of an agent, held here or not: its kind's bound tree
// in the directory.
func (g *Game) treeOf(ga *gameAgent) *runtime.Tree {
	if ga.a != nil {
		return ga.a.Tree().Tree
	}
	if ga.kind > 0 {
		return g.held.trees[len(g.cfg.Trees)+int(ga.kind)-1]
	}
	return g.held.trees[ga.tree]
}

// agentSave is one agent's save as it crosses between processes: the
// game's bookkeeping of it, its snapshot and its host state (its Lua
// tables), self-contained (its own strings). host is hostStateOf the
// game's agents; a Lua save is begun (beginSave) around the calls.
func (g *Game) agentSave(ga *gameAgent, host runtime.HostState) ([]byte, error) {
	e := savecodec.NewEncoder()
	e.Bool(ga.stopped)
	e.Uvarint(uint64(ga.failures))
	e.Uvarint(uint64(ga.errors))
	e.String(g.doing[ga.idx])
	s, err := ga.a.Snapshot()
	if err != nil {
		return nil, err
	}
	runtime.EncodeSnapshot(e, &s)
	if host == nil {
		e.ValueNil()
	} else if err := host.EncodeHost(e, ga.a); err != nil {
		return nil, err
	}
	return savecodec.WriteContainer(clusterAgentMagic, SaveVersion, e), nil
}

// agentSaves adds the saves of the agents at places [lo, hi), which the
// game holds, to out (PhaseSave, by place).
func (g *Game) agentSaves(lo, hi int32, out *cluster.Out) error {
	host := g.hostStateOf(g.Agents())
	if g.lua != nil {
		l := g.current()
		l.beginSave()
		defer l.endSave()
	}
	for _, ga := range g.agents[lo:hi] {
		b, err := g.agentSave(ga, host)
		if err != nil {
			return err
		}
		out.Add(cluster.Place(cluster.PhaseSave, int64(ga.idx)), 0, cluster.Item{Kind: cluster.AgentSave, Agent: ga.idx, Data: b})
	}
	return nil
}

// restoreAgent makes the agent ga what its save (agentSave) says.
func (g *Game) restoreAgent(ga *gameAgent, data []byte, host runtime.HostState) error {
	_, d, err := savecodec.ReadContainer(clusterAgentMagic, data)
	if err != nil {
		return fmt.Errorf("game: agent %s's save: %w", ga.a.ID(), err)
	}
	ga.stopped, ga.failures, ga.errors = d.Bool(), int(d.Uvarint()), int(d.Uvarint())
	g.doing[ga.idx] = d.String()
	s := runtime.DecodeSnapshot(d)
	if err := d.Err(); err != nil {
		return fmt.Errorf("game: agent %s's save: %w", ga.a.ID(), err)
	}
	if _, err := ga.a.Restore(&s); err != nil {
		return err
	}
	if host == nil {
		d.SkipValue()
	} else if err := host.RestoreHost(ga.a, d); err != nil {
		return err
	}
	if err := d.Done(); err != nil {
		return fmt.Errorf("game: agent %s's save: %w", ga.a.ID(), err)
	}
	return nil
}

// gatesItem names the Load item that carries the gates' state by place
// (encodeGateState), which every shard gets with its agents' saves.
const gatesItem = "gates"

// restoreAgents makes the shard's agents what their saves say, then its
// gates what the conductor's state of them says (the gatesItem: every
// holder by place): the load of a shard. Without a gatesItem the gates
// keep their state, by place (a restore retakes an agent's gates at the
// end of the holders: the state is put back after), and the restored
// agents take up their places' holds: what a move of agents to this shard
// calls, with the saves of the agents it gets (a shard that gives agents
// away keeps its gates the same way, by place: State before it forgets
// them, SetState after). Every save must be of an agent the shard holds.
// What the restores write (their hooks may log) is not kept: the shards'
// lines of the run are written already.
func (h *shardHost) restoreAgents(saves []cluster.Item) error { return h.restoreAgentsTo(saves, nil) }

// restoreAgentsTo is restoreAgents, adding what each agent's restore
// wrote and sent to out at its place when out is not nil (a load's:
// cluster_loadsig.go); with nil out, it is not kept.
func (h *shardHost) restoreAgentsTo(saves []cluster.Item, out *cluster.Out) error {
	g := h.g
	host := g.hostStateOf(g.Agents())
	var gates []runtime.GateState
	for _, it := range saves {
		if it.Kind == cluster.AgentSave && it.Agent == -1 && it.Name == gatesItem {
			var err error
			if gates, err = decodeGateState(it.Data); err != nil {
				return err
			}
		}
	}
	if gates == nil && g.gates != nil { // a move: the gates as they are, by place
		gates = g.gates.State(func(a *runtime.Agent) int32 { return g.byPtr[a].idx })
	}
	g.silent = out == nil
	defer func() { g.silent = false }()
	sent := len(g.outbox)
	for _, it := range saves {
		if it.Agent == -1 && (it.Name == gatesItem || it.Name == loadOutItem || it.Name == sharedItem) {
			continue
		}
		if it.Kind != cluster.AgentSave || !g.cl.holds(it.Agent) {
			return fmt.Errorf("game: a %s of agent %d on the shard of agents %d..%d", it.Kind, it.Agent, g.cl.lo, g.cl.hi-1)
		}
		ga := g.agents[it.Agent]
		if err := g.restoreAgent(ga, it.Data, host); err != nil {
			return err
		}
		if out != nil { // its changes stay for its next step's lines, as one process's
			if err := g.take(out, cluster.Place(cluster.PhaseSave, int64(ga.idx)), 0); err != nil {
				return err
			}
			continue
		}
		ga.changes = ga.changes[:0]
	}
	if g.gates != nil {
		if err := g.gates.SetState(gates, g.agentAt); err != nil {
			return fmt.Errorf("game: the gates from the conductor: %w", err)
		}
	}
	g.activeStale = true
	if err := h.takeSharedItem(saves); err != nil { // cluster_shared.go: after the restores, as one process
		return err
	}
	if out == nil { // nor what they sent: a failed reload's conductor sends it (cluster_reload_failed.go)
		clear(g.outbox[sent:])
		g.outbox = g.outbox[:sent]
	}
	// What the restores wrote is not the run's.
	if err := g.flushTrace(); err != nil {
		return err
	}
	g.cl.trace.Reset()
	g.cl.out.Reset()
	return nil
}

// encodeGateState is the gates' state with holders by place.
func encodeGateState(gs []runtime.GateState) []byte {
	e := savecodec.NewEncoder()
	e.Uvarint(uint64(len(gs)))
	for _, st := range gs {
		e.Float(st.Since)
		e.Uvarint(st.Stats.Takes)
		e.Uvarint(st.Stats.Refusals)
		e.Uvarint(st.Stats.LongestSteps)
		e.Float(st.Stats.LongestSeconds)
		e.Uvarint(uint64(len(st.Holders)))
		for _, h := range st.Holders {
			e.Varint(int64(h.Place))
			e.Uvarint(h.Step)
			e.Float(h.Time)
			e.Uvarint(uint64(h.Seen))
		}
	}
	return bytes.Clone(e.Bytes())
}

func decodeGateState(b []byte) ([]runtime.GateState, error) {
	d := savecodec.NewDecoder(b, nil)
	n := d.Count(6)
	out := make([]runtime.GateState, 0, n)
	for range n {
		st := runtime.GateState{Since: d.Float()}
		st.Stats.Takes, st.Stats.Refusals, st.Stats.LongestSteps = d.Uvarint(), d.Uvarint(), d.Uvarint()
		st.Stats.LongestSeconds = d.Float()
		m := d.Count(4)
		for range m {
			st.Holders = append(st.Holders, runtime.PlaceHold{Place: int32(d.Varint()), Step: d.Uvarint(), Time: d.Float(), Seen: int(d.Uvarint())})
		}
		out = append(out, st)
	}
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("game: the state of the gates from the conductor: %w", err)
	}
	return out, nil
}

// loadShards gives every shard the saves of its agents, from the
// conductor's copies just loaded, and the state of the gates, after
// common (a load's loadOut: cluster_loadsig.go).
func (h *conductorHost) loadShards(c *cluster.Conductor, common ...cluster.Item) error {
	g := h.g
	var out cluster.Out
	if err := g.agentSaves(0, int32(len(g.agents)), &out); err != nil {
		return err
	}
	saves := slices.Clone(out.Items)
	if g.gates != nil {
		st := g.gates.State(func(a *runtime.Agent) int32 { return g.byPtr[a].idx })
		common = append(common, cluster.Item{Kind: cluster.AgentSave, Agent: -1, Name: gatesItem, Data: encodeGateState(st)})
	}
	return c.LoadRange(g.step, saves, common)
}

// agentAt is the agent at place p where this process holds it; nil for a
// place out of range or an agent held elsewhere (the gates then keep it
// by place).
func (g *Game) agentAt(p int32) *runtime.Agent {
	if p < 0 || int(p) >= len(g.agents) {
		return nil
	}
	return g.agents[p].a
}
