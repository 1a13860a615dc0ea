package runtime

import (
	"fmt"
	"testing"
)

// TestWorkers_roundsByHandAreStepAtsRounds: Begin and NextRound, with the
// caller ending each round (the gates' EndRound over RoundAgents), step
// five agents on two workers as StepAt steps them: the same lines, round
// after round, and RoundAgents lists each round's agents in order.
func TestWorkers_roundsByHandAreStepAtsRounds(t *testing.T) {
	ids := []string{"a1", "a2", "a3", "a4", "a5"}
	tree := fmt.Sprintf(usersTree, 2)
	one := newGateWorld(t, tree, ids...)
	w := newGateWorld(t, tree, ids...)
	par := NewWorkers(2, w.gates)
	defer par.Close()
	par.Of = []int32{0, 1, 0, 1, 0}
	// Each worker steps its agents with an Env of its own, as a host's do.
	envs := []*Env{w.env, {Observer: w, Logger: w, Gates: w.gates}}
	for i, id := range ids {
		w.agents[i] = w.tree.NewAgent(id, envs[par.Of[i]])
	}
	for step := 1; step <= 3; step++ {
		want := one.stepAll()
		if err := par.Begin(w.agents, float64(step)); err != nil {
			t.Fatal(err)
		}
		rounds := 0
		for {
			waiting, err := par.NextRound()
			if err != nil {
				t.Fatal(err)
			}
			if rounds++; rounds == 1 && len(par.RoundAgents()) != len(ids) {
				t.Fatalf("step %d: round 1 has %d agents", step, len(par.RoundAgents()))
			}
			if err := w.gates.EndRound(par.RoundAgents()); err != nil {
				t.Fatal(err)
			}
			if waiting == 0 {
				break
			}
		}
		got := make([]string, len(ids))
		for i, a := range w.agents {
			got[i] = w.describe(a, par.Outcomes()[i])
		}
		expectLines(t, step, got, want)
		if step == 1 && rounds != 2 {
			t.Errorf("step 1: %d rounds, want 2 (the takes, then the resumed steps)", rounds)
		}
	}
}
