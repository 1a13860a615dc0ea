package runtime

import "testing"

// TestOrder_aChoiceThatDrewNothingGoesOnInDocumentOrderWhenAJumpLandsBelowIt:
// a choice with an order whose conditions fail when it is entered draws no
// order; when one of those conditions jumps below it, the choice (let in,
// so active) goes on in document order, as any choice made active by a
// jump landing below it, not in the order it drew at an earlier entry
// (which a save does not hold: a restored agent went on differently).
// Found by FuzzStep.
func TestOrder_aChoiceThatDrewNothingGoesOnInDocumentOrderWhenAJumpLandsBelowIt(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root"><choice id="ch" order="random"><condition>c</condition><condition>d</condition>
  <action id="a" name="act"/>
  <sequence id="b"><action id="b1" name="fail"/></sequence>
  <action id="c" name="act"/>
</choice></sequence>`), map[string]bool{"c": true, "d": true})
	h.script["a"], h.script["c"] = []Status{F}, []Status{F}
	// The first entry draws an order and tries every child in it.
	first := h.step()
	// The second entry's conditions fail (d is false), but c jumps to b1,
	// below the choice; d is true again when the choice moves on.
	jumped, checked := false, 0
	h.hook["?c"] = func(a *Agent) error {
		if !jumped {
			jumped = true
			return a.Jump("b1")
		}
		return nil
	}
	h.hook["?d"] = func(a *Agent) error {
		checked++
		h.conds["d"] = checked > 1
		return nil
	}
	got := h.step()
	want := "failure root: ?c ?d b1 ?c ?d c:start c" // after b, on to c: document order
	if got != want {
		t.Errorf("first step: %s\nsecond step: %s\nwant:        %s", first, got, want)
	}
}
