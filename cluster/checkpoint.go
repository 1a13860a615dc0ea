package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// A checkpoint is what a run needs to go back to a step and replay from
// it: the state of the game at that step's end, as named parts, and where
// the run's writers stood. A checkpoint is written part by part, then
// committed at once by a compare-and-set of the run's one checkpoint
// record: a reader sees the last committed checkpoint whole, or the one
// before it, never a mix, and a conductor that is no longer the run's
// (another took its lease) cannot commit over its successor's.

// Checkpoint is a committed checkpoint's record.
type Checkpoint struct {
	Seq   uint64   // its number: 1, 2, ... in the run
	Step  uint64   // the step whose end it holds
	Until uint64   // the step the run ends at
	Trace uint64   // bytes of trace written when it was taken
	Out   uint64   // bytes of output written when it was taken
	Parts []string // its parts' names
}

// CheckpointStore keeps a run's checkpoints.
type CheckpointStore interface {
	// PutPart stores part name of checkpoint seq (not yet committed).
	PutPart(seq uint64, name string, data []byte) error
	// Part is part name of checkpoint seq.
	Part(seq uint64, name string) ([]byte, error)
	// Commit makes cp the run's checkpoint if the record is still the
	// one this store read or committed last (ErrFenced if not).
	Commit(cp Checkpoint) error
	// Latest reads the run's checkpoint (ok false: none yet).
	Latest() (cp Checkpoint, ok bool, err error)
	// Prune removes the parts of every checkpoint but seq: those of the
	// checkpoints before it, and the stale parts of one after it that was
	// never committed (its conductor or a shard died first).
	Prune(seq uint64) error
}

// ErrFenced is a commit over a checkpoint that another process committed:
// this one is no longer the run's conductor.
var ErrFenced = errors.New("cluster: another conductor committed a checkpoint of this run")

// ErrCheckpoint is a checkpoint record that cannot be read.
var ErrCheckpoint = errors.New("cluster: bad checkpoint record")

// checkpointMagic starts a checkpoint record, and its format's version.
const checkpointMagic = "BTRUNCP1"

// maxParts bounds a record's parts: a reader never makes more.
const maxParts = 1 << 16

// Append adds the checkpoint's record to b.
func (cp *Checkpoint) Append(b []byte) []byte {
	b = append(b, checkpointMagic...)
	for _, v := range []uint64{cp.Seq, cp.Step, cp.Until, cp.Trace, cp.Out, uint64(len(cp.Parts))} {
		b = binary.AppendUvarint(b, v)
	}
	for _, p := range cp.Parts {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return b
}

// DecodeCheckpoint reads a record that Append wrote.
func DecodeCheckpoint(b []byte) (Checkpoint, error) {
	var cp Checkpoint
	if len(b) < len(checkpointMagic) || string(b[:len(checkpointMagic)]) != checkpointMagic {
		return cp, fmt.Errorf("%w: it does not start with %s", ErrCheckpoint, checkpointMagic)
	}
	at := len(checkpointMagic)
	next := func(what string) (uint64, error) {
		v, n := binary.Uvarint(b[at:])
		if n <= 0 {
			return 0, fmt.Errorf("%w: %s at byte %d", ErrCheckpoint, what, at)
		}
		at += n
		return v, nil
	}
	var nparts uint64
	for _, f := range []struct {
		p    *uint64
		name string
	}{{&cp.Seq, "seq"}, {&cp.Step, "step"}, {&cp.Until, "until"}, {&cp.Trace, "trace"}, {&cp.Out, "out"}, {&nparts, "parts"}} {
		v, err := next(f.name)
		if err != nil {
			return cp, err
		}
		*f.p = v
	}
	if nparts > maxParts {
		return cp, fmt.Errorf("%w: %d parts", ErrCheckpoint, nparts)
	}
	for range nparts {
		n, err := next("a part's name")
		if err != nil {
			return cp, err
		}
		if n > uint64(len(b)-at) {
			return cp, fmt.Errorf("%w: a part's name of %d bytes at byte %d", ErrCheckpoint, n, at)
		}
		cp.Parts = append(cp.Parts, string(b[at:at+int(n)]))
		at += int(n)
	}
	if at != len(b) {
		return cp, fmt.Errorf("%w: %d bytes after its end", ErrCheckpoint, len(b)-at)
	}
	return cp, nil
}

// TakeCheckpoint stores parts as checkpoint cp.Seq and commits it. Its
// parts are stored first: a process that dies before the commit leaves
// the previous checkpoint the run's.
func TakeCheckpoint(s CheckpointStore, cp Checkpoint, parts [][]byte) error {
	if len(parts) != len(cp.Parts) {
		return fmt.Errorf("cluster: checkpoint %d: %d parts for %d names", cp.Seq, len(parts), len(cp.Parts))
	}
	for i, p := range parts {
		if err := s.PutPart(cp.Seq, cp.Parts[i], p); err != nil {
			return fmt.Errorf("cluster: checkpoint %d at step %d, part %s (%d bytes): %w", cp.Seq, cp.Step, cp.Parts[i], len(p), err)
		}
	}
	if err := s.Commit(cp); err != nil {
		return fmt.Errorf("cluster: committing checkpoint %d at step %d: %w", cp.Seq, cp.Step, err)
	}
	return s.Prune(cp.Seq)
}

// MemStore is a CheckpointStore in memory, for one process's tests; its
// shards write their parts from their own goroutines.
type MemStore struct {
	mu    sync.Mutex
	parts map[string][]byte
	rec   []byte // the committed record
	rev   uint64 // the record's revision
	read  uint64 // the revision this store read or committed last
}

func memKey(seq uint64, name string) string { return fmt.Sprint(seq, "/", name) }

func (m *MemStore) PutPart(seq uint64, name string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.parts == nil {
		m.parts = map[string][]byte{}
	}
	m.parts[memKey(seq, name)] = append([]byte(nil), data...)
	return nil
}

func (m *MemStore) Part(seq uint64, name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.parts[memKey(seq, name)]
	if !ok {
		return nil, fmt.Errorf("cluster: no part %s of checkpoint %d", name, seq)
	}
	return b, nil
}

func (m *MemStore) Commit(cp Checkpoint) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rev != m.read {
		return ErrFenced
	}
	m.rec = cp.Append(nil)
	m.rev++
	m.read = m.rev
	return nil
}

func (m *MemStore) Latest() (Checkpoint, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.read = m.rev
	if m.rec == nil {
		return Checkpoint{}, false, nil
	}
	cp, err := DecodeCheckpoint(m.rec)
	return cp, err == nil, err
}

func (m *MemStore) Prune(seq uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.parts {
		n, _, _ := strings.Cut(k, "/")
		if s, _ := strconv.ParseUint(n, 10, 64); s != seq {
			delete(m.parts, k)
		}
	}
	return nil
}
