package savecodec

import (
	"encoding/binary"
	"math"
)

// The encoding of a value (package runtime's Value: nil, booleans, numbers,
// strings and tables of those), written piece by piece, exactly as
// runtime.EncodeValue writes a whole Value, by a host that encodes its own
// data without building a Value first (runtime.HostState), and read back
// without building one (SkipValue, StringNext, NumberNext, TableNext; the
// start of any value with runtime.DecodeValueHead).

// ValueNil writes a nil Value.
func (e *Encoder) ValueNil() { e.Byte(TagNil) }

// ValueBool writes a boolean Value.
func (e *Encoder) ValueBool(b bool) {
	if b {
		e.Byte(TagTrue)
	} else {
		e.Byte(TagFalse)
	}
}

// ValueNumber writes a number Value.
func (e *Encoder) ValueNumber(f float64) {
	if i := int64(f); float64(i) == f && math.Abs(f) < 1<<53 && !(f == 0 && math.Signbit(f)) {
		e.Byte(TagInt)
		e.Varint(i)
	} else {
		e.Byte(TagFloat)
		e.Float(f)
	}
}

// ValueString writes a string Value.
func (e *Encoder) ValueString(s string) {
	e.Byte(TagString)
	e.String(s)
}

// BeginTable starts a table Value: its entries follow, each a key Value and
// a value Value, and EndTable closes it.
func (e *Encoder) BeginTable() TableMark {
	e.buf = append(e.buf, TagTable, 0)
	return TableMark(len(e.buf) - 1)
}

// EndTable writes the entry count n of the table BeginTable started at m.
// BeginTable left one byte, which holds counts below 128; a larger count
// moves the entries up to make room.
func (e *Encoder) EndTable(m TableMark, n int) {
	if n < 0x80 {
		e.buf[m] = byte(n)
		return
	}
	var count [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(count[:], uint64(n))
	end := len(e.buf)
	e.buf = append(e.buf, count[:k-1]...)
	copy(e.buf[int(m)+k:], e.buf[int(m)+1:end])
	copy(e.buf[m:], count[:k])
	if e.part {
		e.shiftRefs(int(m), k-1)
	}
}

// SkipValue reads past one Value, checking it as Value does (tags, counts,
// nesting) without building it.
func (d *Decoder) SkipValue() { d.skipValue(0) }

func (d *Decoder) skipValue(depth int) {
	if depth > MaxValueDepth {
		d.Fail("tables nested deeper than %d", MaxValueDepth)
		return
	}
	// As ValueHead, with the same checks and messages, but reading only
	// what it must: this runs over every agent's Lua state at each load.
	switch tag := d.Byte(); tag {
	case TagNil, TagFalse, TagTrue:
	case TagInt:
		d.Varint()
	case TagFloat:
		if d.err == nil && len(d.buf)-d.off < 8 {
			d.Fail("truncated")
			return
		}
		d.off += 8
	case TagString:
		if i := d.Uvarint(); d.err == nil && i >= uint64(len(d.strs)) {
			d.Fail("string %d is not in the string table (%d strings)", i, len(d.strs))
		}
	case TagTable:
		n := d.Count(2)
		for i := 0; i < n && d.err == nil; i++ {
			d.skipValue(depth + 1)
			d.skipValue(depth + 1)
		}
	default:
		if d.err == nil {
			d.Fail("unknown value tag %d", tag)
		}
	}
}

// StringNext reads a string Value when one comes next and reports true;
// else it reads nothing (read the Value with ValueHead), or fails on a bad
// string index (false, and d's error is set). It spares a reader of many
// saved tables, whose keys are strings, building a Value for each key.
func (d *Decoder) StringNext() (string, bool) {
	if d.err != nil || d.off >= len(d.buf) || d.buf[d.off] != TagString {
		return "", false
	}
	d.off++
	s := d.String()
	return s, d.err == nil
}

// NumberNext is StringNext for a number Value.
func (d *Decoder) NumberNext() (float64, bool) {
	if d.err != nil || d.off >= len(d.buf) {
		return 0, false
	}
	switch d.buf[d.off] {
	case TagFloat:
		d.off++
		f := d.Float()
		return f, d.err == nil
	case TagInt:
		d.off++
		n := d.Varint()
		return float64(n), d.err == nil
	}
	return 0, false
}

// TableNext is StringNext for the start of a table Value: it reads the
// number of entries that follow (as ValueHead does).
func (d *Decoder) TableNext() (int, bool) {
	if d.err != nil || d.off >= len(d.buf) || d.buf[d.off] != TagTable {
		return 0, false
	}
	d.off++
	n := d.Count(2)
	return n, d.err == nil
}

// MaxValueDepth bounds nesting when decoding, so that damaged input cannot
// exhaust the stack.
const MaxValueDepth = 200

// Value tags on the wire. Integral numbers (the common case: counters,
// positions on a grid) are written as varints; every other number as its
// exact float bits, NaN and infinities included.
const (
	TagNil byte = iota
	TagFalse
	TagTrue
	TagInt
	TagFloat
	TagString
	TagTable
)

// TableMark is where BeginTable left room for a table's entry count.
type TableMark int
