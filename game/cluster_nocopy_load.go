package game

import (
	"fmt"
	"math"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// A load on a conductor that holds no agents (cluster_nocopy.go): it reads
// the save file once, in order, keeping its own part (the world, the
// schedule's progress, the gates' state) and cutting the agents into one
// save each (agentSave's bytes: the game's bookkeeping, the snapshot, the
// host's Value moved as it is, savecodec.CopyValue) as it reads them, one
// agent at a time and none made; each shard is given its range's
// (cluster.Conductor.LoadRange) and the gates' state by place. A save of
// other agents (Options.AgentsFromSave) makes them the directory first and
// re-cuts the layout, as a conductor with copies does (sendList).

// loadNoCopy loads data on the conductor and its shards.
func (h *conductorHost) loadNoCopy(c *cluster.Conductor, data []byte) error {
	g := h.g
	was := g.agentList()
	version, d, err := savecodec.ReadContainer(SaveMagic, data)
	if err != nil {
		return err
	}
	if version < 1 || version > SaveVersion {
		return fmt.Errorf("%w: save format version %d; this btrun reads versions 1 to %d (docs/saves.md)", runtime.ErrCorrupt, version, SaveVersion)
	}
	step, dt, seed, rng := d.Uvarint(), d.Float(), d.Varint(), d.Uvarint()
	for range d.Count(2) {
		_, _ = d.String(), d.String() // the trees' names and fingerprints, for people
	}
	nSched := d.Count(1)
	delivered := make([]bool, 0, min(nSched, len(g.delivered)+1))
	for range nSched {
		delivered = append(delivered, d.Bool())
	}
	world := runtime.DecodeValue(d)
	shared := readShared(d, version) // shared_save.go
	nAgents := d.Count(5)
	ids := make([]string, 0, min(nAgents, MaxAgents))
	books := make([]agentBooks, 0, min(nAgents, MaxAgents))
	for range nAgents {
		ids = append(ids, d.String())
		books = append(books, agentBooks{stopped: d.Bool(), failures: int(d.Uvarint()), errors: int(d.Uvarint()), doing: d.String()})
		if d.Err() != nil {
			break
		}
	}
	if err := d.Err(); err != nil {
		return err
	}
	switch {
	case step > MaxSteps:
		return fmt.Errorf("%w: the save is at step %d, beyond step %d, the last a run can reach", runtime.ErrCorrupt, step, uint64(MaxSteps))
	case nSched != len(g.delivered):
		return fmt.Errorf("%w: the save has %d scheduled signals, the config %d: the save is of another game", runtime.ErrUnknownID, nSched, len(g.delivered))
	case math.Float64bits(dt) != math.Float64bits(g.cfg.Run.Dt):
		return fmt.Errorf("the save was made with run.dt = %v, the config has %v; a run continues only with the same dt", dt, g.cfg.Run.Dt)
	case nAgents > MaxAgents:
		return fmt.Errorf("%w: the save holds %d agents; a game has at most %d", runtime.ErrCorrupt, nAgents, MaxAgents)
	}
	if err := g.checkWorld(world); err != nil {
		return err
	}
	if err := g.checkShared(shared); err != nil {
		return err
	}
	if n := d.Count(8); n != nAgents {
		return fmt.Errorf("%w: the save lists %d agents and holds %d", runtime.ErrCorrupt, nAgents, n)
	}
	byFile := map[string]int32{}
	for _, name := range g.TreeNames() {
		byFile[g.trees[name].Tree.File], _ = g.treeIndex(name)
	}
	saves := make([]cluster.Item, 0, nAgents)
	list := make([]agentEntry, 0, nAgents)
	for i := range nAgents {
		b, tree, err := splitAgent(d, ids[i], books[i])
		if err != nil {
			return fmt.Errorf("agent %s: %w", ids[i], err)
		}
		t, ok := byFile[tree]
		if !ok {
			return fmt.Errorf("%w: the save's agent %s runs tree %s, which this config does not have", runtime.ErrUnknownID, ids[i], tree)
		}
		list = append(list, agentEntry{ids[i], t})
		saves = append(saves, cluster.Item{Kind: cluster.AgentSave, Agent: int32(i), Data: b})
	}
	sets := runtime.DecodeGateSnapshots(d)
	if err := d.Done(); err != nil {
		return err
	}
	var gates []runtime.GateState
	if g.gates != nil {
		if gates, err = h.gateStates(sets, ids); err != nil {
			return err
		}
	}
	// Everything checked: apply.
	if !g.opts.AgentsFromSave {
		for i, id := range ids {
			if i >= len(g.agents) || g.agentID(g.agents[i]) != id {
				return fmt.Errorf("%w: the save's agent %d is %q, which this config does not have in that place: the save is of another game", runtime.ErrUnknownID, i+1, id)
			}
		}
		if nAgents != len(g.agents) {
			return fmt.Errorf("%w: the save holds %d agents, the config has %d: the save is of another game", runtime.ErrUnknownID, nAgents, len(g.agents))
		}
	} else if !sameList(list, was) {
		if err := (&shardHost{g: g}).takeList(encodeAgentList(list), 0, 0); err != nil { // the directory only: the range is empty
			return err
		}
	}
	common := []cluster.Item{loadOut} // cluster_loadsig.go: the restores' lines and signals are the run's
	if g.gates != nil {
		if err := g.gates.SetState(gates, func(int32) *runtime.Agent { return nil }); err != nil {
			return err
		}
		common = append(common, cluster.Item{Kind: cluster.AgentSave, Agent: -1, Name: gatesItem, Data: encodeGateState(gates)})
	}
	g.step = step
	copy(g.delivered, delivered)
	for i, b := range books {
		ga := g.agents[i]
		ga.stopped, ga.failures, ga.errors = b.stopped, b.failures, b.errors
		g.doing[i] = b.doing
	}
	g.activeStale = true
	if err := g.restoreWorld(world, shared, seed, rng); err != nil {
		return err
	}
	items, err := g.sharedItems() // cluster_shared.go: the loaded game.shared, for the shards
	if err != nil {
		return err
	}
	common = append(common, items...)
	if err := h.writeOwn(); err != nil {
		return err
	}
	if err := h.sendList(c, was); err != nil { // a save of other agents
		return err
	}
	return c.LoadRange(g.step, saves, common)
}

// sameList reports whether two lists of agents are the same.
func sameList(a, b []agentEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// splitAgent reads the next agent of a save file's body (its snapshot and
// its host's Value) into the bytes of its own save (agentSave's, with its
// bookkeeping books), and the file of the tree it runs.
func splitAgent(d *savecodec.Decoder, id string, books agentBooks) ([]byte, string, error) {
	s := runtime.DecodeSnapshotHead(d)
	if err := d.Err(); err != nil {
		return nil, "", err
	}
	if s.ID != id {
		return nil, "", fmt.Errorf("%w: the save lists agent %q and holds %q in its place", runtime.ErrCorrupt, id, s.ID)
	}
	e := savecodec.NewEncoder()
	e.Bool(books.stopped)
	e.Uvarint(uint64(books.failures))
	e.Uvarint(uint64(books.errors))
	e.String(books.doing)
	runtime.EncodeSnapshot(e, &s)
	savecodec.CopyValue(e, d)
	if err := d.Err(); err != nil {
		return nil, "", err
	}
	return savecodec.WriteContainer(clusterAgentMagic, SaveVersion, e), s.Tree, nil
}

// gateStates is the saved gate sets' state by place among the save's
// agents ids, in the order of the game's gates: a gate the save lacks is
// free, one the game no longer declares is dropped; a holder must be one
// of the save's agents.
func (h *conductorHost) gateStates(sets [][]runtime.GateSnapshot, ids []string) ([]runtime.GateState, error) {
	g := h.g
	place := make(map[string]int32, len(ids))
	for i, id := range ids {
		place[id] = int32(i)
	}
	names := g.gates.SnapshotNamed(func(int32) string { return "" })
	out := make([]runtime.GateState, len(names))
	index := make(map[string]int, len(names))
	for i, n := range names {
		out[i] = runtime.GateState{Since: math.NaN()}
		index[n.Name] = i
	}
	if len(sets) > 1 {
		return nil, fmt.Errorf("%w: the save holds %d sets of gates, the agents share one", runtime.ErrCorrupt, len(sets))
	}
	for _, set := range sets {
		for _, sg := range set {
			i, ok := index[sg.Name]
			if !ok {
				continue
			}
			st := runtime.GateState{Since: sg.Since, Stats: sg.Stats}
			for _, hs := range sg.Holders {
				p, ok := place[hs.Agent]
				if !ok {
					return nil, fmt.Errorf("%w: gate %q is saved as held by agent %q, which the save does not hold", runtime.ErrUnknownID, sg.Name, hs.Agent)
				}
				st.Holders = append(st.Holders, runtime.PlaceHold{Place: p, Step: hs.Step, Time: hs.Time, Seen: hs.Seen})
			}
			out[i] = st
		}
	}
	return out, nil
}
