package runtime

import (
	"strings"
	"testing"
)

// TestSlot_aReloadThatRemovesTheSlotCarriesItsAgents: a new version of a
// tree without its slot takes the agents over like any edit: one whose
// cursor is outside the slot keeps its place, and one inside the tree the
// slot held loses it and restarts at the root (the carry drops the slot, as
// it drops any state it cannot place). Carries were refused before ("the
// save holds slots (use) and tree test.xml has none"), even after a reset.
func TestSlot_aReloadThatRemovesTheSlotCarriesItsAgents(t *testing.T) {
	without := strings.Replace(slotHost, `<slot id="use" default="idle"/>`, `<action name="ok" id="rest"/>`, 1)
	renamed := strings.Replace(slotHost, `<slot id="use"`, `<slot id="hold"`, 1)
	for _, c := range []struct {
		name, v2 string
		graft    bool
		gone     string
		after    string
	}{
		{name: "on its default, between steps", v2: without, after: "success root: walk:start walk rest"},
		{name: "inside the grafted tree", v2: without, graft: true,
			gone: "rule use.aim is gone [use.aim:cancel]", after: "success root: walk:start walk rest"},
		{name: "slot renamed", v2: renamed, graft: true,
			gone: "rule use.aim is gone [use.aim:cancel]", after: "success root: walk:start walk hold.wait"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newSlotHarness(t, slotHost)
			if c.graft {
				h.must(h.agent.Graft("use", "gun"))
				h.script["use.aim"] = []Status{Running}
				expectSteps(t, h.steps(1), []string{"running use.aim: walk:start walk use.aim:start use.aim"})
			} else {
				expectSteps(t, h.steps(1), []string{"success root: walk:start walk use.wait"})
			}
			tree, err := LoadBytes("test.xml", []byte(c.v2), LoadOptions{})
			h.must(err)
			b2, err := Bind(tree, h.reg, BindOptions{Trees: slotTrees(t, slotGame)})
			h.must(err)
			if gone := h.carry(b2); gone != c.gone {
				t.Errorf("gone: %q, want %q", gone, c.gone)
			}
			expectSteps(t, h.steps(1), []string{c.after})
		})
	}
}
