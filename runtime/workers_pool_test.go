package runtime

import (
	"fmt"
	goruntime "runtime"
	"testing"
	"time"
)

// settledGoroutines is the number of goroutines once it has not changed
// for 50 ms (runners of earlier tests end in their own time).
func settledGoroutines() int {
	n, since := goruntime.NumGoroutine(), time.Now()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		if m := goruntime.NumGoroutine(); m != n {
			n, since = m, time.Now()
		} else if time.Since(since) > 50*time.Millisecond {
			break
		}
	}
	return n
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

// goroutinesBackTo waits up to a few seconds for the number of goroutines
// to fall to want or below, and reports how many there are.
func goroutinesBackTo(want int) int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := goruntime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(5 * time.Millisecond)
	}
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

func TestWorkers_closeEndsTheWorkerGoroutines(t *testing.T) {
	before := settledGoroutines()
	w := newWorkersWorld(t, 4, 12)
	w.step(t, 0.1)
	if n := runnersAlive(w.w); n != 3 {
		t.Fatalf("%d runners after a step on 4 workers, want 3", n)
	}
	w.w.Close()
	if n := goroutinesBackTo(before); n > before {
		t.Fatalf("%d goroutines after Close, want %d", n, before)
	}
	// A closed Workers steps again, on runners of its own.
	w.step(t, 0.2)
	w.w.Close()
	if n := goroutinesBackTo(before); n > before {
		t.Fatalf("%d goroutines after the second Close, want %d", n, before)
	}
}

func TestWorkers_runnersOfAWorkersLeftAloneEndByThemselves(t *testing.T) {
	before := settledGoroutines()
	w := newWorkersWorld(t, 3, 9)
	w.w.Spin = time.Microsecond
	w.w.pool.idle = 10 * time.Millisecond
	w.step(t, 0.1)
	if n := goroutinesBackTo(before); n > before {
		t.Fatalf("%d goroutines a while after the last round, want %d", n, before)
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
