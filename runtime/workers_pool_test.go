package runtime

import (
	"fmt"
	"testing"
	"time"
)

// runnersOf are w's runners that have been started.
func runnersOf(w *Workers) []*runner {
	var out []*runner
	for _, r := range w.pool.runners {
		if r != nil && r.exited != nil {
			out = append(out, r)
		}
	}
	return out
}

// runnersAlive counts w's runners whose goroutine runs.
func runnersAlive(w *Workers) int {
	n := 0
	for _, r := range w.pool.runners {
		if r != nil {
			r.mu.Lock()
			if !r.ended {
				n++
			}
			r.mu.Unlock()
		}
	}
	return n
}

// returned reports whether the goroutine each runner started last has
// returned (its exited channel is closed once it has).
func returned(rs []*runner) bool {
	for _, r := range rs {
		r.mu.Lock()
		exited := r.exited
		r.mu.Unlock()
		select {
		case <-exited:
		default:
			return false
		}
	}
	return true
}

// TestWorkers_runnersWatchingSleepingOrStartedAgainStepAlike steps the
// workers world with the runners in each of their ways of meeting a round
// (watching for it, asleep, ended and started again, never watching) and
// with pauses between steps that let them fall asleep or end: the steps
// and the save are those of one goroutine.
func TestWorkers_runnersWatchingSleepingOrStartedAgainStepAlike(t *testing.T) {
	const agents, steps = 17, 40
	wantSteps, wantSave := oneGoroutineRun(t, agents, steps)
	for _, c := range []struct {
		name  string
		spin  time.Duration
		pause time.Duration // between steps
	}{
		{"watching", time.Second, 0},
		{"asleep", -1, 0},
		{"ended and started again", time.Microsecond, 5 * time.Millisecond},
		{"short watch", time.Microsecond, 200 * time.Microsecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorkersWorld(t, 3, agents)
			defer w.w.Close()
			w.w.Spin = c.spin
			w.w.pool.idle = 3 * time.Millisecond
			for s := 1; s <= steps; s++ {
				if got := w.step(t, float64(s)*0.1); got != wantSteps[s-1] {
					t.Fatalf("step %d differs:\n got %s\nwant %s", s, got, wantSteps[s-1])
				}
				time.Sleep(c.pause)
			}
			if got := w.save(t); string(got) != string(wantSave) {
				t.Fatal("the save differs from the one of one goroutine")
			}
		})
	}
}

// TestWorkers_closeEndsTheWorkerGoroutines: Close returns once every
// runner's goroutine has returned; a closed Workers steps again on runners
// of its own, which the next Close ends too.
func TestWorkers_closeEndsTheWorkerGoroutines(t *testing.T) {
	w := newWorkersWorld(t, 4, 12)
	w.step(t, 0.1)
	if n := runnersAlive(w.w); n != 3 {
		t.Fatalf("%d runners after a step on 4 workers, want 3", n)
	}
	rs := runnersOf(w.w)
	w.w.Close()
	if len(rs) != 3 || !returned(rs) {
		t.Fatalf("Close returned before the goroutines of its %d runners did", len(rs))
	}
	// A closed Workers steps again, on runners of its own.
	w.step(t, 0.2)
	rs = runnersOf(w.w)
	if len(rs) != 3 || returned(rs) {
		t.Fatalf("after Close, a step started %d runners (returned: %v), want 3 running", len(rs), returned(rs))
	}
	w.w.Close()
	if !returned(rs) {
		t.Fatal("the second Close returned before the runners' goroutines did")
	}
}

// TestWorkers_runnersOfAWorkersLeftAloneEndByThemselves: runners with no
// round to run for their idle time end their goroutines by themselves.
func TestWorkers_runnersOfAWorkersLeftAloneEndByThemselves(t *testing.T) {
	w := newWorkersWorld(t, 3, 9)
	defer w.w.Close()
	w.w.Spin = time.Microsecond
	w.w.pool.idle = 10 * time.Millisecond
	w.step(t, 0.1)
	rs := runnersOf(w.w)
	if len(rs) != 2 {
		t.Fatalf("%d runners after a step on 3 workers, want 2", len(rs))
	}
	// Wait for them to end (a hang guard: they end 10 ms after the round).
	for deadline := time.Now().Add(time.Minute); !returned(rs); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d runners still run a minute after the last round", runnersAlive(w.w))
		}
	}
	if n := runnersAlive(w.w); n != 0 {
		t.Errorf("%d runners count as alive after their goroutines returned", n)
	}
}

// BenchmarkWorkers_round steps two agents, one per worker, whose action
// does nothing, with the calling goroutine busy for a while between the
// rounds (as a game's serial parts keep it: the end of a round, the
// world's tick, the trace); one op is one round, and ns/round is the time
// StepAt took: handing the round to the second worker and waiting for it.
// Compare spin=-1 (the second worker always sleeps between rounds, as a
// goroutine started per round does) with the default.
func BenchmarkWorkers_round(b *testing.B) {
	reg := NewRegistry()
	reg.RegisterAction("idle", ActionFunc(func(a *Agent, p Params) (Status, error) { return Running, nil }))
	tree, err := LoadBytes("idle.xml", []byte(`<behaviorTree><action id="i" name="idle"/></behaviorTree>`), LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	bound, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, spin := range []time.Duration{-1, 0} {
		for _, gap := range []time.Duration{0, 100 * time.Microsecond, time.Millisecond} {
			b.Run(fmt.Sprintf("spin=%v/gap=%v", spin, gap), func(b *testing.B) {
				w := NewWorkers(2)
				defer w.Close()
				w.Spin = spin
				w.Of = []int32{0, 1}
				all := []*Agent{bound.NewAgent("a0", &Env{}), bound.NewAgent("a1", &Env{})}
				var wait time.Duration
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					for start := time.Now(); time.Since(start) < gap; {
					}
					start := time.Now()
					if _, err := w.StepAt(all, float64(i+1)); err != nil {
						b.Fatal(err)
					}
					wait += time.Since(start)
				}
				b.ReportMetric(float64(wait.Nanoseconds())/float64(b.N), "ns/round")
			})
		}
	}
}
