package liveview

import (
	"testing"
)

// TestAPI_stateMachineShowsItsStates: the example's lookout tree marks each
// state's rule with its state and transitions, and a lookout that sees the
// player shows the state it is in (Alert) on its machine and on that
// state's rule.
func TestAPI_stateMachineShowsItsStates(t *testing.T) {
	h := start(t, "../config.toml", 300, Options{Paused: true, Fast: true})
	var tree treeView
	h.getJSON("/api/trees/lookout", &tree)
	machine := tree.Rules[ruleIndex(t, tree, "lookout")]
	alert := tree.Rules[ruleIndex(t, tree, "lookout.backOff")]
	if machine.Attrs["initial"] != "Watch" || alert.State == nil || alert.State.Name != "Alert" ||
		len(alert.State.Transitions) != 2 || alert.State.Transitions[0] != "OnLostSightOfTarget->Search" {
		t.Fatalf("machine %v, Alert's rule %+v", machine.Attrs, alert.State)
	}
	// lookout-1 sees the player from step 230 (the example's run).
	for s := 1; s <= 232; s++ {
		h.ok("POST", "/api/step", "")
	}
	a := h.agent("lookout-1")
	if len(a.Machines) != 1 || a.Machines[0].State != "Alert" || a.Machines[0].StateRule != alert.Index || a.Machines[0].Label != "lookout" {
		t.Errorf("machines %+v", a.Machines)
	}
}
