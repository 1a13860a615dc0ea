package savecodec

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestUvarint_fastPathsReadAsBinaryDoes: the one- and two-byte paths of
// Encoder.Uvarint and Decoder.Uvarint write and read what encoding/binary
// does, for every value up to three bytes and the edges beyond, and for
// inputs cut short, overlong or too long.
func TestUvarint_fastPathsReadAsBinaryDoes(t *testing.T) {
	var values []uint64
	for v := range uint64(1 << 15) {
		values = append(values, v)
	}
	values = append(values, 1<<21-1, 1<<21, 1<<28, 1<<63, math.MaxUint64)
	for _, v := range values {
		e := NewEncoder()
		e.Uvarint(v)
		e.Uvarint(7) // something after it
		if want := binary.AppendUvarint(nil, v); string(e.Bytes()[:len(want)]) != string(want) {
			t.Fatalf("Encoder.Uvarint(%d) = % x, want % x", v, e.Bytes(), want)
		}
		d := NewDecoder(e.Bytes(), nil)
		if got, next := d.Uvarint(), d.Uvarint(); got != v || next != 7 || d.Done() != nil {
			t.Fatalf("Decoder.Uvarint of % x = %d then %d (%v), want %d then 7", e.Bytes(), got, next, d.Err(), v)
		}
	}
	for _, in := range [][]byte{
		{}, {0x80}, {0xff}, {0x80, 0x80}, {0x80, 0x00}, {0xff, 0x01}, {0x81, 0x80, 0x01}, {0x05},
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
	} {
		want, n := binary.Uvarint(in)
		d := NewDecoder(in, nil)
		got := d.Uvarint()
		switch {
		case n <= 0 && d.Err() == nil:
			t.Errorf("Uvarint of % x = %d, want an error", in, got)
		case n > 0 && (got != want || d.Remaining() != len(in)-n || d.Err() != nil):
			t.Errorf("Uvarint of % x = %d, %d left (%v), want %d, %d left", in, got, d.Remaining(), d.Err(), want, len(in)-n)
		}
	}
	// After an error every read is zero, fast paths included.
	d := NewDecoder([]byte{0x80, 0x05, 0x05}, nil)
	d.Fail("broken")
	if v := d.Uvarint(); v != 0 || d.off != 0 {
		t.Errorf("Uvarint after an error = %d at byte %d, want 0 at 0", v, d.off)
	}
}

// TestEncoderString_cacheKeepsTheTable: strings written through the cache
// of recent strings (which grows with the table) get the indices a plain
// table gives: each new string the next index, each string met again its
// first one, however many there are and however they collide.
func TestEncoderString_cacheKeepsTheTable(t *testing.T) {
	names := make([]string, 3*recentMax)
	for i := range names {
		names[i] = fmt.Sprintf("name-%d", i)
	}
	e := NewEncoder()
	index := map[string]uint64{}
	var body []byte
	for round := range 3 {
		for i, s := range names {
			if round > 0 && i%3 != round {
				continue
			}
			if round == 2 {
				s = strings.Clone(s) // the same text at another place
			}
			e.String(s)
			k, ok := index[s]
			if !ok {
				k = uint64(len(index))
				index[s] = k
			}
			body = binary.AppendUvarint(body, k)
		}
	}
	if string(e.Bytes()) != string(body) || len(e.Strings()) != len(names) {
		t.Fatalf("%d strings, %d bytes; want %d and %d, the same", len(e.Strings()), len(e.Bytes()), len(names), len(body))
	}
	for i, s := range e.Strings() {
		if s != names[i] {
			t.Fatalf("string %d is %q, want %q", i, s, names[i])
		}
	}
	e.Reset()
	e.String(names[5])
	if string(e.Bytes()) != "\x00" || len(e.Strings()) != 1 {
		t.Errorf("after Reset: % x and %d strings, want 00 and 1", e.Bytes(), len(e.Strings()))
	}
}

// TestDecoderStringAndCount_readTheirVarintsAsUvarintDoes: String and Count
// read their varint with fast paths of their own; they read what Uvarint
// reads, for every index up to three bytes and for inputs cut short,
// overlong or too long, and after an error they read nothing.
func TestDecoderStringAndCount_readTheirVarintsAsUvarintDoes(t *testing.T) {
	strs := make([]string, 1<<14+5)
	for i := range strs {
		strs[i] = fmt.Sprint(i)
	}
	inputs := [][]byte{
		{}, {0x80}, {0xff}, {0x80, 0x80}, {0x80, 0x00}, {0xff, 0x01}, {0x81, 0x80, 0x01}, {0x05},
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
	}
	for v := range uint64(1 << 15) {
		inputs = append(inputs, binary.AppendUvarint(nil, v))
	}
	for _, in := range inputs {
		in = append(in[:len(in):len(in)], 0x07) // something after it
		ref := NewDecoder(in, strs)
		want := ref.Uvarint()
		d := NewDecoder(in, strs)
		got := d.String()
		switch {
		case ref.Err() != nil || want >= uint64(len(strs)):
			if got != "" || d.Err() == nil {
				t.Fatalf("String of % x = %q (%v), want an error", in, got, d.Err())
			}
		case got != strs[want] || d.Remaining() != ref.Remaining() || d.Err() != nil:
			t.Fatalf("String of % x = %q, %d left (%v), want %q, %d left", in, got, d.Remaining(), d.Err(), strs[want], ref.Remaining())
		}
		// Count refuses a count larger than the bytes left: give it room.
		room := in
		if ref.Err() == nil && want < 1<<15 {
			room = append(in, make([]byte, want)...)
		}
		ref, d = NewDecoder(room, nil), NewDecoder(room, nil)
		want = ref.Uvarint()
		wantErr := ref.Err() != nil || want > uint64(ref.Remaining())
		n := d.Count(1)
		switch {
		case wantErr:
			if n != 0 || d.Err() == nil {
				t.Fatalf("Count of % x = %d (%v), want an error", in, n, d.Err())
			}
		case uint64(n) != want || d.Remaining() != ref.Remaining() || d.Err() != nil:
			t.Fatalf("Count of % x = %d, %d left (%v), want %d, %d left", in, n, d.Remaining(), d.Err(), want, ref.Remaining())
		}
	}
	d := NewDecoder([]byte{0x01, 0x81, 0x01, 0x01}, strs)
	d.Fail("broken")
	if s, n, b := d.String(), d.Count(1), d.Byte(); s != "" || n != 0 || b != 0 || d.off != 0 {
		t.Errorf("after an error: String %q, Count %d, Byte %d at byte %d, want nothing read", s, n, b, d.off)
	}
}
