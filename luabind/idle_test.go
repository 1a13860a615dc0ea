package luabind

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// waitAsleep waits until the engine's watchdog has gone to sleep more than
// n times (it does after a tick with no call), a hang guard bounding it.
func waitAsleep(t *testing.T, f *fixture, n uint64) {
	t.Helper()
	within(t, time.Minute, func() {
		for f.e.guard.idle.sleeps.Load() <= n || f.e.guard.ctx.budget.Load() != asleepBudget {
			time.Sleep(time.Millisecond)
		}
	})
}

// TestIdle_watchdogSleepsAndTheNextCallIsGuarded: an engine with no call
// running puts its watchdog to sleep (no tick, no look at the heap); a
// runaway call after that wakes it and is stopped with the timeout's error,
// and the watchdog sleeps again once calls stop, as often as that happens.
func TestIdle_watchdogSleepsAndTheNextCallIsGuarded(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.CallTimeout = 30 * time.Millisecond })
	for round := range uint64(3) {
		waitAsleep(t, f, round)
		within(t, time.Minute, func() {
			err := f.e.DoString("spin.lua", "local n = 0\nwhile true do\n  n = n + 1\nend\n")
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("round %d: got %v, want a timeout", round, err)
			}
		})
		f.do(`x = 1`)
	}
}

// TestIdle_memoryGrowthAfterSleepIsStopped: the heap's look, which stops a
// call growing tables without strings, runs again once a call wakes the
// watchdog.
func TestIdle_memoryGrowthAfterSleepIsStopped(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) {
		o.MemoryLimit = 8 << 20
		o.CallTimeout = 2 * time.Minute // a hang guard: this case is about memory
	})
	waitAsleep(t, f, 0)
	within(t, 2*time.Minute, func() {
		err := f.e.DoString("grow.lua", "local t = {}\nwhile true do\n  t[#t + 1] = {#t, #t * 2}\nend\n")
		if !errors.Is(err, ErrMemory) {
			t.Fatalf("got %v, want a memory error", err)
		}
	})
}

// TestIdle_sleepMeetsTheCallThatWakes: the watchdog's sleep and a call's
// start, side by side: a call that began before the watchdog put
// asleepBudget in keeps it awake, with the budget it was; one that finds
// asleepBudget wakes it with one token, which the watchdog takes; Close
// ends a sleep.
func TestIdle_sleepMeetsTheCallThatWakes(t *testing.T) {
	newWatch := func() (*idleWatch, *time.Ticker) {
		tick := time.NewTicker(time.Hour)
		t.Cleanup(tick.Stop)
		return &idleWatch{wake: make(chan struct{}, 1)}, tick
	}
	var seq atomic.Uint64
	var cur atomic.Pointer[budget]
	call := newBudget(time.Second, time.Millisecond, "the call timeout")
	quit := make(chan struct{})

	// A call began since the idle tick (seq moved) and found no one asleep.
	w, tick := newWatch()
	seq.Store(3)
	cur.Store(call)
	if !w.sleep(&seq, 2, &cur, tick, time.Hour, quit) || w.sleeps.Load() != 0 || cur.Load() != call {
		t.Errorf("a call had begun: slept %d times, budget %+v", w.sleeps.Load(), cur.Load())
	}

	// A call finds the watchdog asleep and wakes it: the call's token is
	// taken, none is left over, and the call's budget is in place.
	w, tick = newWatch()
	seq.Store(2)
	woke := make(chan bool)
	go func() { woke <- w.sleep(&seq, 2, &cur, tick, time.Hour, quit) }()
	for cur.Load() != asleepBudget {
		time.Sleep(time.Millisecond)
	}
	seq.Add(1)
	w.setBudget(&cur, call)
	within(t, time.Minute, func() {
		if !<-woke {
			t.Error("sleep reported quit")
		}
	})
	if len(w.wake) != 0 || cur.Load() != call || w.sleeps.Load() != 1 {
		t.Errorf("after the wake: %d tokens left, budget %+v, %d sleeps", len(w.wake), cur.Load(), w.sleeps.Load())
	}

	// A call that changes the budget while the watchdog is awake sends
	// nothing.
	other := newBudget(time.Minute, time.Millisecond, "the world's tick timeout")
	w.setBudget(&cur, other)
	if len(w.wake) != 0 || cur.Load() != other {
		t.Errorf("a budget changed with the watchdog awake: %d tokens, budget %+v", len(w.wake), cur.Load())
	}

	// Close while asleep.
	w, tick = newWatch()
	close(quit)
	within(t, time.Minute, func() {
		if w.sleep(&seq, seq.Load(), &cur, tick, time.Hour, quit) {
			t.Error("sleep ignored quit")
		}
	})
}
