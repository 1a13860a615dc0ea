package runtime

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/btrun/btrun/runtime/savecodec"
)

// TestDecoderShareStrings_takesTheEncodersCopies: after ShareStrings, a
// string of the save that the encoder's table holds is the encoder's copy
// (the text the game holds, compared by pointer), one it does not hold
// keeps the save's copy; what the decoder reads is the same text either way.
func TestDecoderShareStrings_takesTheEncodersCopies(t *testing.T) {
	held := strings.Repeat("memory.target", 2) // the game's copy of a key
	e := savecodec.NewEncoder()
	e.String(held)
	e.String("only in the save")
	data := savecodec.WriteContainer(AgentsMagic, AgentsVersion, e)

	other := savecodec.NewEncoder() // a later save of the same game, in another order
	other.String("something else")
	other.String(held)
	_, d, err := savecodec.ReadContainer(AgentsMagic, data)
	if err != nil {
		t.Fatal(err)
	}
	d.ShareStrings(other)
	a, b := d.String(), d.String()
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	if a != held || b != "only in the save" {
		t.Fatalf("read %q and %q", a, b)
	}
	if unsafe.StringData(a) != unsafe.StringData(held) {
		t.Error("the key is the save's copy, not the encoder's")
	}
	d.ShareStrings(nil) // a game that has not saved: nothing to share
}
