package runtime

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/btrun/btrun/runtime/internal/treegen"
)

// Slots in the stepping fuzzer: the random tree is grafted, under two
// names, into the slot of a host tree with the same declarations, whose
// action "pick" grafts one or the other, or ungrafts, as the agent's
// stream draws (before and after the slot, so that a slot takes another
// tree in the middle of a step too). Jumps go to the host's rules and to
// the grafted tree's (s.ID). Every way of running the game must agree,
// saves and restores at any step included (step_fuzz_test.go).

const fuzzPick = "fuzz.pick"

// pick grafts "r" or "r2" into slot s, or ungrafts it, or does nothing.
func (s *fuzzScript) pick(a *Agent, p Params) (Status, error) {
	l := s.of(a)
	v := l.draw()
	var err error
	switch v % 4 {
	case 0:
		err = a.Graft("s", "r")
	case 1:
		err = a.Graft("s", "r2")
	case 2:
		err = a.Ungraft("s")
	}
	fmt.Fprintf(&l.log, "pick@%s %d %v; ", a.Label(), v%4, err)
	return Success, err
}

// slotted makes rt the tree grafted into a host's slot.
func slotted(tb testing.TB, rt treegen.RandomTree) (treegen.RandomTree, TreeSource) {
	tb.Helper()
	tree, err := LoadBytes("r.xml", rt.XML, LoadOptions{})
	if err != nil {
		tb.Fatalf("a random tree does not load: %v\n%s", err, rt.XML)
	}
	root := bytes.Index(rt.XML, []byte("</variables>\n")) + len("</variables>\n") // the declarations, then the root rule
	if g := bytes.Index(rt.XML, []byte("</gates>\n")); g >= 0 {
		root = g + len("</gates>\n")
	}
	host := fmt.Sprintf(`%s<choice id="h" loop="true"><sequence id="w"><action name="%s" id="p"/><slot id="s" default="r" doNotFail="true"/><action name="%s" id="q"/><yield id="y"/></sequence></choice>
</behaviorTree>
`, rt.XML[:root], fuzzPick, fuzzPick)
	out := rt
	out.XML = []byte(host)
	out.IDs = []string{"h", "w", "p", "s", "q", "y"}
	for _, id := range rt.IDs {
		out.IDs = append(out.IDs, "s."+id)
	}
	return out, func(name string) (*Tree, bool) { return tree, name == "r" || name == "r2" }
}

// TestSlot_randomTreesAgree is FuzzStep's check with the random trees
// grafted into a slot.
func TestSlot_randomTreesAgree(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 30
	}
	r := rand.New(rand.NewPCG(2026, 26))
	for k := range n {
		data := make([]byte, 32+r.IntN(320))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		t.Run(fmt.Sprint(k), func(t *testing.T) { checkSlotted(t, data) })
	}
}

func checkSlotted(tb testing.TB, data []byte) {
	rt, trees := slotted(tb, treegen.Random(data))
	checkFuzzTree(tb, rt, fuzzSeed(data), trees)
}

// FuzzSlots is FuzzStep with the random trees grafted into a slot.
//
//	go test ./runtime -run '^$' -fuzz FuzzSlots
func FuzzSlots(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		data := make([]byte, 64+r.IntN(256))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSlotted(t, data) })
}
