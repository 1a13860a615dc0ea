package runtime

import (
	"encoding/binary"
	"math"
)

// ValueKind is the kind of a saved Value.
type ValueKind uint8

const (
	NilValue ValueKind = iota
	BoolValue
	NumberValue
	StringValue
	TableValue
)

// Value is a host's state as plain data: what Lua tables (ctx.state,
// ctx.memory, ctx.agent, world tables) become in a save. A table keeps its
// entries in a fixed order so that equal tables encode to equal bytes.
type Value struct {
	Kind  ValueKind
	Bool  bool
	Num   float64
	Str   string
	Table []Field
}

// Field is one entry of a table Value.
type Field struct {
	Key Value
	Val Value
}

// maxValueDepth bounds nesting when decoding, so that damaged input cannot
// exhaust the stack.
const maxValueDepth = 200

// Value tags on the wire. Integral numbers (the common case: counters,
// positions on a grid) are written as varints; every other number as its
// exact float bits, NaN and infinities included.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagTable
)

// Value writes v.
func (e *Encoder) Value(v Value) {
	switch v.Kind {
	case BoolValue:
		e.ValueBool(v.Bool)
	case NumberValue:
		e.ValueNumber(v.Num)
	case StringValue:
		e.ValueString(v.Str)
	case TableValue:
		e.Byte(tagTable)
		e.Uvarint(uint64(len(v.Table)))
		for _, f := range v.Table {
			e.Value(f.Key)
			e.Value(f.Val)
		}
	default:
		e.ValueNil()
	}
}

// ValueNil, ValueBool, ValueNumber, ValueString, BeginTable and EndTable
// write a Value piece by piece, exactly as Value would write it, for a host
// that encodes its own data without building a Value first (see
// HostState).

// ValueNil writes a nil Value.
func (e *Encoder) ValueNil() { e.Byte(tagNil) }

// ValueBool writes a boolean Value.
func (e *Encoder) ValueBool(b bool) {
	if b {
		e.Byte(tagTrue)
	} else {
		e.Byte(tagFalse)
	}
}

// ValueNumber writes a number Value.
func (e *Encoder) ValueNumber(f float64) {
	if i := int64(f); float64(i) == f && math.Abs(f) < 1<<53 && !(f == 0 && math.Signbit(f)) {
		e.Byte(tagInt)
		e.Varint(i)
	} else {
		e.Byte(tagFloat)
		e.Float(f)
	}
}

// ValueString writes a string Value.
func (e *Encoder) ValueString(s string) {
	e.Byte(tagString)
	e.String(s)
}

// TableMark is where BeginTable left room for a table's entry count.
type TableMark int

// BeginTable starts a table Value: its entries follow, each a key Value and
// a value Value, and EndTable closes it.
func (e *Encoder) BeginTable() TableMark {
	e.buf = append(e.buf, tagTable, 0)
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
}

// Value reads a Value.
func (d *Decoder) Value() Value { return d.value(0) }

func (d *Decoder) value(depth int) Value {
	if depth > maxValueDepth {
		d.fail("tables nested deeper than %d", maxValueDepth)
		return Value{}
	}
	v, n := d.ValueHead()
	if v.Kind != TableValue || d.err != nil {
		return v
	}
	v.Table = make([]Field, 0, n)
	for range n {
		k := d.value(depth + 1)
		x := d.value(depth + 1)
		if d.err != nil {
			return Value{}
		}
		v.Table = append(v.Table, Field{k, x})
	}
	return v
}

// SkipValue reads past one Value, checking it as Value does (tags, counts,
// nesting) without building it.
func (d *Decoder) SkipValue() { d.skipValue(0) }

func (d *Decoder) skipValue(depth int) {
	if depth > maxValueDepth {
		d.fail("tables nested deeper than %d", maxValueDepth)
		return
	}
	// As ValueHead, with the same checks and messages, but reading only
	// what it must: this runs over every agent's Lua state at each load.
	switch tag := d.Byte(); tag {
	case tagNil, tagFalse, tagTrue:
	case tagInt:
		d.Varint()
	case tagFloat:
		if d.err == nil && len(d.buf)-d.off < 8 {
			d.fail("truncated")
			return
		}
		d.off += 8
	case tagString:
		if i := d.Uvarint(); d.err == nil && i >= uint64(len(d.strs)) {
			d.fail("string %d is not in the string table (%d strings)", i, len(d.strs))
		}
	case tagTable:
		n := d.Count(2)
		for i := 0; i < n && d.err == nil; i++ {
			d.skipValue(depth + 1)
			d.skipValue(depth + 1)
		}
	default:
		if d.err == nil {
			d.fail("unknown value tag %d", tag)
		}
	}
}

// StringNext reads a string Value when one comes next and reports true;
// else it reads nothing (read the Value with ValueHead), or fails on a bad
// string index (false, and d's error is set). It spares a reader of many
// saved tables, whose keys are strings, building a Value for each key.
func (d *Decoder) StringNext() (string, bool) {
	if d.err != nil || d.off >= len(d.buf) || d.buf[d.off] != tagString {
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
	case tagFloat:
		d.off++
		f := d.Float()
		return f, d.err == nil
	case tagInt:
		d.off++
		n := d.Varint()
		return float64(n), d.err == nil
	}
	return 0, false
}

// TableNext is StringNext for the start of a table Value: it reads the
// number of entries that follow (as ValueHead does).
func (d *Decoder) TableNext() (int, bool) {
	if d.err != nil || d.off >= len(d.buf) || d.buf[d.off] != tagTable {
		return 0, false
	}
	d.off++
	n := d.Count(2)
	return n, d.err == nil
}

// ValueHead reads the start of a Value, for a host that rebuilds its own
// data without a Value in between (see HostState): a nil, boolean, number
// or string whole, with n = 0; for a table, a Value of Kind TableValue
// without entries, and n, the number of entries that follow, each a key
// Value then a value Value. It does not bound nesting: read what SkipValue
// has checked.
func (d *Decoder) ValueHead() (v Value, n int) {
	switch tag := d.Byte(); tag {
	case tagNil:
	case tagFalse:
		v.Kind = BoolValue
	case tagTrue:
		v.Kind, v.Bool = BoolValue, true
	case tagInt:
		v.Kind, v.Num = NumberValue, float64(d.Varint())
	case tagFloat:
		v.Kind, v.Num = NumberValue, d.Float()
	case tagString:
		v.Kind, v.Str = StringValue, d.String()
	case tagTable:
		n = d.Count(2)
		if d.err == nil {
			v.Kind = TableValue
		}
	default:
		if d.err == nil {
			d.fail("unknown value tag %d", tag)
		}
	}
	if d.err != nil {
		return Value{}, 0
	}
	return v, n
}
