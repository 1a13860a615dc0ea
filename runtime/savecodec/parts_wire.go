package savecodec

import (
	"encoding/binary"
	"fmt"
	"math"
)

// A part written in another process (a cluster's shard writes its range of
// a save's agents as one part; package game joins the shards' parts into
// the save file): NewPart makes one, AppendPart puts it in bytes, ReadPart
// makes it again on the other side, where Join takes it like a part of its
// own. The bytes hold the part's string table, its body and where it wrote
// each string index, so that Join renumbers them as it does for a part
// written on another goroutine.

// NewPart returns an empty part of a body to be joined (Join) by another
// encoder, perhaps in another process (AppendPart, ReadPart).
func NewPart() *Encoder {
	e := NewEncoder()
	e.part = true
	return e
}

// AppendPart appends part p in bytes to dst. p must be a part (NewPart,
// Parts or ReadPart).
func (p *Encoder) AppendPart(dst []byte) ([]byte, error) {
	if !p.part {
		return dst, fmt.Errorf("savecodec: AppendPart of an encoder that is no part")
	}
	if len(p.buf) > math.MaxUint32 || len(p.list) > math.MaxUint32 {
		return dst, ErrPartTooLarge
	}
	dst = binary.AppendUvarint(dst, uint64(len(p.list)))
	for _, s := range p.list {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	dst = binary.AppendUvarint(dst, uint64(len(p.refs)))
	prev := uint32(0)
	for _, r := range p.refs {
		dst = binary.AppendUvarint(dst, uint64(r.off-prev)) // the places grow: deltas are small
		dst = binary.AppendUvarint(dst, uint64(r.idx))
		prev = r.off
	}
	dst = binary.AppendUvarint(dst, uint64(len(p.buf)))
	return append(dst, p.buf...), nil
}

// ReadPart reads a part AppendPart wrote, checking that every string index
// it records is where it says, in its body and its table: a damaged part
// is an error wrapping ErrCorrupt, never a Join that writes wrong bytes.
func ReadPart(b []byte) (*Encoder, error) {
	d := &Decoder{buf: b}
	p := NewPart()
	n := d.Count(1)
	for range n {
		s := string(d.blob())
		if d.err != nil {
			break
		}
		if _, ok := p.strs[s]; ok {
			d.Fail("string %q twice in a part's table", s)
			break
		}
		p.strs[s] = uint64(len(p.list))
		p.list = append(p.list, s)
	}
	refs := d.Count(2)
	prev := uint64(0)
	for i := 0; i < refs && d.err == nil; i++ {
		off, idx := prev+d.Uvarint(), d.Uvarint()
		if off > math.MaxUint32 || idx >= uint64(len(p.list)) || (i > 0 && off <= prev) {
			d.Fail("string index %d at byte %d of a part", idx, off)
			break
		}
		p.refs = append(p.refs, strRef{off: uint32(off), idx: uint32(idx)})
		prev = off
	}
	body := d.blob()
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("savecodec: a part: %w", err)
	}
	p.buf = append(p.buf, body...)
	for _, r := range p.refs {
		at := int(r.off)
		v, k := binary.Uvarint(p.buf[min(at, len(p.buf)):])
		if k <= 0 || v != uint64(r.idx) {
			return nil, fmt.Errorf("%w: a part's string index %d is not at byte %d of its body", ErrCorrupt, r.idx, r.off)
		}
	}
	return p, nil
}

// CopyValue writes the Value d reads next to e as it is, its strings
// numbered in e's table: a Value moved from one save to another without
// being built. A Value that is not well formed is d's error, as SkipValue
// finds it.
func CopyValue(e *Encoder, d *Decoder) {
	start := d.off
	d.SkipValue()
	if d.err != nil {
		return
	}
	sub := &Decoder{Version: d.Version, buf: d.buf[:d.off], off: start, strs: d.strs}
	sub.copyValue(e)
}

// copyValue is CopyValue of a Value SkipValue checked already.
func (d *Decoder) copyValue(e *Encoder) {
	switch tag := d.Byte(); tag {
	case TagNil, TagFalse, TagTrue:
		e.Byte(tag)
	case TagInt:
		e.Byte(tag)
		e.Varint(d.Varint())
	case TagFloat:
		e.Byte(tag)
		e.buf = append(e.buf, d.buf[d.off:d.off+8]...)
		d.off += 8
	case TagString:
		e.Byte(tag)
		e.String(d.strs[d.Uvarint()])
	case TagTable:
		n := d.Count(2)
		e.Byte(tag)
		e.Uvarint(uint64(n))
		for range 2 * n {
			d.copyValue(e)
		}
	}
}
