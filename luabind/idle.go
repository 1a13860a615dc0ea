package luabind

import (
	"sync/atomic"
	"time"
)

// The watchdog asleep while no call runs.
//
// An engine waits most of its life between steps: a shard for its
// conductor, a conductor for its shards, a run between two frames of the
// live view. A watchdog that ticked all along read the Go heap's size every
// 10 ms (runtime/metrics) and woke the scheduler as often, for nothing:
// under valgrind that was most of an idle process's instructions. So when
// a whole tick passes with no call begun or ended (the sequence number
// even and unchanged), the watchdog stops its ticker and sleeps on a
// channel; the next outermost call wakes it (enterWithin) and the ticks
// start again from there, so the call is timed as before (its first tick
// one period after the wake).
//
// A call pays nothing for this: it already compares the budget in the
// stop flag's context with its own after it marked itself running (budget
// rarely changes, so it loads and does not store), and a watchdog going to
// sleep puts asleepBudget there. The call that finds it there swaps its
// own budget in and sends the one token that wakes the watchdog. Sleep and
// wake meet as a Dekker pair: the watchdog swaps asleepBudget in and then
// loads the sequence number; a call adds to the sequence number and then
// loads the budget. Go's atomics are sequentially consistent, so at least
// one side sees the other's write: either the watchdog sees a call began
// and puts the budget back, or the call sees asleepBudget and wakes the
// watchdog. Whichever side takes asleepBudget out (a swap) decides: a call
// that took it out sends the token, which the watchdog takes.
//
// Nothing is lost by not looking at the heap while idle: a walk asked for
// then would only run at the next call anyway, and the first tick after a
// wake sees the collections that ran meanwhile.
type idleWatch struct {
	wake   chan struct{} // capacity 1: the one token of a wake-up
	sleeps atomic.Uint64 // idle spells so far (tests count them)
}

// asleepBudget is in the stop flag's context while the watchdog sleeps; no
// call runs within it (were one stopped under it, its error would still
// name the call timeout).
var asleepBudget = &budget{name: "the call timeout"}

// sleep puts asleepBudget in cur, stops tick and waits for a call to begin
// (the sequence number moved from idle, even) or for quit; it restarts
// tick with period and reports false when quit closed.
func (w *idleWatch) sleep(seq *atomic.Uint64, idle uint64, cur *atomic.Pointer[budget], tick *time.Ticker, period time.Duration, quit <-chan struct{}) bool {
	prev := cur.Load()
	if !cur.CompareAndSwap(prev, asleepBudget) {
		return true // a call began and set its budget: stay awake
	}
	if seq.Load() != idle && cur.CompareAndSwap(asleepBudget, prev) {
		return true // a call began and did not see asleepBudget: stay awake
	}
	// Asleep, or a call took asleepBudget out and sends its token: take it.
	tick.Stop()
	w.sleeps.Add(1)
	select {
	case <-quit:
		return false
	case <-w.wake:
	}
	tick.Reset(period)
	return true
}

// setBudget puts b in cur for the call beginning, and wakes the watchdog
// when it was asleep. It stays out of enterWithin: a rare path.
func (w *idleWatch) setBudget(cur *atomic.Pointer[budget], b *budget) {
	if cur.Swap(b) == asleepBudget {
		w.wake <- struct{}{}
	}
}
