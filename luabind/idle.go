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
// What a call pays for this is one atomic load of asleep after it marked
// itself running, a plain load on amd64; only the first call after an idle
// spell sends on the channel. Sleep and wake meet as a Dekker pair: the
// watchdog stores asleep and then loads the sequence number; a call adds to
// the sequence number and then loads asleep. Go's atomics are sequentially
// consistent, so at least one side sees the other's write: either the
// watchdog sees a call began and stays awake, or the call sees the
// watchdog asleep and wakes it. Whichever side clears asleep (a
// CompareAndSwap) decides: a call that cleared it sends one token, which
// the watchdog takes.
//
// Nothing is lost by not looking at the heap while idle: a walk asked for
// then would only run at the next call anyway, and the first tick after a
// wake sees the collections that ran meanwhile.
type idleWatch struct {
	asleep atomic.Bool
	wake   chan struct{} // capacity 1: the one token of a wake-up
	sleeps atomic.Uint64 // idle spells so far (tests count them)
}

// sleep stops tick and waits for a call to begin (the sequence number
// moved from idle, even) or for quit; it restarts tick with period and
// reports false when quit closed.
func (w *idleWatch) sleep(seq *atomic.Uint64, idle uint64, tick *time.Ticker, period time.Duration, quit <-chan struct{}) bool {
	w.asleep.Store(true)
	if seq.Load() != idle && w.asleep.CompareAndSwap(true, false) {
		return true // a call began and did not see asleep: stay awake
	}
	// Asleep, or a call cleared asleep and sends its token: take it.
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

// wakeUp wakes the watchdog: the call that clears asleep sends the token.
// It stays out of enterWithin, which it would make bigger for a rare path.
//
//go:noinline
func (w *idleWatch) wakeUp() {
	if w.asleep.CompareAndSwap(true, false) {
		w.wake <- struct{}{}
	}
}
