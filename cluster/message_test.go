package cluster

import (
	"errors"
	"reflect"
	"testing"
)

func sampleMessage() Message {
	return Message{Kind: Round, Reply: true, Seq: 7, Step: 600, Round: 3, Time: 60.000000000001, Waiting: 2,
		Shared: []byte{1, 2, 3}, Err: "", Items: []Item{
			{Order: Place(PhaseRound, 5), Sub: 1, Kind: Request, Agent: 5, Peer: -1, Name: "gate", Data: []byte("take")},
			{Order: Place(PhaseDelivery, 1<<40), Sub: 9 << 32, Kind: Delivery, Agent: -1, Peer: 4, Text: "grunt-3", Name: "OnEnemySeen"},
		}}
}

func TestMessage_roundTrip(t *testing.T) {
	m := sampleMessage()
	got, err := Decode(m.Append(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("got %+v\nwant %+v", got, m)
	}
}

// Every cut of a message is refused with ErrMessage, never a panic.
func TestDecode_truncatedIsRefused(t *testing.T) {
	m := sampleMessage()
	b := m.Append(nil)
	for n := range len(b) {
		if _, err := Decode(b[:n]); !errors.Is(err, ErrMessage) {
			t.Fatalf("%d of %d bytes: %v", n, len(b), err)
		}
	}
	if _, err := Decode(append(b, 0)); !errors.Is(err, ErrMessage) {
		t.Errorf("a byte too many: %v", err)
	}
	b[0] = 9
	if _, err := Decode(b); !errors.Is(err, ErrMessage) {
		t.Errorf("another encoding version: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	m := sampleMessage()
	f.Add(m.Append(nil))
	f.Add([]byte{version, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 15})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Decode(m.Append(nil))
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("a message read does not read back: %v", err)
		}
	})
}

func TestSequence_refusesGapsAndRepeats(t *testing.T) {
	var s Sequence
	for _, c := range []struct {
		seq uint64
		ok  bool
	}{{1, true}, {2, true}, {2, false}, {4, false}, {3, true}} {
		m := Message{Kind: Round, Seq: c.seq}
		if err := s.Check(&m, "shard 1"); (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrSequence)) {
			t.Errorf("seq %d: %v", c.seq, err)
		}
	}
}

func TestCut_contiguousAndEven(t *testing.T) {
	l := Cut(100, 3)
	if !reflect.DeepEqual(l.Start, []int32{0, 34, 67, 100}) {
		t.Fatalf("100 on 3: %v", l.Start)
	}
	for p, want := range map[int32]int{-1: -1, 0: 0, 33: 0, 34: 1, 66: 1, 67: 2, 99: 2, 100: -1} {
		if got := l.Of(p); got != want {
			t.Errorf("Of(%d) = %d, want %d", p, got, want)
		}
	}
	if l := Cut(2, 3); !reflect.DeepEqual(l.Start, []int32{0, 1, 2, 2}) {
		t.Errorf("2 on 3: %v", l.Start)
	}
}

func TestMerge_twoItemsAtOnePlaceIsAnError(t *testing.T) {
	a := []Item{{Order: Place(PhaseRound, 3), Kind: Signal, Agent: 3}}
	if _, err := Merge(nil, a, a); !errors.Is(err, ErrOrder) {
		t.Errorf("two shards' items for agent 3: %v", err)
	}
}
