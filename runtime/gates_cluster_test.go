package runtime

import (
	"fmt"
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
			for _, i := range who {
				agents, own = append(agents, w.agents[i]), append(own, ownA[i] == (w == a))
			}
			w.gates.EndRoundParts(agents, own, parts)
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
