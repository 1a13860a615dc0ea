package cluster

import (
	"reflect"
	"testing"
)

// TestDecode_allocs: decoding a reply of 100 agents' records and signals
// allocates its item list and the strings that are not common ones, not a
// copy of every item's bytes (a copy per field cost three allocations a
// record: its stream's name twice and its line); the decoded message is
// the one encoded, and an append to an item's bytes does not write into
// the next item's.
func TestDecode_allocs(t *testing.T) {
	m := Message{Kind: Round, Reply: true, Seq: 3, Step: 7, Round: 1}
	for i := range 100 {
		m.Items = append(m.Items,
			Item{Order: Place(PhaseRound, int64(i)), Kind: Record, Agent: -1, Peer: -1, Text: "trace", Data: []byte(`{"step":7}` + "\n")},
			Item{Order: Place(PhaseRound, int64(i)), Sub: 1, Kind: Signal, Agent: int32(i), Peer: -1, Text: "all", Name: "OnEnemySeen", Data: []byte{1, 2}})
	}
	b := m.Append(nil)
	n := testing.AllocsPerRun(20, func() {
		if _, err := Decode(b); err != nil {
			t.Fatal(err)
		}
	})
	if n > 101 { // the items, and each signal's name
		t.Errorf("decoding 200 items: %.0f allocations, want at most 101", n)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("decoded %+v, want %+v", got.Items[:2], m.Items[:2])
	}
	next := string(got.Items[1].Data)
	_ = append(got.Items[0].Data, 'X')
	if string(got.Items[1].Data) != next {
		t.Errorf("an append to an item's bytes wrote into the next item's: %q", got.Items[1].Data)
	}
}
