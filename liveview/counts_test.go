package liveview

import (
	"testing"
)

// TestAPI_countsAndHooksShowOnTheRules: the example's medic tree shows
// repeat, enter and exit as attributes of its rules, and a medic treating
// a patient shows its pass count on the repeat rule and the start of the
// hooked branch (its exit hook will run).
func TestAPI_countsAndHooksShowOnTheRules(t *testing.T) {
	h := start(t, "../config.toml", 200, Options{Paused: true, Fast: true})
	var tree treeView
	h.getJSON("/api/trees/medic", &tree)
	heal := tree.Rules[ruleIndex(t, tree, "medic.heal")]
	treat := tree.Rules[ruleIndex(t, tree, "medic.heal.treat")]
	if heal.Attrs["enter"] != "medkit" || heal.Attrs["exit"] != "medkit" || treat.Attrs["repeat"] != float64(3) {
		t.Fatalf("attributes: heal %v, treat %v", heal.Attrs, treat.Attrs)
	}
	// medic-3 applies its bandages at steps 142, 152 and 163 (the
	// example's run): at step 155 two passes have succeeded.
	for s := 1; s <= 155; s++ {
		h.ok("POST", "/api/step", "")
	}
	a := h.agent("medic-3")
	var treatCount, healCount *countView
	for i := range a.Counts {
		switch a.Counts[i].Label {
		case "medic.heal.treat":
			treatCount = &a.Counts[i]
		case "medic.heal":
			healCount = &a.Counts[i]
		}
	}
	if treatCount == nil || treatCount.Passes != 2 || treatCount.Repeat != 3 {
		t.Errorf("the repeat rule's count: %+v (all: %+v)", treatCount, a.Counts)
	}
	// Issue 40: the page said "its exit hook will run" for any started
	// rule; it names the hook, and only a rule with one has it.
	if healCount == nil || !healCount.Started || healCount.Exit != "medkit" {
		t.Errorf("the hooked branch has not started: %+v (all: %+v)", healCount, a.Counts)
	}
}
