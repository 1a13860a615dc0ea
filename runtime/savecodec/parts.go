package savecodec

import (
	"fmt"
	"math"
	"slices"
)

// A body written by several goroutines at once (a save of many agents):
// each writes its share into a part (Parts), and Join appends the parts in
// order, giving exactly the bytes and the string table one encoder writing
// everything in that order would have given.
//
// A part numbers its strings in its own table, in the order it met them,
// and remembers where it wrote each index (refs). The file's table holds
// each string where the body first uses it; a string new to the file in
// part k is first used where part k first used it, so taking each part's
// table in order, adding the strings not yet in the file's, is the file's
// table. Join then copies each part's bytes, writing the file's index in
// place of each of the part's (the two may differ in length: the bytes are
// copied, not patched).

// strRef is where a part wrote a string index: at byte off of its buffer,
// the part's index idx (whose varint length gives where the bytes after it
// start).
type strRef struct {
	off uint32
	idx uint32
}

// Parts returns n empty encoders for parts of e's body, to be written on
// other goroutines and joined by Join. e keeps them, and their storage,
// for its next save: the caller must not keep them past Join.
func (e *Encoder) Parts(n int) []*Encoder {
	for len(e.parts) < n {
		p := NewEncoder()
		p.part = true
		e.parts = append(e.parts, p)
	}
	ps := e.parts[:n]
	for _, p := range ps {
		p.Reset()
	}
	return ps
}

// ErrPartTooLarge is Join's error for a part of 4 GiB or more, whose
// places of string indices do not fit the part's records: no save is that
// large (MaxSaveSize), and the writer saves on one goroutine instead.
var ErrPartTooLarge = fmt.Errorf("savecodec: a part of 4 GiB or more")

// Join appends the parts' bodies to e, in order, renumbering their strings
// into e's table as if e had written them itself. On error (a part too
// large to have been recorded) e is unchanged.
func (e *Encoder) Join(parts []*Encoder) error {
	size := 0
	for _, p := range parts {
		if !p.part || len(p.buf) > math.MaxUint32 || len(p.list) > math.MaxUint32 {
			return ErrPartTooLarge
		}
		size += len(p.buf) + len(p.refs) // an index may grow by a byte or two: rarely
	}
	e.buf = slices.Grow(e.buf, size)
	for _, p := range parts {
		remap := e.remap[:0]
		for _, s := range p.list {
			i, ok := e.strs[s]
			if !ok {
				i = uint64(len(e.list))
				e.strs[s] = i
				e.list = append(e.list, s)
			}
			remap = append(remap, i)
		}
		e.remap = remap
		prev := 0
		for _, r := range p.refs {
			e.buf = append(e.buf, p.buf[prev:r.off]...)
			e.Uvarint(remap[r.idx])
			prev = int(r.off) + uvarintLen(uint64(r.idx))
		}
		e.buf = append(e.buf, p.buf[prev:]...)
	}
	return nil
}

// shiftRefs moves the places of the string indices written after byte m
// by k bytes (EndTable made room for a count there).
func (e *Encoder) shiftRefs(m int, k int) {
	for j := len(e.refs) - 1; j >= 0 && int(e.refs[j].off) > m; j-- {
		e.refs[j].off += uint32(k)
	}
}

// Mark is where an encoder stood, for Rewind.
type Mark struct{ buf, strs int }

// Mark returns where e stands.
func (e *Encoder) Mark() Mark { return Mark{len(e.buf), len(e.list)} }

// Rewind forgets what e wrote since m: its bytes and the strings it met
// first since then. A writer that wrote the first part of a body in place
// goes back when the other parts fail.
func (e *Encoder) Rewind(m Mark) {
	for _, s := range e.list[m.strs:] {
		delete(e.strs, s)
	}
	clear(e.list[m.strs:])
	e.list = e.list[:m.strs]
	e.buf = e.buf[:m.buf]
	for len(e.refs) > 0 && int(e.refs[len(e.refs)-1].off) >= m.buf {
		e.refs = e.refs[:len(e.refs)-1]
	}
	clear(e.recent) // it may name a string forgotten
}
