package game

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// A cluster's checkpoint (docs/cluster.md, "Failures and recovery"): the
// shards write their agents' saves into the run's checkpoint store, in
// parallel (cluster.Conductor.WriteParts), and the conductor writes its
// own part from its own state only: what no agent holds (the step, the
// world's state and generator, the schedule's delivered flags, the gates'
// state by place, the directory of agents with their trees), the index
// of the shards' parts, and what waits on the conductor for the next step
// (a checkpoint taken between steps, after a reload: the signals its
// cancel hooks sent, those of inputs applied before it, which one process
// delivers at the head of the next step's queue). The record that names every part is committed
// last. A restore reads the conductor's part back on the conductor, gives
// the shards the directory when it changed, then has every shard load its
// range from the parts that hold it. Neither needs the conductor's copies
// of the agents: the run's save file is still made from them (Save), not
// the checkpoint.

// conductorPart names the conductor's part of a checkpoint.
const conductorPart = "conductor"

// conductorPartMagic marks the conductor's part.
const conductorPartMagic = "BTRUNCKC"

// CheckpointRange and CheckpointSaves make a shard a cluster.CheckpointHost:
// its part of a checkpoint is the saves of its range, as a move carries them.
func (h *shardHost) CheckpointRange() (int32, int32) { return h.g.cl.lo, h.g.cl.hi }

func (h *shardHost) CheckpointSaves(out *cluster.Out) error {
	return h.g.agentSaves(h.g.cl.lo, h.g.cl.hi, out)
}

var _ cluster.CheckpointHost = (*shardHost)(nil)

// WriteCheckpoint writes the run's state at the end of the step just done
// as checkpoint cp.Seq into s, the store the shards open by the name run,
// and commits it (cp's Until, Trace and Out are the caller's, and its Parts
// any parts the caller stored already, kept in the record): the shards
// write their agents in parallel, the conductor its part, then the record.
// It returns the bytes of every part.
func (c *Conductor) WriteCheckpoint(s cluster.CheckpointStore, run string, cp cluster.Checkpoint) (int, error) {
	g := c.g
	cp.Step = g.step
	parts, err := c.c.WriteParts(g.step, cp.Seq, run)
	if err != nil {
		return 0, err
	}
	own, err := c.h.encodePart(parts, c.c.AppendWaiting(nil))
	if err != nil {
		return 0, err
	}
	if err := s.PutPart(cp.Seq, conductorPart, own); err != nil {
		return 0, fmt.Errorf("game: checkpoint %d at step %d, the conductor's part (%d bytes): %w", cp.Seq, cp.Step, len(own), err)
	}
	size := len(own)
	extra := cp.Parts // the caller's own parts, stored already
	cp.Parts = []string{conductorPart}
	for _, p := range parts {
		cp.Parts = append(cp.Parts, p.Name)
		size += int(p.Size)
	}
	cp.Parts = append(cp.Parts, extra...)
	if err := s.Commit(cp); err != nil {
		return size, fmt.Errorf("game: committing checkpoint %d at step %d: %w", cp.Seq, cp.Step, err)
	}
	return size, s.Prune(cp.Seq)
}

// RestoreCheckpoint goes back to checkpoint cp of store s (the shards
// open it by the name run), on a conductor and shards that started the
// game: the conductor restores its part, and every shard its agents from
// the parts that hold them. Stale parts of a later checkpoint, never
// committed, are pruned.
func (c *Conductor) RestoreCheckpoint(s cluster.CheckpointStore, run string, cp cluster.Checkpoint) error {
	if !slices.Contains(cp.Parts, conductorPart) {
		return fmt.Errorf("%w: checkpoint %d has no %s part", ErrLoad, cp.Seq, conductorPart)
	}
	data, err := s.Part(cp.Seq, conductorPart)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrLoad, err)
	}
	if err := c.h.restorePart(c.c, cp, data, run); err != nil {
		return fmt.Errorf("%w: checkpoint %d of step %d: %w", ErrLoad, cp.Seq, cp.Step, err)
	}
	return s.Prune(cp.Seq)
}

