package runtime

import (
	"github.com/btrun/btrun/runtime/savecodec"
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

// EncodeValue writes v to e in the save format's value encoding (the
// pieces are savecodec.Encoder's ValueNil, ValueBool, ValueNumber,
// ValueString, BeginTable and EndTable).
func EncodeValue(e *savecodec.Encoder, v Value) {
	switch v.Kind {
	case BoolValue:
		e.ValueBool(v.Bool)
	case NumberValue:
		e.ValueNumber(v.Num)
	case StringValue:
		e.ValueString(v.Str)
	case TableValue:
		e.Byte(savecodec.TagTable)
		e.Uvarint(uint64(len(v.Table)))
		for _, f := range v.Table {
			EncodeValue(e, f.Key)
			EncodeValue(e, f.Val)
		}
	default:
		e.ValueNil()
	}
}

// DecodeValue reads a Value that EncodeValue (or the pieces) wrote.
func DecodeValue(d *savecodec.Decoder) Value { return decodeValue(d, 0) }

func decodeValue(d *savecodec.Decoder, depth int) Value {
	if depth > savecodec.MaxValueDepth {
		d.Fail("tables nested deeper than %d", savecodec.MaxValueDepth)
		return Value{}
	}
	v, n := DecodeValueHead(d)
	if v.Kind != TableValue || d.Err() != nil {
		return v
	}
	v.Table = make([]Field, 0, n)
	for range n {
		k := decodeValue(d, depth+1)
		x := decodeValue(d, depth+1)
		if d.Err() != nil {
			return Value{}
		}
		v.Table = append(v.Table, Field{k, x})
	}
	return v
}

// DecodeValueHead reads the start of a Value, for a host that rebuilds its own
// data without a Value in between (see HostState): a nil, boolean, number
// or string whole, with n = 0; for a table, a Value of Kind TableValue
// without entries, and n, the number of entries that follow, each a key
// Value then a value Value. It does not bound nesting: read what SkipValue
// has checked.
func DecodeValueHead(d *savecodec.Decoder) (v Value, n int) {
	switch tag := d.Byte(); tag {
	case savecodec.TagNil:
	case savecodec.TagFalse:
		v.Kind = BoolValue
	case savecodec.TagTrue:
		v.Kind, v.Bool = BoolValue, true
	case savecodec.TagInt:
		v.Kind, v.Num = NumberValue, float64(d.Varint())
	case savecodec.TagFloat:
		v.Kind, v.Num = NumberValue, d.Float()
	case savecodec.TagString:
		v.Kind, v.Str = StringValue, d.String()
	case savecodec.TagTable:
		n = d.Count(2)
		if d.Err() == nil {
			v.Kind = TableValue
		}
	default:
		if d.Err() == nil {
			d.Fail("unknown value tag %d", tag)
		}
	}
	if d.Err() != nil {
		return Value{}, 0
	}
	return v, n
}
