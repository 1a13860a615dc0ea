package savecodec

import (
	"errors"
	"testing"
)

// TestDecoderSeek_goesBackAndRefusesOutsideTheInput: a reader that tried
// one reading goes back to Offset and reads again the same; an offset
// outside the input is an error of the decoder, not a panic later.
func TestDecoderSeek_goesBackAndRefusesOutsideTheInput(t *testing.T) {
	e := NewEncoder()
	e.ValueString("a")
	e.ValueNumber(2)
	d := NewDecoder(e.Bytes(), e.Strings())
	at := d.Offset()
	if s, ok := d.StringNext(); !ok || s != "a" {
		t.Fatalf("StringNext = %q, %v", s, ok)
	}
	d.Seek(at)
	if s, ok := d.StringNext(); !ok || s != "a" {
		t.Fatalf("after Seek back, StringNext = %q, %v", s, ok)
	}
	for _, off := range []int{-1, len(d.Input()) + 1} {
		d := NewDecoder(e.Bytes(), e.Strings())
		d.Seek(off)
		if !errors.Is(d.Err(), ErrCorrupt) {
			t.Errorf("Seek(%d) of %d bytes: error %v, want ErrCorrupt", off, len(d.Input()), d.Err())
		}
	}
}

// TestRawEncoder_framesWhatWasWrittenApart: a body and string table made
// apart, framed by WriteContainer, read back as the encoder that wrote them
// would have; the encoder goes on using the table it was given.
func TestRawEncoder_framesWhatWasWrittenApart(t *testing.T) {
	part := NewEncoder()
	part.String("x")
	part.String("y")
	e := RawEncoder(part.Bytes(), part.Strings())
	e.String("y") // found in the given table, not added again
	_, d, err := ReadContainer("BTRUNTST", WriteContainer("BTRUNTST", 3, e))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.StringTable(); len(got) != 2 {
		t.Fatalf("string table %q, want [x y]", got)
	}
	if a, b, c := d.String(), d.String(), d.String(); a != "x" || b != "y" || c != "y" || d.Done() != nil || d.Version != 3 {
		t.Errorf("read %q %q %q (version %d, %v), want x y y (3)", a, b, c, d.Version, d.Done())
	}
	m := MakeDecoder(7, d.Input(), d.StringTable())
	if m.Version != 7 || m.String() != "x" {
		t.Errorf("MakeDecoder: version %d", m.Version)
	}
}