// encodePart is the conductor's part of a checkpoint whose shards wrote
// parts, with waiting, what waits for the next step
// (cluster.Conductor.AppendWaiting). A part written before waiting was
// (btrun's of before; nil waiting writes one) ends at the parts' index:
// it reads as one with nothing waiting.
func (h *conductorHost) encodePart(parts []cluster.PartInfo, waiting []byte) ([]byte, error) {
	g := h.g
	e := savecodec.NewEncoder()
	e.Uvarint(g.step)
	e.Float(g.cfg.Run.Dt)
	e.Varint(g.seed())
	e.Uvarint(g.randomState())
	e.Uvarint(uint64(len(g.delivered)))
	for _, d := range g.delivered {
		e.Bool(d)
	}
	if err := g.encodeWorld(e); err != nil {
		return nil, err
	}
	if err := g.encodeShared(e); err != nil { // shared_save.go
		return nil, err
	}
	list := g.agentList()
	e.Uvarint(uint64(len(list)))
	for _, a := range list {
		e.String(a.id)
		e.Uvarint(uint64(a.tree))
	}
	e.Bool(g.gates != nil)
	if g.gates != nil {
		e.Blob(encodeGateState(g.gates.State(func(a *runtime.Agent) int32 { return g.byPtr[a].idx })))
	}
	e.Uvarint(uint64(len(parts)))
	for _, p := range parts {
		e.String(p.Name)
		e.Varint(int64(p.Lo))
		e.Varint(int64(p.Hi))
		e.Uvarint(p.Size)
		e.Uvarint(uint64(p.Sum))
	}
	if waiting != nil {
		e.Blob(waiting)
	}
	return savecodec.WriteContainer(conductorPartMagic, SaveVersion, e), nil
}

// restorePart makes the conductor what its part says, then every shard
// what the parts of its range say.
func (h *conductorHost) restorePart(c *cluster.Conductor, cp cluster.Checkpoint, data []byte, run string) error {
	h.using(c) // cluster_refuse.go
	g := h.g
	version, d, err := savecodec.ReadContainer(conductorPartMagic, data)
	if err != nil {
		return err
	}
	step, dt, seed, rng := d.Uvarint(), d.Float(), d.Varint(), d.Uvarint()
	n := d.Count(1)
	delivered := make([]bool, 0, n)
	for range n {
		delivered = append(delivered, d.Bool())
	}
	world := runtime.DecodeValue(d)
	shared := readShared(d, version) // shared_save.go
	n = d.Count(2)
	if n > MaxAgents {
		return fmt.Errorf("its directory of %d agents; a game has at most %d", n, MaxAgents)
	}
	list := make([]agentEntry, 0, n)
	for range n {
		list = append(list, agentEntry{id: d.String(), tree: int32(min(d.Uvarint(), math.MaxInt32))})
	}
	var gates []runtime.GateState
	if d.Bool() {
		if gates, err = decodeGateState(d.Blob()); err != nil {
			return err
		}
	}
	n = d.Count(5)
	parts := make([]cluster.PartInfo, 0, n)
	for range n {
		parts = append(parts, cluster.PartInfo{Name: d.String(), Lo: int32(d.Varint()), Hi: int32(d.Varint()), Size: d.Uvarint(), Sum: uint32(d.Uvarint())})
	}
	var waiting []byte
	if d.Remaining() > 0 { // a part of before has none (encodePart)
		waiting = d.Blob()
	}
	if err := d.Done(); err != nil {
		return err
	}
	switch {
	case step != cp.Step:
		return fmt.Errorf("its conductor's part is of step %d", step)
	case len(delivered) != len(g.delivered):
		return fmt.Errorf("%d scheduled signals, the config %d: the checkpoint is of another game", len(delivered), len(g.delivered))
	case math.Float64bits(dt) != math.Float64bits(g.cfg.Run.Dt):
		return fmt.Errorf("made with run.dt = %v, the config has %v", dt, g.cfg.Run.Dt)
	case (gates != nil) != (g.gates != nil):
		return errors.New("the checkpoint's gates are not the game's: it is of another game")
	}
	for _, p := range parts {
		if !slices.Contains(cp.Parts, p.Name) {
			return fmt.Errorf("its part %s is not in its record", p.Name)
		}
	}
	if err := g.checkWorld(world); err != nil {
		return err
	}
	if err := g.checkShared(shared); err != nil {
		return err
	}
	was := g.agentList() // the shards' list
	if !slices.Equal(list, was) {
		if err := h.takeDirectory(list); err != nil {
			return err
		}
	}
	g.step = step
	copy(g.delivered, delivered)
	g.activeStale = true
	if err := g.restoreWorld(world, shared, seed, rng); err != nil {
		return err
	}
	common, err := g.sharedItems() // cluster_shared.go: the restored game.shared, for the shards
	if err != nil {
		return err
	}
	if g.gates != nil {
		if err := g.gates.SetState(gates, g.agentAt); err != nil {
			return fmt.Errorf("its gates: %w", err)
		}
		common = append(common, cluster.Item{Kind: cluster.AgentSave, Agent: -1, Peer: -1, Name: gatesItem, Data: encodeGateState(gates)})
	}
	if err := h.writeOwn(); err != nil {
		return err
	}
	if err := h.sendList(c, was); err != nil { // cluster_inputs_list.go
		return err
	}
	if err := c.RestoreParts(step, cp.Seq, run, parts, common); err != nil {
		return err
	}
	return c.SetWaiting(waiting) // after the layout of the checkpoint's directory; nil: nothing waits
}

