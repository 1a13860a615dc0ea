package host

import (
	"sync/atomic"
	"time"
)

// The watchdog's pace.
//
// An instance's watchdog has two jobs: cancel a call in flight that
// overran the call timeout, and notice that the process exited (go-plugin
// reaps it and only says so when asked: Client.Exited). The first needs a
// tick every 10 ms, but only while a call is in flight, and a run's host
// waits between its rounds most of the time (a shard for its conductor, a
// paused run, a conductor for its shards). So once a whole tick passed with
// no call in flight the watchdog slows to idleWatchTick, for the exit alone,
// and the next call's start (doOn) puts it back to the fast pace at once.
//
// doOn pays one atomic load for this; only the first call after an idle
// spell sends on the channel. As in luabind's idle watchdog, the two sides
// meet as a Dekker pair: the watchdog stores slow and then loads
// callStart; a call stores callStart and then loads slow (Go's atomics are
// sequentially consistent), so either the watchdog sees the call and stays
// fast, or the call sees the watchdog slow and wakes it. Whichever side
// clears slow decides: a call that cleared it sends the one token, which
// the watchdog's loop takes.
type watchPace struct {
	slow atomic.Bool
	wake chan struct{} // capacity 1
}

// idle slows tick to idleWatchTick unless a call began since the watchdog
// saw none in flight (callStart).
func (p *watchPace) idle(callStart *atomic.Int64, tick *time.Ticker) {
	p.slow.Store(true)
	if callStart.Load() != 0 && p.slow.CompareAndSwap(true, false) {
		return // a call began and did not see slow: stay fast
	}
	// Slow, or a call cleared slow and sent its token: the loop takes it
	// and goes back to the fast pace.
	tick.Reset(idleWatchTick)
}

// busy wakes a slow watchdog as a call begins (after callStart is set).
func (p *watchPace) busy() {
	if p.slow.Load() && p.slow.CompareAndSwap(true, false) {
		p.wake <- struct{}{}
	}
}
