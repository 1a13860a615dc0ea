package runtime

import (
	"strings"
	"testing"
)

// TestCompose_desmGraftedIntoASlotHearsItsEvents: a state machine file
// grafted into a slot runs there, its events (signals its translation
// declares) switch its state, and a save at any step restored into a new
// agent goes on as before.
func TestCompose_desmGraftedIntoASlotHearsItsEvents(t *testing.T) {
	host := `<behaviorTree><signals><signal name="switch"/></signals><sequence id="root"><action id="g" name="act"/><slot id="s"/></sequence></behaviorTree>`
	lamp := `<?xml version="1.0"?><stateMachine>
<state id="off"><transition event="switch" state="on"/></state>
<state id="on"><enterAction name="act"/><transition event="switch" state="off"/></state></stateMachine>`
	run := func(saveAt int) []string {
		h := newHarnessOpts(t, host, nil, BindOptions{Trees: slotTrees(t, map[string]string{"lamp": lamp})})
		h.hook["g"] = func(a *Agent) error { return a.Graft("s", "lamp") }
		var out []string
		for i := range 6 {
			if i == saveAt {
				data, err := SaveAgents([]*Agent{h.agent}, nil)
				h.must(err)
				h.agent = h.tree.NewAgent("a1", h.env)
				if _, err := RestoreAgents(data, []*Agent{h.agent}, nil); err != nil {
					t.Fatalf("restore before step %d: %v", i, err)
				}
			}
			if i == 2 || i == 4 {
				if err := h.agent.Signal("switch"); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			out = append(out, h.step())
		}
		return out
	}
	want := run(-1)
	if !strings.Contains(strings.Join(want, "\n"), "s.stateMachine.on__enter_1_.enterAction") {
		t.Fatalf("the grafted machine never switched on:\n%s", strings.Join(want, "\n"))
	}
	for k := 1; k < 6; k++ {
		if got := run(k); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("restored before step %d:\n%s\nwant:\n%s", k, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
