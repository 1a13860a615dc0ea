package cluster

import (
	"errors"
	"reflect"
	"testing"
)

// TestWaiting_roundTrip: what waits for the next step (deliveries, then a
// live view's kept signals) reads back as it was, in its order, into
// another conductor; an empty record (a checkpoint's part of before) is
// nothing waiting; a record that names agents the layout lacks, or other
// items, is refused and changes nothing.
func TestWaiting_roundTrip(t *testing.T) {
	a := &Conductor{Layout: Cut(7, 2)}
	a.inCarry = []Item{
		{Order: Place(PhaseDelivery, 0), Kind: Delivery, Agent: 0, Peer: 6, Text: "a-7", Name: "Aborted", Data: []byte{1, 2}},
		{Order: Place(PhaseDelivery, 1), Kind: Delivery, Agent: -1, Peer: 2, Text: "a-3", Name: "All"},
	}
	a.carry = []Item{{Kind: Signal, Agent: 4, Peer: -1, Text: "a-1", Name: "Kept", Data: []byte{3}}}
	b := &Conductor{Layout: Cut(7, 3)}
	if err := b.SetWaiting(a.AppendWaiting(nil)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.inCarry, a.inCarry) || !reflect.DeepEqual(b.carry, a.carry) {
		t.Fatalf("read back %+v and %+v, want %+v and %+v", b.inCarry, b.carry, a.inCarry, a.carry)
	}
	if err := b.SetWaiting(nil); err != nil || len(b.inCarry) != 0 || len(b.carry) != 0 {
		t.Fatalf("nothing waiting: %v, %d deliveries and %d signals left", err, len(b.inCarry), len(b.carry))
	}
	for name, bad := range map[string]*Conductor{
		"a delivery to agent 7": {inCarry: []Item{{Kind: Delivery, Agent: 7, Peer: -1}}},
		"a signal from agent 9": {debug: debug{carry: []Item{{Kind: Signal, Agent: 9}}}},
		"a record":              {inCarry: []Item{{Kind: Record, Agent: -1, Peer: -1}}},
	} {
		b.inCarry = a.inCarry
		if err := b.SetWaiting(bad.AppendWaiting(nil)); !errors.Is(err, ErrMessage) || len(b.inCarry) != 2 {
			t.Errorf("%s: %v, %d deliveries waiting; want ErrMessage and nothing changed", name, err, len(b.inCarry))
		}
	}
	if err := b.SetWaiting([]byte{1, 2, 3}); !errors.Is(err, ErrMessage) {
		t.Errorf("3 bytes: %v, want ErrMessage", err)
	}
}

// FuzzSetWaiting: what a checkpoint's conductor part says waits for the
// next step is refused or taken, never a panic, and what is taken names
// only agents of the layout.
func FuzzSetWaiting(f *testing.F) {
	a := &Conductor{Layout: Cut(7, 2)}
	a.inCarry = []Item{{Order: Place(PhaseDelivery, 0), Kind: Delivery, Agent: 0, Peer: 6, Text: "a-7", Name: "Aborted", Data: []byte{1, 2}}}
	a.carry = []Item{{Kind: Signal, Agent: 4, Peer: -1, Text: "a-1", Name: "Kept", Data: []byte{3}}}
	f.Add(a.AppendWaiting(nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &Conductor{Layout: Cut(7, 3)}
		if err := b.SetWaiting(data); err != nil {
			return
		}
		for _, it := range append(append([]Item(nil), b.inCarry...), b.carry...) {
			if it.Agent < -1 || it.Agent >= 7 {
				t.Fatalf("took an item of agent %d for a layout of 7", it.Agent)
			}
		}
	})
}
