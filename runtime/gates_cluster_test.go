package runtime

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestGatesParts_copiesDecideAsOneProcess: five agents ask for a gate of
// two users in one round; two processes each step their own agents (a1,
// a2 here, a3..a5 there) and keep copies of the others, and each ends the
// round from every agent's part in config order (EndRoundParts). Every
// agent's step, and both copies' holders, are one process's.
func TestGatesParts_copiesDecideAsOneProcess(t *testing.T) {
	ids := []string{"a1", "a2", "a3", "a4", "a5"}
	tree := fmt.Sprintf(usersTree, 2)
	one := newGateWorld(t, tree, ids...)
	a, b := newGateWorld(t, tree, ids...), newGateWorld(t, tree, ids...)
	ownA := []bool{true, true, false, false, false}
	for step := 1; step <= 3; step++ {
		want := one.stepAll()
		got := make([]string, len(ids))
		tm := float64(step)
		// Each process steps its own agents until they end or pause.
		outs := make([]Outcome, len(ids))
		var parts []GatePart
		var who []int
		for i := range ids {
			w := b
			if ownA[i] {
				w = a
			}
			st, err := w.agents[i].StepAt(tm)
			outs[i] = Outcome{st, err}
			if p, ok := w.agents[i].GatePart(w.gates); ok {
				parts, who = append(parts, p), append(who, i)
			}
		}
		// Every process ends the round from every part, in config order.
		for _, w := range []*gateWorld{a, b} {
			var agents []*Agent
			var own []bool
			var places []int32
			for _, i := range who {
				agents, own, places = append(agents, w.agents[i]), append(own, ownA[i] == (w == a)), append(places, int32(i))
			}
			if err := w.gates.EndRoundParts(agents, own, places, parts); err != nil {
				t.Fatal(err)
			}
		}
		for i := range ids {
			w := b
			if ownA[i] {
				w = a
			}
			if outs[i].Status == Paused {
				st, err, ok := w.gates.Continue(w.agents[i])
				if !ok {
					t.Fatalf("step %d: %s is not answered", step, ids[i])
				}
				outs[i] = Outcome{st, err}
			}
			got[i] = w.describe(w.agents[i], outs[i])
		}
		expectLines(t, step, got, want)
		for _, w := range []*gateWorld{a, b} {
			if h, wantH := w.holders("g"), one.holders("g"); h != wantH {
				t.Errorf("step %d: a copy's holders %q, want %q", step, h, wantH)
			}
		}
	}
}

// TestGatesKeep_putsTheStateBack: Keep's restore undoes what a restore of
// an agent does to the gates (a release, and a take at the end).
func TestGatesKeep_putsTheStateBack(t *testing.T) {
	w := newGateWorld(t, fmt.Sprintf(usersTree, 2), "a1", "a2")
	w.stepAll()
	before := w.holders("g")
	s, err := w.agents[0].Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	back := w.gates.Keep()
	if _, err := w.agents[0].Restore(&s); err != nil {
		t.Fatal(err)
	}
	if w.holders("g") == before {
		t.Fatalf("a restore leaves the holders %q as they were: this test shows nothing", before)
	}
	back()
	if got := w.holders("g"); got != before {
		t.Errorf("holders %q, want %q", got, before)
	}
}

// TestGatesParts_placesForAgentsHeldElsewhere: a process that holds only
// a3..a5 (no *Agent for a1, a2: nil, named by place) ends every round
// from every part as one process does: its agents' steps and its gates'
// holders (the others by place) are one process's. A part naming a gate
// the Gates lacks is refused.
func TestGatesParts_placesForAgentsHeldElsewhere(t *testing.T) {
	ids := []string{"a1", "a2", "a3", "a4", "a5"}
	tree := fmt.Sprintf(usersTree, 2)
	one := newGateWorld(t, tree, ids...)
	a, b := newGateWorld(t, tree, ids[:2]...), newGateWorld(t, tree, ids[2:]...)
	agentOf := func(i int) (*gateWorld, *Agent) {
		if i < 2 {
			return a, a.agents[i]
		}
		return b, b.agents[i-2]
	}
	for step := 1; step <= 4; step++ {
		want := one.stepAll()
		tm := float64(step)
		outs := make([]Outcome, len(ids))
		var parts []GatePart
		var who []int32
		for i := range ids {
			w, ag := agentOf(i)
			st, err := ag.StepAt(tm)
			outs[i] = Outcome{st, err}
			if p, ok := ag.GatePart(w.gates); ok {
				parts, who = append(parts, p), append(who, int32(i))
			}
		}
		for _, w := range []*gateWorld{a, b} {
			var agents []*Agent
			var own []bool
			for _, i := range who {
				ow, ag := agentOf(int(i))
				if ow != w {
					ag = nil
				}
				agents, own = append(agents, ag), append(own, ag != nil)
			}
			if err := w.gates.EndRoundParts(agents, own, who, parts); err != nil {
				t.Fatal(err)
			}
		}
		got := make([]string, len(ids))
		for i := range ids {
			w, ag := agentOf(i)
			if outs[i].Status == Paused {
				st, err, ok := w.gates.Continue(ag)
				if !ok {
					t.Fatalf("step %d: %s is not answered", step, ids[i])
				}
				outs[i] = Outcome{st, err}
			}
			got[i] = w.describe(ag, outs[i])
		}
		expectLines(t, step, got, want)
		wantH := one.holders("g")
		for k, w := range []*gateWorld{a, b} {
			h := w.holders("g")
			for i, id := range ids { // the holders held elsewhere are named by place
				h = strings.ReplaceAll(h, fmt.Sprintf("#%d", i), id)
			}
			if h != wantH {
				t.Errorf("step %d: process %d's holders %q, want %q", step, k, h, wantH)
			}
		}
	}
	// State and SetState carry the holders by place to a new process.
	st := b.gates.State(func(ag *Agent) int32 { return int32(slices.Index(b.agents, ag) + 2) })
	c := newGateWorld(t, tree, ids[2:]...)
	if err := c.gates.SetState(st, func(p int32) *Agent {
		if p < 2 {
			return nil
		}
		return c.agents[p-2]
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.ReplaceAll(c.holders("g"), " ", ""), strings.ReplaceAll(b.holders("g"), " ", ""); got != want {
		t.Errorf("after SetState, holders %q, want %q", got, want)
	}
	if err := c.gates.SetState(st[:0], nil); err == nil {
		t.Error("a state of no gates for one is accepted")
	}
	if err := b.gates.EndRoundParts([]*Agent{nil}, []bool{false}, []int32{0}, []GatePart{{Take: 7}}); err == nil {
		t.Error("a take of gate 7 of 1 is accepted")
	}
}
