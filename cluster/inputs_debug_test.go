package cluster

import (
	"bytes"
	"testing"
)

// TestInput_liveViewKindsRoundTrip: the live view's signal, jump and
// variable edit read back from the journal's bytes as written, so that a
// replay (another process, after -resume) applies them again.
func TestInput_liveViewKindsRoundTrip(t *testing.T) {
	for _, in := range []Input{
		{Step: 25, Kind: InputDebugSignal, To: "medic-2", Name: "OnHurt", Data: []byte{4, 5}},
		{Step: 25, Kind: InputDebugJump, To: "lookout-1", Name: "lookout.search"},
		{Step: 30, Kind: InputDebugSetVar, To: "grunt-2", Name: "Ammo", Data: []byte{1, 0, 8}},
	} {
		got, err := DecodeInput(AppendInput(nil, &in))
		if err != nil || got.Step != in.Step || got.Kind != in.Kind || got.To != in.To || got.Name != in.Name || !bytes.Equal(got.Data, in.Data) {
			t.Errorf("kind %d: %+v, %v", in.Kind, got, err)
		}
	}
}
