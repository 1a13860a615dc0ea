package cluster

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"sync"
)

// A checkpoint's agents are written by the shards that hold them, in
// parallel, straight into the run's checkpoint store: each shard writes
// the saves of its range as one part (the store cuts it into chunks under
// its message limit) and replies with the part's name, range, size and
// checksum, never its bytes. The conductor writes its own part (the world
// and what else no agent holds) and commits one record naming every part
// once every shard replied: a shard that dies before leaves the previous
// checkpoint the run's. A restore gives every shard the parts; each reads
// those that hold its range, whatever layout wrote them (the ranges may
// have moved since, or the run have another number of shards), checks
// them and loads its agents, in parallel.

// The rounds of a CheckpointParts message.
const (
	CheckpointWrite   uint32 = 1
	CheckpointRestore uint32 = 2
)

// PartInfo is a shard's part of a checkpoint: the saves of the agents at
// places [Lo, Hi).
type PartInfo struct {
	Name   string
	Lo, Hi int32
	Size   uint64
	Sum    uint32 // CRC-32C of its bytes
}

// CheckpointHost is a shard host that writes its agents into checkpoints.
type CheckpointHost interface {
	// CheckpointRange is the places the shard holds, [lo, hi).
	CheckpointRange() (lo, hi int32)
	// CheckpointSaves adds the save of each of its agents (AgentSave
	// items, PhaseSave by place), as Save does.
	CheckpointSaves(out *Out) error
}

// StoreLink is a shard link that opens the run's checkpoint store named
// run on the shard's own connection. A shard whose link is not one (in
// one process, NewLocal) uses SharedMemStore(run).
type StoreLink interface {
	CheckpointStore(run string) (CheckpointStore, error)
}

// StoreWaitLink is a conductor link whose shards' replies to a checkpoint
// may take what the store takes besides a step's deadline: WaitStore
// lengthens the link's reply deadline by the store's own bound on its
// calls, until restore is called.
type StoreWaitLink interface {
	WaitStore() (restore func())
}

// waitStore lengthens c's link's deadline for a checkpoint, if it has one.
func (c *Conductor) waitStore() func() {
	if l, ok := c.Link.(StoreWaitLink); ok {
		return l.WaitStore()
	}
	return func() {}
}

var memStores struct {
	sync.Mutex
	m map[string]*MemStore
}

// SharedMemStore is this process's MemStore named run: the store that a
// conductor and its shards in one process share.
func SharedMemStore(run string) *MemStore {
	memStores.Lock()
	defer memStores.Unlock()
	if memStores.m == nil {
		memStores.m = map[string]*MemStore{}
	}
	if memStores.m[run] == nil {
		memStores.m[run] = &MemStore{}
	}
	return memStores.m[run]
}

// partsMagic starts a shard's part, and its format's version.
const partsMagic = "BTRUNCA2"

// maxPartAgents bounds the agents of a part: a reader never makes more.
const maxPartAgents = 1 << 24

// MaxPartSize bounds a shard's part before its compression, in bytes (a
// save file's bound): a reader never inflates more.
const MaxPartSize = 1 << 30

// encodeAgentsPart is the part holding saves (AgentSave items, by place)
// of the agents at places [lo, hi): its size unpacked, then the saves
// deflated. The agents' saves repeat much (each carries its tree's node
// names and fingerprint): deflate's fastest level makes them about a
// sixth, in less time than writing the difference takes.
func encodeAgentsPart(lo, hi int32, saves []Item) ([]byte, error) {
	n := 16
	for i := range saves {
		n += len(saves[i].Data) + 10
	}
	raw := make([]byte, 0, n)
	raw = binary.AppendVarint(raw, int64(lo))
	raw = binary.AppendVarint(raw, int64(hi))
	raw = binary.AppendUvarint(raw, uint64(len(saves)))
	for i := range saves {
		raw = binary.AppendVarint(raw, int64(saves[i].Agent))
		raw = appendBytes(raw, saves[i].Data)
	}
	if len(raw) > MaxPartSize {
		return nil, fmt.Errorf("cluster: the saves of agents %d..%d take %d bytes, more than a part's %d", lo, hi-1, len(raw), MaxPartSize)
	}
	var b bytes.Buffer
	b.WriteString(partsMagic)
	b.Write(binary.AppendUvarint(nil, uint64(len(raw))))
	w, err := flate.NewWriter(&b, flate.BestSpeed)
	if err == nil {
		_, err = w.Write(raw)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: deflating the saves of agents %d..%d: %w", lo, hi-1, err)
	}
	return b.Bytes(), nil
}

