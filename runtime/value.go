package runtime

import "math"

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
		if v.Bool {
			e.Byte(tagTrue)
		} else {
			e.Byte(tagFalse)
		}
	case NumberValue:
		if i := int64(v.Num); float64(i) == v.Num && math.Abs(v.Num) < 1<<53 && !(v.Num == 0 && math.Signbit(v.Num)) {
			e.Byte(tagInt)
			e.Varint(i)
		} else {
			e.Byte(tagFloat)
			e.Float(v.Num)
		}
	case StringValue:
		e.Byte(tagString)
		e.String(v.Str)
	case TableValue:
		e.Byte(tagTable)
		e.Uvarint(uint64(len(v.Table)))
		for _, f := range v.Table {
			e.Value(f.Key)
			e.Value(f.Val)
		}
	default:
		e.Byte(tagNil)
	}
}

// Value reads a Value.
func (d *Decoder) Value() Value { return d.value(0) }

func (d *Decoder) value(depth int) Value {
	if depth > maxValueDepth {
		d.fail("tables nested deeper than %d", maxValueDepth)
		return Value{}
	}
	switch tag := d.Byte(); tag {
	case tagNil:
		return Value{}
	case tagFalse:
		return Value{Kind: BoolValue}
	case tagTrue:
		return Value{Kind: BoolValue, Bool: true}
	case tagInt:
		return Value{Kind: NumberValue, Num: float64(d.Varint())}
	case tagFloat:
		return Value{Kind: NumberValue, Num: d.Float()}
	case tagString:
		return Value{Kind: StringValue, Str: d.String()}
	case tagTable:
		n := d.Count(2)
		if d.err != nil {
			return Value{}
		}
		t := Value{Kind: TableValue, Table: make([]Field, 0, n)}
		for range n {
			k := d.value(depth + 1)
			v := d.value(depth + 1)
			if d.err != nil {
				return Value{}
			}
			t.Table = append(t.Table, Field{k, v})
		}
		return t
	default:
		if d.err == nil {
			d.fail("unknown value tag %d", tag)
		}
		return Value{}
	}
}
