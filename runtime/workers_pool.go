package runtime

import (
	"cmp"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The goroutines that run workers 1 .. n-1 of a round (worker 0 runs on
// the calling goroutine). They live from round to round instead of being
// started for each: a round is short (a step has one round per plugin
// round trip or gate take, so several), and on the machines this was
// measured on, a goroutine started on an idle core began about 0.24 ms
// after its start (the core had gone to sleep and had to be woken), which
// cost the example game 0.75 ms of its 13 ms step on two workers. So a
// runner that finishes its part keeps watching for the next round for a
// while (Workers.Spin), yielding its core to anything else that can run,
// and only then sleeps; one that has slept for a long time (runnerIdle)
// ends, and the next round starts it again, so a Workers that is dropped
// without Close leaves nothing running for long.

// runnerIdle is how long a sleeping runner waits for a round before its
// goroutine ends.
const runnerIdle = 2 * time.Second

// DefaultSpin is how long a worker watches for the next round, and the
// calling goroutine for the end of a round, before sleeping: long enough
// to cover the serial parts of a game's step (the end of a round, the
// world's tick, the trace), short enough that a game stepped at a fixed
// rate sleeps between its steps.
const DefaultSpin = 2 * time.Millisecond

// runner is the goroutine of one worker (1 .. n-1).
type runner struct {
	w    *Workers
	k    int
	idle time.Duration // runnerIdle, or shorter in tests
	spin atomic.Int64  // Workers.spin() as of the last post, in ns

	posted atomic.Uint64 // rounds posted to it
	// sleeping is set while the runner sleeps or has ended: whoever posts
	// a round must then wake (or start) it.
	sleeping atomic.Bool
	wake     chan struct{} // capacity 1

	mu     sync.Mutex    // guards ended and exited
	ended  bool          // its goroutine has returned (or is returning)
	exited chan struct{} // closed when the goroutine started last returns
	// quit: Close was called; the runner ends at its next wait.
	quit atomic.Bool
}

// post gives the runner its part of the current round.
func (r *runner) post() {
	r.spin.Store(int64(r.w.spin())) // Spin may change between steps
	r.posted.Add(1)
	if !r.sleeping.Load() {
		return // watching: it sees the round by itself
	}
	r.mu.Lock()
	if r.ended {
		r.ended = false
		r.exited = make(chan struct{})
		go r.loop(r.posted.Load()-1, r.exited)
	} else {
		select {
		case r.wake <- struct{}{}:
		default: // a wake is already waiting
		}
	}
	r.mu.Unlock()
}

// loop runs the rounds posted after the first seen rounds.
func (r *runner) loop(seen uint64, exited chan struct{}) {
	defer close(exited)
	r.sleeping.Store(false)
	idle := time.NewTimer(r.idle)
	defer idle.Stop()
	for {
		if !r.await(seen, idle) {
			return
		}
		seen++
		r.w.runPosted(r.k)
	}
}

// await waits until a round after seen is posted (true), or until the
// runner has slept runnerIdle or is closed (false: its goroutine ends).
func (r *runner) await(seen uint64, idle *time.Timer) bool {
	if spinUntil(time.Duration(r.spin.Load()), func() bool { return r.posted.Load() != seen || r.quit.Load() }) {
		if !r.quit.Load() {
			return true
		}
		r.mu.Lock()
		r.ended = true
		r.mu.Unlock()
		return false
	}
	r.sleeping.Store(true) // an ended runner stays "sleeping": post starts it again
	idle.Reset(r.idle)
	for r.posted.Load() == seen {
		select {
		case <-r.wake:
		case <-idle.C:
			r.mu.Lock()
			if r.posted.Load() == seen {
				r.ended = true
				r.mu.Unlock()
				return false
			}
			r.mu.Unlock()
		}
		if r.quit.Load() {
			r.mu.Lock()
			r.ended = true
			r.mu.Unlock()
			return false
		}
	}
	r.sleeping.Store(false)
	return true
}

// close ends the runner's goroutine and waits for it to return, so that
// nothing of the Workers is held once Close returns.
func (r *runner) close() {
	r.quit.Store(true)
	select {
	case r.wake <- struct{}{}:
	default:
	}
	r.mu.Lock()
	running, exited := !r.ended, r.exited
	r.mu.Unlock()
	if running {
		<-exited
	}
}

// spinUntil calls done until it is true (true) or d has passed (false),
// giving the core away between calls to whatever else can run on it.
func spinUntil(d time.Duration, done func() bool) bool {
	if done() {
		return true
	}
	if d <= 0 {
		return false
	}
	start := time.Now()
	for i := 1; ; i++ {
		if done() {
			return true
		}
		if i%64 == 0 {
			if time.Since(start) > d {
				return done()
			}
			goruntime.Gosched()
			yieldCore()
		}
	}
}

// pool is the part of Workers that runs rounds on the runners.
type pool struct {
	runners []*runner
	pending atomic.Int32 // runners still busy with the round
	// callerSleeping: the calling goroutine sleeps on finished until
	// pending is 0.
	callerSleeping atomic.Bool
	finished       chan struct{} // capacity 1
	idle           time.Duration // 0: runnerIdle (tests shorten it)
}

// startRunners makes the runners of workers 1 .. n-1, on first use.
func (w *Workers) startRunners() {
	if w.pool.runners != nil || w.n < 2 {
		return
	}
	w.pool.finished = make(chan struct{}, 1)
	w.pool.runners = make([]*runner, w.n)
	for k := 1; k < w.n; k++ {
		r := &runner{w: w, k: k, idle: cmp.Or(w.pool.idle, runnerIdle), wake: make(chan struct{}, 1), ended: true}
		r.sleeping.Store(true)
		w.pool.runners[k] = r
	}
}

// spin is how long to watch before sleeping.
func (w *Workers) spin() time.Duration {
	if w.Spin < 0 {
		return 0
	}
	if w.Spin == 0 {
		return DefaultSpin
	}
	return w.Spin
}

// runPosted runs worker k's part of the posted round and says it is done.
func (w *Workers) runPosted(k int) {
	w.runLane(k, w.cur.agents, w.cur.out, w.cur.t, w.cur.resume)
	if w.pool.pending.Add(-1) == 0 && w.pool.callerSleeping.Load() {
		select {
		case w.pool.finished <- struct{}{}:
		default:
		}
	}
}

// roundOnRunners runs a round: worker 0's part on the calling goroutine,
// the others' on their runners, and waits for all of them.
func (w *Workers) roundOnRunners() {
	w.startRunners()
	p := &w.pool
	var posted int32
	for k := 1; k < w.n; k++ {
		if len(w.lanes[k].run) > 0 {
			posted++
		}
	}
	p.pending.Store(posted)
	for k := 1; k < w.n; k++ {
		if len(w.lanes[k].run) > 0 {
			p.runners[k].post()
		}
	}
	if len(w.lanes[0].run) > 0 {
		w.runLane(0, w.cur.agents, w.cur.out, w.cur.t, w.cur.resume)
	}
	if spinUntil(w.spin(), func() bool { return p.pending.Load() == 0 }) {
		return
	}
	p.callerSleeping.Store(true)
	for p.pending.Load() != 0 {
		<-p.finished
	}
	p.callerSleeping.Store(false)
}

// Close ends the goroutines that run the workers between rounds, and
// returns once they have (they also end by themselves after a while
// without rounds). Call it between steps, not during one. A Workers may
// still step after Close: it starts them again.
func (w *Workers) Close() {
	for _, r := range w.pool.runners {
		if r != nil {
			r.close()
		}
	}
	w.pool.runners = nil
}