// decodeAgentsPart reads what encodeAgentsPart wrote, keeping the saves of
// places [lo, hi) as AgentSave items.
func decodeAgentsPart(b []byte, lo, hi int32, into []Item) ([]Item, error) {
	if len(b) < len(partsMagic) || string(b[:len(partsMagic)]) != partsMagic {
		return into, fmt.Errorf("%w: a part that does not start with %s", ErrCheckpoint, partsMagic)
	}
	size, k := binary.Uvarint(b[len(partsMagic):])
	if k <= 0 || size > MaxPartSize {
		return into, fmt.Errorf("%w: a part of %d bytes unpacked, more than %d", ErrCheckpoint, size, MaxPartSize)
	}
	raw := make([]byte, 0, min(size, uint64(len(b))*64)) // grows as the bytes prove it
	buf := bytes.NewBuffer(raw)
	r := flate.NewReader(bytes.NewReader(b[len(partsMagic)+k:]))
	if _, err := io.Copy(buf, io.LimitReader(r, int64(size)+1)); err != nil {
		return into, fmt.Errorf("%w: inflating a part: %w", ErrCheckpoint, err)
	}
	if uint64(buf.Len()) != size {
		return into, fmt.Errorf("%w: a part of %d bytes unpacked, where it says %d", ErrCheckpoint, buf.Len(), size)
	}
	raw = buf.Bytes()
	d := decoder{b: raw}
	d.varint32() // its range: the record's index names it, and its checksum holds it
	d.varint32()
	n := d.uvarint()
	if d.err == nil && (n > maxPartAgents || n > uint64(len(raw)-d.at)/2) {
		d.fail("%d agents", n)
	}
	for range n {
		p := d.varint32()
		data := d.bytes()
		if d.err != nil {
			break
		}
		if p >= lo && p < hi {
			into = append(into, Item{Order: Place(PhaseSave, int64(p)), Kind: AgentSave, Agent: p, Peer: -1, Data: data})
		}
	}
	if d.err == nil && d.at != len(raw) {
		d.fail("%d bytes after the part", len(raw)-d.at)
	}
	if d.err != nil {
		return into, fmt.Errorf("%w: %w", ErrCheckpoint, d.err)
	}
	return into, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// item is the part as it crosses in a message.
func (p PartInfo) item() Item {
	data := binary.AppendUvarint(nil, p.Size)
	data = binary.LittleEndian.AppendUint32(data, p.Sum)
	return Item{Order: Place(PhaseSave, int64(p.Lo)), Kind: CheckpointPart, Agent: p.Lo, Peer: p.Hi, Name: p.Name, Data: data}
}

func partOf(it *Item) (PartInfo, error) {
	size, n := binary.Uvarint(it.Data)
	if it.Kind != CheckpointPart || n <= 0 || len(it.Data) != n+4 || it.Agent < 0 || it.Peer < it.Agent || it.Name == "" {
		return PartInfo{}, fmt.Errorf("cluster: a checkpoint's part %q of agents %d..%d that cannot be read", it.Name, it.Agent, it.Peer-1)
	}
	return PartInfo{Name: it.Name, Lo: it.Agent, Hi: it.Peer, Size: size, Sum: binary.LittleEndian.Uint32(it.Data[n:])}, nil
}

// storeItem names the store and the checkpoint of a CheckpointParts message.
func storeItem(run string, seq uint64) Item {
	return Item{Kind: CheckpointPart, Agent: -1, Peer: -1, Text: run, Data: binary.AppendUvarint(nil, seq)}
}

// WriteParts has every shard write the saves of its agents as a part of
// checkpoint seq of step step into the store named run; it returns the
// parts, in config order, once every shard replied.
func (c *Conductor) WriteParts(step, seq uint64, run string) ([]PartInfo, error) {
	if err := c.init(); err != nil {
		return nil, err
	}
	defer c.waitStore()()
	c.begin(CheckpointParts, step)
	for k := range c.out {
		c.out[k].Round = CheckpointWrite
		c.out[k].Items = append(c.out[k].Items, storeItem(run, seq))
		if err := c.Link.Send(k, &c.out[k]); err != nil {
			return nil, err
		}
	}
	if err := c.Link.Gather(c.replies); err != nil {
		return nil, fmt.Errorf("cluster: checkpoint %d at step %d: %w", seq, step, err)
	}
	var parts []PartInfo
	for k := range c.replies {
		lo, hi := c.Layout.Range(k)
		items := c.replies[k].Items
		if lo == hi && len(items) == 0 {
			continue // a shard of no agents writes no part
		}
		if len(items) != 1 {
			return nil, fmt.Errorf("cluster: checkpoint %d: shard %d replied with %d items, where one names its part", seq, k, len(items))
		}
		p, err := partOf(&items[0])
		if err != nil {
			return nil, fmt.Errorf("cluster: checkpoint %d: shard %d: %w", seq, k, err)
		}
		if p.Lo != lo || p.Hi != hi {
			return nil, fmt.Errorf("cluster: checkpoint %d: shard %d wrote agents %d..%d, and holds %d..%d", seq, k, p.Lo, p.Hi-1, lo, hi-1)
		}
		c.count(items)
		parts = append(parts, p)
	}
	return parts, nil
}

// RestoreParts has every shard load its agents from checkpoint seq of
// step step in the store named run, written as parts (in config order,
// covering every agent), and common, what every shard gets with its
// agents' saves (the gates' state).
func (c *Conductor) RestoreParts(step, seq uint64, run string, parts []PartInfo, common []Item) error {
	if err := c.init(); err != nil {
		return err
	}
	at := int32(0)
	for _, p := range parts {
		if p.Lo != at {
			return fmt.Errorf("cluster: checkpoint %d: its part %s holds agents from %d, where %d is next", seq, p.Name, p.Lo, at)
		}
		at = p.Hi
	}
	if int(at) != c.Layout.Agents() {
		return fmt.Errorf("cluster: checkpoint %d holds %d agents, the run %d", seq, at, c.Layout.Agents())
	}
	defer c.waitStore()()
	c.begin(CheckpointParts, step)
	for k := range c.out {
		c.out[k].Round = CheckpointRestore
		c.out[k].Items = append(c.out[k].Items, storeItem(run, seq))
		lo, hi := c.Layout.Range(k)
		for _, p := range parts {
			if p.Lo < hi && p.Hi > lo {
				c.out[k].Items = append(c.out[k].Items, p.item())
			}
		}
		c.out[k].Items = append(c.out[k].Items, common...)
	}
	if err := c.exchange(true); err != nil {
		return fmt.Errorf("cluster: restoring checkpoint %d of step %d: %w", seq, step, err)
	}
	return nil
}

// checkpoint serves a CheckpointParts message.
func (s *Shard) checkpoint(m *Message) error {
	h, ok := s.Host.(CheckpointHost)
	if !ok {
		return fmt.Errorf("cluster: shard: a checkpoint, and its host cannot write one")
	}
	if len(m.Items) == 0 || m.Items[0].Kind != CheckpointPart || m.Items[0].Agent != -1 {
		return fmt.Errorf("cluster: shard: a checkpoint that names no store")
	}
	seq, n := binary.Uvarint(m.Items[0].Data)
	if n <= 0 {
		return fmt.Errorf("cluster: shard: a checkpoint of no number")
	}
	store, err := s.store(m.Items[0].Text)
	if err != nil {
		return err
	}
	lo, hi := h.CheckpointRange()
	switch m.Round {
	case CheckpointWrite:
		if lo == hi {
			return nil
		}
		if err := h.CheckpointSaves(&s.out); err != nil {
			return err
		}
		data, err := encodeAgentsPart(lo, hi, s.out.Items)
		s.out.Reset()
		if err != nil {
			return err
		}
		p := PartInfo{Name: "agents-" + strconv.Itoa(int(lo)) + "-" + strconv.Itoa(int(hi)), Lo: lo, Hi: hi,
			Size: uint64(len(data)), Sum: crc32.Checksum(data, castagnoli)}
		if err := store.PutPart(seq, p.Name, data); err != nil {
			return fmt.Errorf("cluster: shard of agents %d..%d: checkpoint %d: %w", lo, hi-1, seq, err)
		}
		s.out.Items = append(s.out.Items, p.item())
		return nil
	case CheckpointRestore:
		return s.restore(m, store, seq, lo, hi)
	}
	return fmt.Errorf("cluster: shard: a checkpoint's round %d", m.Round)
}

// restore loads the shard's agents from the parts m names that hold them.
func (s *Shard) restore(m *Message, store CheckpointStore, seq uint64, lo, hi int32) error {
	var saves, common []Item
	for i := range m.Items[1:] {
		it := &m.Items[1+i]
		if it.Kind != CheckpointPart {
			common = append(common, *it)
			continue
		}
		p, err := partOf(it)
		if err != nil {
			return err
		}
		if p.Lo >= hi || p.Hi <= lo {
			continue
		}
		data, err := store.Part(seq, p.Name)
		if err != nil {
			return fmt.Errorf("cluster: shard of agents %d..%d: %w", lo, hi-1, err)
		}
		if uint64(len(data)) != p.Size || crc32.Checksum(data, castagnoli) != p.Sum {
			return fmt.Errorf("%w: part %s of checkpoint %d: %d bytes, checksum %08x; its record says %d bytes, %08x",
				ErrCheckpoint, p.Name, seq, len(data), crc32.Checksum(data, castagnoli), p.Size, p.Sum)
		}
		if saves, err = decodeAgentsPart(data, max(lo, p.Lo), min(hi, p.Hi), saves); err != nil {
			return fmt.Errorf("part %s of checkpoint %d: %w", p.Name, seq, err)
		}
	}
	if len(saves) != int(hi-lo) {
		return fmt.Errorf("cluster: shard of agents %d..%d: checkpoint %d holds %d of its agents", lo, hi-1, seq, len(saves))
	}
	for i := range saves {
		if saves[i].Agent != lo+int32(i) {
			return fmt.Errorf("%w: checkpoint %d: agent %d's save where agent %d's is next", ErrCheckpoint, seq, saves[i].Agent, lo+int32(i))
		}
	}
	if ih, ok := s.Host.(InputHost); ok {
		ih.LoadStep(m.Step) // inputs.go: the replay's inputs at the checkpoint's step
	}
	return s.Host.Load(append(saves, common...))
}

// store opens the checkpoint store named run, once.
func (s *Shard) store(run string) (CheckpointStore, error) {
	if s.stores.store != nil && s.stores.run == run {
		return s.stores.store, nil
	}
	var st CheckpointStore = SharedMemStore(run)
	if l, ok := s.Link.(StoreLink); ok {
		var err error
		if st, err = l.CheckpointStore(run); err != nil {
			return nil, err
		}
	}
	s.stores.run, s.stores.store = run, st
	return st, nil
}
