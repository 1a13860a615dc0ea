package runtime

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

// streamValue writes v with the piecewise methods (BeginTable and EndTable
// rather than a known count), as a host does.
func streamValue(e *savecodec.Encoder, v Value) {
	switch v.Kind {
	case BoolValue:
		e.ValueBool(v.Bool)
	case NumberValue:
		e.ValueNumber(v.Num)
	case StringValue:
		e.ValueString(v.Str)
	case TableValue:
		m := e.BeginTable()
		for _, f := range v.Table {
			streamValue(e, f.Key)
			streamValue(e, f.Val)
		}
		e.EndTable(m, len(v.Table))
	default:
		e.ValueNil()
	}
}

// bigTable is a table of n entries, each holding a table of inner entries.
func bigTable(n, inner int) Value {
	t := Value{Kind: TableValue}
	for i := range n {
		in := Value{Kind: TableValue}
		for j := range inner {
			in.Table = append(in.Table, Field{Value{Kind: NumberValue, Num: float64(j)}, Value{Kind: StringValue, Str: fmt.Sprint(j)}})
		}
		t.Table = append(t.Table, Field{Value{Kind: NumberValue, Num: float64(i) + 0.5}, in})
	}
	return t
}

// TestEncoder_piecewiseValuesAreValues: BeginTable and EndTable write what
// Value writes, for entry counts that take one, two and three bytes, nested
// in each other.
func TestEncoder_piecewiseValuesAreValues(t *testing.T) {
	for _, c := range []struct{ n, inner int }{{0, 0}, {1, 0}, {127, 1}, {128, 0}, {129, 130}, {300, 2}, {20000, 0}, {16384, 1}, {3, 16383}} {
		v := bigTable(c.n, c.inner)
		want, got := savecodec.NewEncoder(), savecodec.NewEncoder()
		want.Uvarint(7) // something before, so that marks are not at 0
		got.Uvarint(7)
		EncodeValue(want, v)
		streamValue(got, v)
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			t.Errorf("%d entries of %d: the bytes differ", c.n, c.inner)
		}
	}
}

// TestDecoder_valueHeadReadsWhatValueReads: reading piece by piece gives the
// Value back, and SkipValue skips exactly it.
func TestDecoder_valueHeadReadsWhatValueReads(t *testing.T) {
	v := bigTable(130, 3)
	e := savecodec.NewEncoder()
	EncodeValue(e, v)
	e.ValueString("after")
	var read func(d *savecodec.Decoder) Value
	read = func(d *savecodec.Decoder) Value {
		x, n := DecodeValueHead(d)
		for range n {
			x.Table = append(x.Table, Field{read(d), read(d)})
		}
		return x
	}
	d := savecodec.NewDecoder(e.Bytes(), e.Strings())
	got := read(d)
	again := savecodec.NewEncoder()
	EncodeValue(again, got)
	if !bytes.Equal(again.Bytes(), e.Bytes()[:len(again.Bytes())]) {
		t.Error("ValueHead did not read the value back")
	}
	d = savecodec.NewDecoder(e.Bytes(), e.Strings())
	d.SkipValue()
	if s, _ := DecodeValueHead(d); s.Str != "after" || d.Done() != nil {
		t.Errorf("SkipValue did not stop at the value's end: %+v %v", s, d.Err())
	}
}

// FuzzSkipValue: on any input, SkipValue reads as far as Value and fails
// with the same error.
func FuzzSkipValue(f *testing.F) {
	e := savecodec.NewEncoder()
	EncodeValue(e, bigTable(3, 2))
	f.Add(e.Bytes(), uint8(3))
	f.Add([]byte{savecodec.TagTable, 1, savecodec.TagString, 9, savecodec.TagNil}, uint8(1))
	f.Add(bytes.Repeat([]byte{savecodec.TagTable, 1, savecodec.TagNil}, 250), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, nstr uint8) {
		strs := make([]string, nstr)
		a, b := savecodec.NewDecoder(data, strs), savecodec.NewDecoder(data, strs)
		DecodeValue(a)
		b.SkipValue()
		if fmt.Sprint(a.Err()) != fmt.Sprint(b.Err()) || a.Remaining() != b.Remaining() && a.Err() == nil {
			t.Fatalf("Value: %v (%d left); SkipValue: %v (%d left)", a.Err(), a.Remaining(), b.Err(), b.Remaining())
		}
	})
}

// TestDecoder_nextReadsOnlyItsKind: StringNext, NumberNext and TableNext
// read a Value of their kind as ValueHead does, and leave any other Value
// unread for ValueHead.
func TestDecoder_nextReadsOnlyItsKind(t *testing.T) {
	values := []Value{
		{Kind: StringValue, Str: "hp"},
		{Kind: NumberValue, Num: 7},
		{Kind: NumberValue, Num: 0.25},
		{Kind: TableValue, Table: []Field{{Key: Value{Kind: StringValue, Str: "x"}, Val: Value{Kind: BoolValue, Bool: true}}}},
		{Kind: BoolValue, Bool: true},
		{},
	}
	for _, v := range values {
		e := savecodec.NewEncoder()
		EncodeValue(e, v)
		want, wantN := DecodeValueHead(savecodec.NewDecoder(e.Bytes(), e.Strings()))
		for _, next := range []struct {
			name string
			kind ValueKind
			read func(d *savecodec.Decoder) (Value, int, bool)
		}{
			{"StringNext", StringValue, func(d *savecodec.Decoder) (Value, int, bool) {
				s, ok := d.StringNext()
				return Value{Kind: StringValue, Str: s}, 0, ok
			}},
			{"NumberNext", NumberValue, func(d *savecodec.Decoder) (Value, int, bool) {
				f, ok := d.NumberNext()
				return Value{Kind: NumberValue, Num: f}, 0, ok
			}},
			{"TableNext", TableValue, func(d *savecodec.Decoder) (Value, int, bool) {
				n, ok := d.TableNext()
				return Value{Kind: TableValue}, n, ok
			}},
		} {
			d := savecodec.NewDecoder(e.Bytes(), e.Strings())
			got, n, ok := next.read(d)
			if ok != (v.Kind == next.kind) {
				t.Fatalf("%s of %+v: ok = %v", next.name, v, ok)
			}
			if !ok {
				if again, againN := DecodeValueHead(d); !reflect.DeepEqual(again, want) || againN != wantN {
					t.Fatalf("%s of %+v read something: ValueHead then gives %+v", next.name, v, again)
				}
				continue
			}
			if !reflect.DeepEqual(got, want) || n != wantN || d.Err() != nil {
				t.Fatalf("%s of %+v = %+v, %d (%v); ValueHead gives %+v, %d", next.name, v, got, n, d.Err(), want, wantN)
			}
		}
	}
}
