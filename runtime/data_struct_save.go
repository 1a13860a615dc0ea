package runtime

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
)

// Saving tagged struct data (data_struct.go): MarshalBinary writes the
// tagged fields as one table Value, field names and all, in declaration
// order (maps with their keys sorted), so equal data saves equal bytes on
// every run. The bytes are base64 text: a save holds game data as a string,
// which must be valid UTF-8 (EncodeData). The names make a save readable by a build whose struct gained
// or lost fields: a field the save lacks keeps the value the game gave the
// struct before the restore, a saved field the struct no longer has is
// dropped. A saved value that does not fit its field is an error, and then
// nothing of the struct has changed.

// structFormat is the first byte of tagged struct data's bytes.
const structFormat = 1

// Value tags of the bytes.
const (
	sdNil byte = iota
	sdFalse
	sdTrue
	sdInt
	sdFloat
	sdString
	sdTable
)

func (s *structData) MarshalBinary() ([]byte, error) {
	v := s.t.node.get(s.p)
	raw := appendDataValue([]byte{structFormat}, v)
	return base64.RawStdEncoding.AppendEncode(nil, raw), nil
}

func (s *structData) UnmarshalBinary(text []byte) error {
	b, err := base64.RawStdEncoding.AppendDecode(nil, text)
	if err != nil {
		return fmt.Errorf("%w: the saved agent data is not a tagged struct's (base64: %w)", ErrCorrupt, err)
	}
	if len(b) == 0 || b[0] != structFormat {
		return fmt.Errorf("%w: the saved agent data is not a tagged struct's (format byte %v)", ErrCorrupt, b[:min(len(b), 1)])
	}
	r := dataReader{b: b[1:]}
	v := r.value(0)
	if r.err == nil && len(r.b) > 0 {
		r.err = fmt.Errorf("%d bytes after the data", len(r.b))
	}
	if r.err == nil && v.Kind != TableValue {
		r.err = fmt.Errorf("a %s, not a table", kindName(v.Kind))
	}
	if r.err != nil {
		return fmt.Errorf("%w: the saved agent data: %w", ErrCorrupt, r.err)
	}
	n := s.t.node
	cur := reflect.NewAt(n.typ, s.p).Elem()
	tmp := reflect.New(n.typ).Elem()
	tmp.Set(cur)
	for _, e := range v.Table {
		var f *dataField
		if e.Key.Kind == StringValue {
			f = n.field(e.Key.Str)
		}
		if f == nil {
			continue // a field this build's struct no longer has
		}
		if err := f.node.setValue(tmp.Field(f.goi), e.Val, e.Key.Str); err != nil {
			return fmt.Errorf("the saved agent data does not fit %s: %w", n.typ, err)
		}
	}
	cur.Set(tmp)
	return nil
}

// appendDataValue appends v's bytes to b.
func appendDataValue(b []byte, v Value) []byte {
	switch v.Kind {
	case BoolValue:
		if v.Bool {
			return append(b, sdTrue)
		}
		return append(b, sdFalse)
	case NumberValue:
		if i := int64(v.Num); float64(i) == v.Num && math.Abs(v.Num) < 1<<53 && !(v.Num == 0 && math.Signbit(v.Num)) {
			return binary.AppendVarint(append(b, sdInt), i)
		}
		return binary.LittleEndian.AppendUint64(append(b, sdFloat), math.Float64bits(v.Num))
	case StringValue:
		b = binary.AppendUvarint(append(b, sdString), uint64(len(v.Str)))
		return append(b, v.Str...)
	case TableValue:
		b = binary.AppendUvarint(append(b, sdTable), uint64(len(v.Table)))
		for _, f := range v.Table {
			b = appendDataValue(b, f.Key)
			b = appendDataValue(b, f.Val)
		}
		return b
	}
	return append(b, sdNil)
}

// dataReader reads appendDataValue's bytes, bounded: nesting at most one
// deeper than DeclareData allows, no count beyond the bytes left.
type dataReader struct {
	b   []byte
	err error
}

func (r *dataReader) fail(format string, args ...any) Value {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
	r.b = nil
	return Value{}
}

func (r *dataReader) value(depth int) Value {
	if r.err != nil {
		return Value{}
	}
	if depth > MaxDataDepth {
		return r.fail("tables nested more than %d deep", MaxDataDepth)
	}
	if len(r.b) == 0 {
		return r.fail("cut short")
	}
	tag := r.b[0]
	r.b = r.b[1:]
	switch tag {
	case sdNil:
		return Value{}
	case sdFalse, sdTrue:
		return Bool(tag == sdTrue)
	case sdInt:
		x, k := binary.Varint(r.b)
		if k <= 0 {
			return r.fail("cut short")
		}
		r.b = r.b[k:]
		return Number(float64(x))
	case sdFloat:
		if len(r.b) < 8 {
			return r.fail("cut short")
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
		r.b = r.b[8:]
		return Number(f)
	case sdString:
		n, k := binary.Uvarint(r.b)
		if k <= 0 || n > uint64(len(r.b)-k) {
			return r.fail("cut short")
		}
		s := string(r.b[k : k+int(n)])
		r.b = r.b[k+int(n):]
		return String(s)
	case sdTable:
		n, k := binary.Uvarint(r.b)
		if k <= 0 || n > uint64(len(r.b)-k)/2 { // each entry takes two bytes at least
			return r.fail("a table of %d entries in %d bytes", n, len(r.b)-max(k, 0))
		}
		r.b = r.b[k:]
		out := Value{Kind: TableValue, Table: make([]Field, 0, n)}
		for range n {
			key := r.value(depth + 1)
			val := r.value(depth + 1)
			if r.err != nil {
				return Value{}
			}
			out.Table = append(out.Table, Field{key, val})
		}
		return out
	}
	return r.fail("unknown value tag %d", tag)
}
