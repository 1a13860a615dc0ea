package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// changeLog records what a ChangeObserver sees.
type changeLog struct{ events []string }

func (c *changeLog) SignalReceived(a *Agent, signal string) {
	c.events = append(c.events, "signal "+signal)
}

func (c *changeLog) VarChanged(a *Agent, slot int32, v bool) {
	c.events = append(c.events, fmt.Sprintf("var %s=%v", a.Tree().Tree.Vars[slot].Name, v))
}

func (c *changeLog) StampChanged(a *Agent, slot int32, set bool) {
	name := a.Tree().Tree.Stamps[slot].Name
	if !set {
		c.events = append(c.events, "stamp "+name+" cleared")
		return
	}
	at, _ := a.StampAt(slot)
	c.events = append(c.events, fmt.Sprintf("stamp %s=%g", name, at))
}

// TestChangeObserver_seesSignalsAndChangesInOrder: signals from built-ins,
// from Go and undeclared ones, and the variable and timestamp changes they
// and actions make, in the order they happen; unchanged values are not
// changes.
func TestChangeObserver_seesSignalsAndChangesInOrder(t *testing.T) {
	h := newHarness(t, bt(guardDecls+`<sequence id="root">
  <action id="see" name="bt.signal.send"><parameter name="signal.name">Seen</parameter></action>
  <action id="again" name="bt.variable.set"><parameter name="variable.name">Aware</parameter><parameter name="variable.value">true</parameter></action>
  <action id="calm" name="bt.variable.set"><parameter name="variable.name">Calm</parameter><parameter name="variable.value">true</parameter></action>
  <action id="forget" name="bt.timestamp.clear"><parameter name="timestamp.name">Spotted</parameter></action>
  <action id="forgetAgain" name="bt.timestamp.clear"><parameter name="timestamp.name">Spotted</parameter></action>
  <action id="wait" name="run"/>
</sequence>`), nil)
	log := &changeLog{}
	h.env.Changes = log
	h.step()
	h.agent.Signal("Lost")
	h.agent.Signal("Nobody")
	want := []string{
		"signal Seen", "var Aware=true", "var Calm=false", "stamp Spotted=1", // the signal and its effects
		"var Calm=true",         // "again" set Aware to what it was: no change
		"stamp Spotted cleared", // "forgetAgain" found it unset: no change
		"signal Lost", "var Aware=false", "stamp Gone=1",
		"signal Nobody", // undeclared: received, no effect
	}
	if got := strings.Join(log.events, "; "); got != strings.Join(want, "; ") {
		t.Errorf("got  %s\nwant %s", got, strings.Join(want, "; "))
	}
	log.events = nil
	h.agent.Signal("Seen") // Spotted clears its exclusive partner Gone first
	if got := strings.Join(log.events, "; "); got != "signal Seen; var Aware=true; var Calm=false; stamp Gone cleared; stamp Spotted=1" {
		t.Errorf("exclusive partner: %s", got)
	}
}

// TestChangeObserver_absentChangesNothing: without an observer, state
// changes are the same.
func TestChangeObserver_absentChangesNothing(t *testing.T) {
	xml := bt(guardDecls + `<action id="root" name="bt.signal.send"><parameter name="signal.name">Seen</parameter></action>`)
	plain, seen := newHarness(t, xml, nil), newHarness(t, xml, nil)
	seen.env.Changes = &changeLog{}
	for _, h := range []*harness{plain, seen} {
		h.step()
		h.agent.Signal("Lost")
		h.agent.Signal("Seen")
	}
	for i := range plain.agent.slab {
		if plain.agent.slab[i] != seen.agent.slab[i] {
			t.Fatalf("slab word %d: %x without an observer, %x with one", i, plain.agent.slab[i], seen.agent.slab[i])
		}
	}
}
