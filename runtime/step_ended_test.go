package runtime

import (
	"fmt"
	"testing"
)

// TestStepEnded_calledOnceForEachStepThatEnded steps the workers world
// (gate takes and calls that pause agents for rounds) on Rounds and on 1,
// 2 and 3 workers and Serial: each step, the hook is called exactly once
// for every agent whose step ended, with its outcome and its worker, and
// never for one still paused; agents that paused are reported in a later
// round than the first.
func TestStepEnded_calledOnceForEachStepThatEnded(t *testing.T) {
	const agents, steps = 17, 40
	for _, n := range []int{0, 1, 2, 3, -3} { // 0: Rounds; -3: three workers, Serial
		t.Run(fmt.Sprintf("workers=%d", n), func(t *testing.T) {
			w := newWorkersWorld(t, max(n, -n), agents)
			type seen struct {
				calls, worker, round int
				st                   Status
				err                  error
			}
			got := make([]seen, agents) // each agent's slot is written on its worker only
			hook := func(k int, i int32, a *Agent, st Status, err error) {
				if w.agents[i] != a {
					t.Errorf("agent %d handed as %s", i, a.ID())
				}
				round := 1
				if w.w != nil {
					round = w.w.Round()
				}
				got[i] = seen{got[i].calls + 1, k, round, st, err}
			}
			if w.w == nil {
				w.rounds.Ended = hook
			} else {
				defer w.w.Close()
				w.w.Serial = n < 0
				w.w.Ended = hook
			}
			later := 0
			for s := 1; s <= steps; s++ {
				clear(got)
				var out []Outcome
				var err error
				if w.w == nil {
					out, err = w.rounds.StepAt(w.agents, float64(s)*0.1)
				} else {
					out, err = w.w.StepAt(w.agents, float64(s)*0.1)
				}
				if err != nil {
					t.Fatal(err)
				}
				for i, o := range out {
					g := got[i]
					if o.Status == Paused {
						t.Fatalf("step %d: agent %d still paused after the rounds", s, i)
					}
					if g.calls != 1 || g.st != o.Status || g.err != o.Err {
						t.Fatalf("step %d: agent %d: hook called %d times with %v, %v; outcome %v, %v", s, i, g.calls, g.st, g.err, o.Status, o.Err)
					}
					if w.w != nil && g.worker != int(w.w.Of[i]) {
						t.Fatalf("step %d: agent %d reported on worker %d, it is worker %d's", s, i, g.worker, w.w.Of[i])
					}
					if g.round > 1 {
						later++
					}
				}
			}
			if w.w != nil && later == 0 {
				t.Fatal("no step ended in a later round: the world should pause agents at calls")
			}
		})
	}
}
