package cluster

import (
	"bytes"
	"errors"
	"testing"
)

// TestInput_roundTripsAndRefusesBadBytes: a journaled input reads back as
// written (its Seq is the journal's); truncated, trailing or foreign bytes
// and an unknown kind are ErrInput.
func TestInput_roundTripsAndRefusesBadBytes(t *testing.T) {
	in := Input{Step: 210, Kind: InputSignal, To: "medic-2", Name: "OnHurt", Data: []byte{1, 2, 3}}
	b := AppendInput(nil, &in)
	got, err := DecodeInput(b)
	if err != nil || got.Step != in.Step || got.Kind != in.Kind || got.To != in.To || got.Name != in.Name || !bytes.Equal(got.Data, in.Data) {
		t.Fatalf("%+v, %v", got, err)
	}
	for name, bad := range map[string][]byte{
		"truncated":  b[:len(b)-1],
		"trailing":   append(append([]byte(nil), b...), 0),
		"foreign":    append([]byte("BTRUNCP1"), b[8:]...),
		"kind 0":     AppendInput(nil, &Input{Step: 1, Name: "x"}),
		"kind after": AppendInput(nil, &Input{Step: 1, Kind: numInputKinds, Name: "x"}),
	} {
		if _, err := DecodeInput(bad); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestMemJournal_fromAndPruneByStep: inputs come back from a step on, in
// the order journaled, and pruning forgets those of earlier steps.
func TestMemJournal_fromAndPruneByStep(t *testing.T) {
	var j MemJournal
	for _, s := range []uint64{3, 3, 10, 25} {
		if _, err := j.Append(Input{Step: s, Kind: InputSignal}); err != nil {
			t.Fatal(err)
		}
	}
	if ins, _ := j.From(10); len(ins) != 2 || ins[0].Seq != 3 || ins[1].Step != 25 {
		t.Fatalf("from 10: %+v", ins)
	}
	j.Prune(10)
	if ins, _ := j.From(0); len(ins) != 2 || ins[0].Seq != 3 {
		t.Fatalf("after pruning before 10: %+v", ins)
	}
	if seq, _ := j.Append(Input{Step: 30, Kind: InputSignal}); seq != 5 {
		t.Errorf("the numbering goes on after a prune: %d", seq)
	}
}

// FuzzDecodeInput: no bytes make the reader panic; what it reads writes
// back to the same input.
func FuzzDecodeInput(f *testing.F) {
	f.Add(AppendInput(nil, &Input{Step: 210, Kind: InputSignal, To: "all", Name: "Orders", Data: []byte("x")}))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := DecodeInput(b)
		if err != nil {
			return
		}
		again, err := DecodeInput(AppendInput(nil, &in))
		if err != nil || again.Step != in.Step || again.To != in.To || again.Name != in.Name || !bytes.Equal(again.Data, in.Data) {
			t.Fatalf("%+v does not round-trip: %+v %v", in, again, err)
		}
	})
}