// takeDirectory makes the conductor's directory that of list (a
// checkpoint taken after agents were added or removed). Without copies of
// the agents it only lists them, as a shard lists the agents outside its
// range (cluster_nocopy.go); with copies (a live view), an agent is kept
// where the game has the same id on the same tree, made anew (from its
// tree, to be restored by its shard) otherwise.
func (h *conductorHost) takeDirectory(list []agentEntry) error {
	g := h.g
	if !g.opts.AgentsFromSave {
		return fmt.Errorf("%w: the checkpoint holds other agents than the config; open the game with Options.AgentsFromSave", runtime.ErrUnknownID)
	}
	if !h.copies() {
		return (&shardHost{g: g}).takeList(encodeAgentList(list), 0, 0) // the directory only: the range is empty
	}
	s := &agentSet{g: g}
	counts := make([]int, max(len(g.workers), 1))
	seen := make(map[string]bool, len(list))
	for _, e := range list {
		if e.id == "" || seen[e.id] || e.tree < 0 || int(e.tree) >= len(g.cfg.Trees) {
			s.abort()
			return fmt.Errorf("%w: its directory's agent %q of tree %d", runtime.ErrCorrupt, e.id, e.tree)
		}
		seen[e.id] = true
		if ga := g.byID[e.id]; ga != nil && ga.tree == e.tree {
			s.list = append(s.list, ga)
			if g.workers != nil {
				s.workerOf = append(s.workerOf, g.workerOf[ga.idx])
				counts[g.workerOf[ga.idx]]++
			}
			continue
		}
		k := slices.Index(counts, slices.Min(counts))
		counts[k]++
		ga := &gameAgent{tree: e.tree}
		ga.kind = g.kindOf(g.treeName(ga), e.id) // translate.go
		data := g.agentData(e.id, g.treeName(ga))
		if err := g.makeAgent(ga, e.id, data, k); err != nil {
			s.abort()
			return err
		}
		s.list = append(s.list, ga)
		s.added = append(s.added, ga)
		s.data = append(s.data, data)
		if g.workers != nil {
			s.workerOf = append(s.workerOf, int32(k))
		}
	}
	return s.commit()
}
