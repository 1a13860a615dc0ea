package savecodec

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReadPart_partsFromOtherProcessesJoinAsOne: a body cut into 1, 2 and
// 3 parts (as a cluster's shards write their ranges), each written by
// NewPart, put in bytes (AppendPart) and read back (ReadPart), joins into
// the bytes and string table one encoder writes: strings shared by every
// part, strings of one part only, and strings met first in a later part
// than the header's. Parts joined out of order are not the same bytes.
func TestReadPart_partsFromOtherProcessesJoinAsOne(t *testing.T) {
	const items = 300
	one := NewEncoder()
	one.String("header")
	one.String("shared") // in the header and in every part
	r := rand.New(rand.NewPCG(7, 8))
	for i := range items {
		partsScript(one, i, r)
	}
	for _, n := range []int{1, 2, 3} {
		joined := NewEncoder()
		joined.String("header")
		joined.String("shared")
		r := rand.New(rand.NewPCG(7, 8))
		var parts []*Encoder
		for k := range n {
			p := NewPart()
			for i := k * items / n; i < (k+1)*items/n; i++ {
				partsScript(p, i, r)
			}
			b, err := p.AppendPart(nil)
			if err != nil {
				t.Fatal(err)
			}
			q, err := ReadPart(b)
			if err != nil {
				t.Fatalf("%d parts, part %d: %v", n, k, err)
			}
			parts = append(parts, q)
		}
		if err := joined.Join(parts); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(joined.Bytes(), one.Bytes()) || !slices.Equal(joined.Strings(), one.Strings()) {
			t.Fatalf("%d parts from bytes: the join differs from one encoder's body (%d bytes, %d strings; want %d, %d)",
				n, len(joined.Bytes()), len(joined.Strings()), len(one.Bytes()), len(one.Strings()))
		}
		if n > 1 {
			back := NewEncoder()
			back.String("header")
			back.String("shared")
			slices.Reverse(parts)
			if err := back.Join(parts); err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(back.Bytes(), one.Bytes()) {
				t.Fatalf("%d parts joined in reverse give one encoder's bytes: the test cannot see an order", n)
			}
		}
	}
}

// TestReadPart_damageIsAnError: a part's bytes cut short, or with a string
// index recorded where the body holds another, are refused (ErrCorrupt),
// never joined.
func TestReadPart_damageIsAnError(t *testing.T) {
	p := NewPart()
	p.String("a")
	p.Uvarint(300)
	p.String("b")
	p.String("a")
	b, err := p.AppendPart(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPart(b); err != nil {
		t.Fatal(err)
	}
	for cut := range len(b) {
		if _, err := ReadPart(b[:cut]); err == nil {
			t.Fatalf("a part cut to %d of %d bytes was read", cut, len(b))
		}
	}
	bad := slices.Clone(b)
	bad[len(bad)-2] = 5 // the body ends with "b"'s index 1 and "a"'s 0: 1 becomes 5
	if _, err := ReadPart(bad); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a part whose body holds index 5 where 1 is recorded: %v", err)
	}
	if _, err := NewEncoder().AppendPart(nil); err == nil {
		t.Fatal("an encoder that is no part was put in bytes as one")
	}
}

// copyScript writes a Value of every kind: nil, booleans, numbers (whole
// and not), strings and nested tables, one of 200 entries.
func copyScript(e *Encoder) {
	m := e.BeginTable()
	e.ValueString("name")
	e.ValueString("grunt")
	e.ValueString("hp")
	e.ValueNumber(42)
	e.ValueString("speed")
	e.ValueNumber(2.5)
	e.ValueString("alive")
	e.ValueBool(true)
	e.ValueString("dead")
	e.ValueBool(false)
	e.ValueString("none")
	e.ValueNil()
	e.ValueString("list")
	inner := e.BeginTable()
	for k := range 200 {
		e.ValueNumber(float64(k + 1))
		e.ValueString("k" + string(rune('a'+k%26)))
	}
	e.EndTable(inner, 200)
	e.EndTable(m, 7)
}

// TestCopyValue_movesAValueAsWritten: a Value copied from one body to
// another encoder, whose string table numbers its strings otherwise, is
// the bytes that encoder writes for the same Value; every cut of the
// Value is an error of the decoder, never a panic nor a copy.
func TestCopyValue_movesAValueAsWritten(t *testing.T) {
	src := NewEncoder()
	src.String("before") // the source numbers "grunt" and the rest from 1
	copyScript(src)
	want := NewEncoder()
	want.String("other")
	want.String("k") // the target numbers them otherwise
	copyScript(want)
	body, strs := src.Bytes(), src.Strings()
	got := NewEncoder()
	got.String("other")
	got.String("k")
	d := NewDecoder(body, strs)
	_ = d.String()
	CopyValue(got, d)
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) || !slices.Equal(got.Strings(), want.Strings()) {
		t.Fatalf("the copy differs from the Value written by its encoder")
	}
	for cut := 1; cut < len(body); cut++ {
		d := NewDecoder(body[:cut], strs)
		_ = d.String()
		e := NewEncoder()
		CopyValue(e, d)
		if d.Err() == nil {
			t.Fatalf("a Value cut to %d of %d bytes was copied", cut, len(body))
		}
	}
}
