package game

import (
	"bytes"
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// A save of a cluster whose conductor holds no agents (cluster_nocopy.go):
// each shard writes its range of the agents as the bytes one process's
// save holds for them (runtime.EncodeAgentsPart into a savecodec part,
// whose strings the conductor's join numbers in the file's table), with
// the game's bookkeeping of each (stopped, failures, errors, what it was
// doing) and whether they share the gates; the conductor writes the
// head (settings, schedule, world), every agent's bookkeeping in config
// order, the joined parts and the gates' state from its own copy of the
// gates, holders named from its directory: one process's save file, byte
// for byte.

// savePartMagic marks a shard's part of a save crossing to the conductor.
const savePartMagic = "BTRUNPRT"

// SavePart adds the shard's agents as one part of the save
// (cluster.PartHost): an AgentSave item for places [lo, hi), none for an
// empty range.
func (h *shardHost) SavePart(out *cluster.Out) error {
	g := h.g
	lo, hi := g.cl.lo, g.cl.hi
	if lo == hi {
		return nil
	}
	b, err := g.savePart(lo, hi)
	if err != nil {
		return err
	}
	out.Add(cluster.Place(cluster.PhaseSave, int64(lo)), uint64(hi), cluster.Item{Kind: cluster.AgentSave, Agent: lo, Peer: hi, Name: "part", Data: b})
	return nil
}

// savePart is the part of places [lo, hi), which the game holds: the
// bookkeeping, whether the agents share gates, then the part's bytes.
func (g *Game) savePart(lo, hi int32) ([]byte, error) {
	agents := make([]*runtime.Agent, 0, hi-lo)
	e := savecodec.NewEncoder()
	for _, ga := range g.agents[lo:hi] {
		agents = append(agents, ga.a)
		e.Bool(ga.stopped)
		e.Uvarint(uint64(ga.failures))
		e.Uvarint(uint64(ga.errors))
		e.String(g.doing[ga.idx])
	}
	gated := false // a save holds the gates' state when its agents share them
	for _, a := range agents {
		gated = gated || a.Gates() != nil
	}
	e.Bool(gated)
	if g.lua != nil {
		l := g.current()
		l.beginSave()
		defer l.endSave()
	}
	p := savecodec.NewPart()
	if err := runtime.EncodeAgentsPart(p, agents, g.hostStateOf(g.Agents())); err != nil {
		return nil, err
	}
	b, err := p.AppendPart(nil)
	if err != nil {
		return nil, err
	}
	e.Blob(b)
	return savecodec.WriteContainer(savePartMagic, SaveVersion, e), nil
}

// savePartOf is a shard's part read back: its agents' bookkeeping, whether
// they share gates, and the part to join.
type savePartOf struct {
	lo, hi int32
	books  []agentBooks
	gated  bool
	part   *savecodec.Encoder
}

// agentBooks is the game's bookkeeping of an agent that a save holds.
type agentBooks struct {
	stopped          bool
	failures, errors int
	doing            string
}

func readSavePart(it *cluster.Item) (*savePartOf, error) {
	_, d, err := savecodec.ReadContainer(savePartMagic, it.Data)
	if err != nil {
		return nil, fmt.Errorf("game: the save's part of agents %d..%d: %w", it.Agent, it.Peer-1, err)
	}
	p := &savePartOf{lo: it.Agent, hi: it.Peer}
	for range it.Peer - it.Agent {
		p.books = append(p.books, agentBooks{stopped: d.Bool(), failures: int(d.Uvarint()), errors: int(d.Uvarint()), doing: d.String()})
		if d.Err() != nil {
			break
		}
	}
	p.gated = d.Bool()
	body := d.Blob()
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("game: the save's part of agents %d..%d: %w", it.Agent, it.Peer-1, err)
	}
	if p.part, err = savecodec.ReadPart(body); err != nil {
		return nil, fmt.Errorf("game: the save's part of agents %d..%d: %w", it.Agent, it.Peer-1, err)
	}
	return p, nil
}

// joinSave is the save file of the game whose agents the parts hold, in
// config order (cluster.Conductor.SaveParts checked that they follow one
// another from the first agent to the last).
func (g *Game) joinSave(items []cluster.Item) ([]byte, error) {
	parts := make([]*savePartOf, 0, len(items))
	gated := false
	for i := range items {
		p, err := readSavePart(&items[i])
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
		gated = gated || p.gated
	}
	e, end, err := g.beginSaveBytes()
	defer end()
	if err != nil {
		return nil, err
	}
	e.Uvarint(uint64(len(g.agents)))
	for _, p := range parts {
		for i, b := range p.books {
			e.String(g.agentID(g.agents[p.lo+int32(i)]))
			e.Bool(b.stopped)
			e.Uvarint(uint64(b.failures))
			e.Uvarint(uint64(b.errors))
			e.String(b.doing)
		}
	}
	e.Uvarint(uint64(len(g.agents)))
	joined := make([]*savecodec.Encoder, len(parts))
	for i, p := range parts {
		joined[i] = p.part
	}
	if err := e.Join(joined); err != nil {
		return nil, err
	}
	var sets [][]runtime.GateSnapshot
	if gated && g.gates != nil {
		sets = append(sets, g.gates.SnapshotNamed(func(p int32) string {
			if p < 0 || int(p) >= len(g.agents) {
				return ""
			}
			return g.agentID(g.agents[p])
		}))
	}
	runtime.EncodeGateSnapshots(e, sets)
	return g.saveContainer(e)
}

// saveFromParts is the run's save file from the shards' parts.
func (h *conductorHost) saveFromParts(c *cluster.Conductor) ([]byte, error) {
	items, err := c.SaveParts(h.g.step)
	if err != nil {
		return nil, err
	}
	b, err := h.g.joinSave(items)
	return bytes.Clone(b), err
}
