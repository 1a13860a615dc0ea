package luabind

import (
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Bounded calls.
//
// gopher-lua has no instruction hook. Upstream, the only way to stop a
// running script from outside is the context it checks, with a select on
// its Done channel, before every instruction once LState.SetContext was
// called; that check cost about a tenth of the example game's Lua time
// (callgrind: ~1,800 of ~19,300 instructions per agent-step). The engine
// uses instead the stop flag of this repository's gopher-lua patch
// "interrupt" (third_party/PATCHES.md): lua.Interrupt, one atomic pointer
// load per instruction, a plain load on amd64. So:
//
//   - the LState always carries one stopCtx, created once; nothing is
//     made per call (no deadline, no timer);
//   - a call costs two atomic increments of a sequence number (odd while a
//     call runs), about 6 ns on the project's machine;
//   - a watchdog goroutine ticks ten times per timeout (at least every
//     10 ms, for the memory budget's look at the heap; planWatch) while
//     calls run, and sleeps when a whole tick passed with none (idle.go:
//     an idle engine costs nothing; the next call wakes it), and stops
//     the call when it sees the same odd sequence number for 0.9 times
//     the timeout of busy ticks in a row, so a runaway call is stopped after
//     between 0.9 and 1.0 times the timeout (plus scheduling delay). Lua then raises an error at
//     the position of the instruction it was about to run, the protected
//     call unwinds, and the LState stays usable.
//   - a tick counts as busy only if the process used at least half a tick
//     of CPU time since the last one (where the OS tells, cputime.go). A
//     runaway loop keeps a core busy; a short call whose thread the OS did
//     not run for a while (a loaded machine; this happened in this
//     project's benchmarks with a load average of 8 on 2 cores) does not,
//     and must not fail: a false timeout would make a run's trace depend on
//     the machine's load.
//
// A call inside a Go function cannot be stopped before that function
// returns: the flag is only checked between instructions. So the Go
// functions scripts reach do bounded work: the pattern matcher asks the
// guard every few thousand steps (interrupted, pattern.go), and string
// building refuses results beyond the string limit and asks the guard too
// (stringlib.go, concat.go).
//
// The watchdog runs even when calls are not bounded in time: it also
// watches the heap for the memory budget (memory.go).

// stopCtx is the stop flag the LState checks before every instruction,
// with why the call was stopped.
type stopCtx struct {
	in     lua.Interrupt
	reason atomic.Int32           // why the call was stopped: stopTimeout or stopMemory
	budget atomic.Pointer[budget] // the time budget of the outermost call (budget.go)
	mem    *memoryBudget
}

// Why a call was stopped.
const (
	stopNone int32 = iota
	stopTimeout
	stopMemory
)

// Err is what Lua raises at the instruction where the call is stopped (the
// VM prefixes it with the script position), nil while the call runs on.
func (c *stopCtx) Err() error {
	if !c.stopped() {
		return nil
	}
	return c.reasonErr(c.reason.Load())
}

func (c *stopCtx) reasonErr(reason int32) error {
	if reason == stopMemory {
		return c.mem.errorMsg()
	}
	b := c.budget.Load()
	return timeoutMsg{b.timeout, b.name}
}

// stop stops the call running (from any goroutine). The message Lua raises
// is made now: the VM finds it with the flag.
func (c *stopCtx) stop(reason int32) {
	c.reason.Store(reason)
	c.in.Stop(c.reasonErr(reason).Error())
}

func (c *stopCtx) stopped() bool { return c.in.Stopped() }
func (c *stopCtx) reset()        { c.in.Reset() }

// guard bounds the calls into one LState: their time (the call timeout)
// and the state's memory (the budget, memory.go).
type guard struct {
	L       *lua.LState
	timeout time.Duration // <= 0: unbounded
	call    *budget       // the timeout's budget, every call's but the world's (budget.go)
	seq     atomic.Uint64 // odd while an outermost call runs
	idle    idleWatch     // the watchdog asleep while no call runs (idle.go)
	ctx     *stopCtx
	mem     memoryBudget
	depth   int // nesting of calls; only the LState's goroutine touches it
	quit    chan struct{}
	wg      sync.WaitGroup
}

// Tick periods of the watchdog: ten ticks per call timeout, but never
// faster than minTick (a timeout of a few nanoseconds would otherwise ask
// for a ticker of zero, which panics) nor slower than memoryTick, the
// memory budget's look at the heap.
const (
	ticksPerTimeout = 10
	minTick         = 100 * time.Microsecond
	memoryTick      = 10 * time.Millisecond
)

func (g *guard) start(e *Engine, timeout time.Duration, memory int64) {
	g.L, g.timeout = e.L, timeout
	g.mem = memoryBudget{e: e, limit: memory}
	live, _ := liveHeap()
	g.mem.baseline.Store(live)
	g.call = newBudget(timeout, planWatch(timeout).period, "the call timeout")
	g.ctx = &stopCtx{mem: &g.mem}
	g.ctx.budget.Store(g.call)
	g.L.SetInterrupt(&g.ctx.in)
	g.quit = make(chan struct{})
	g.idle.wake = make(chan struct{}, 1)
	g.wg.Add(1)
	go g.watch()
}

func (g *guard) close() {
	if g.quit != nil {
		close(g.quit)
		g.wg.Wait()
		g.quit = nil
	}
}

// watchPlan is how the watchdog ticks: one ticker for both of its jobs
// (each wake-up of an idle goroutine costs the scheduler some work, so the
// memory budget adds none where calls are bounded, as they are by default).
type watchPlan struct {
	period      time.Duration // between ticks
	stopAfter   int           // busy ticks of one call before it is stopped; 0: never
	memoryEvery int           // ticks between two looks at the heap
}

func planWatch(timeout time.Duration) watchPlan {
	p := watchPlan{period: memoryTick, memoryEvery: 1}
	if timeout > 0 {
		p.period = min(max(timeout/ticksPerTimeout, minTick), memoryTick)
		// The call that was running at the first of these ticks is stopped
		// after between 0.9 and 1.0 times the timeout.
		p.stopAfter = busyTicks(timeout, p.period)
		p.memoryEvery = max(1, int(memoryTick/p.period))
	}
	return p
}

// watch is the watchdog goroutine.
func (g *guard) watch() {
	defer g.wg.Done()
	plan := planWatch(g.timeout)
	tick := time.NewTicker(plan.period)
	defer tick.Stop()
	ticks := 0
	o := overrun{plan: plan}
	o.cpu, _ = cpuTime()
	_, cycles := liveHeap()
	last := g.seq.Load()
	for {
		select {
		case <-g.quit:
			return
		case <-tick.C:
		}
		s := g.seq.Load()
		if s == last && s&1 == 0 {
			// No call ran since the last tick: nothing to guard, and the
			// heap can only grow by the Go code around the calls.
			if !g.idle.sleep(&g.seq, s, &g.ctx.budget, tick, plan.period, g.quit) {
				return
			}
			continue
		}
		last = s
		if ticks++; ticks%plan.memoryEvery == 0 {
			if live, c := liveHeap(); c != cycles {
				cycles = c
				g.mem.afterCollection(live, s&1 == 1, g.ctx)
			}
		}
		// The budget of the call running (the call timeout's, or the
		// world's init or tick's: budget.go).
		if o.plan.stopAfter = g.ctx.budget.Load().stopAfter; o.plan.stopAfter == 0 {
			continue
		}
		if now, ok := cpuTime(); o.tick(s, now, ok) {
			// The call that was running at the first of these ticks is
			// still running: stop it. (If it ended in the nanoseconds
			// since the Load and another began, the new one is stopped
			// instead; that needs the old one to have run the whole
			// timeout, which is an error already.)
			g.ctx.stop(stopTimeout)
		}
	}
}

// overrun is the watchdog's decision, tick by tick, that a call has run
// too long: the same call (an odd sequence number) seen at plan.stopAfter
// busy ticks in a row. It reads no clock: the watchdog gives it the
// sequence number and the process's CPU time at each tick.
type overrun struct {
	plan watchPlan
	last uint64        // the sequence number at the last tick
	same int           // busy ticks in a row of the call last seen
	cpu  time.Duration // the process's CPU time at the last tick
}

// tick takes the sequence number and the process's CPU time (ok: known)
// at a tick and reports whether the call running must be stopped.
func (o *overrun) tick(seq uint64, cpu time.Duration, ok bool) bool {
	busy := !ok || cpu-o.cpu >= o.plan.period/2
	o.cpu = cpu
	if seq&1 == 0 || seq != o.last {
		o.last, o.same = seq, 0
		return false
	}
	if !busy {
		return false
	}
	if o.same++; o.same == o.plan.stopAfter {
		o.same = 0
		return true
	}
	return false
}

// enter marks the start of a call into Lua, bounded by the call timeout.
func (g *guard) enter() { g.enterWithin(g.call) }

// enterWithin marks the start of a call bounded by b (a nested call runs
// within its outermost call's budget).
func (g *guard) enterWithin(b *budget) {
	if g.depth == 0 {
		if g.ctx.stopped() {
			g.ctx.reset() // stopped just after the last call ended: not this call's
		}
		if g.mem.pending.Load() && g.mem.walk() {
			g.ctx.stop(stopMemory) // over its budget: stopped at its first instruction
		}
		g.seq.Add(1)
		// After the sequence number moved: a watchdog asleep has put
		// asleepBudget here, and this is how the call sees it (idle.go).
		if g.ctx.budget.Load() != b { // a load costs less than a store, and the budget rarely changes
			g.idle.setBudget(&g.ctx.budget, b)
		}
	}
	g.depth++
}

// leave marks the end of a call and reports whether the call was stopped
// and why (stopNone, stopTimeout, stopMemory); the flag is then cleared for
// the next call.
func (g *guard) leave() int32 {
	g.depth--
	if g.depth == 0 {
		g.seq.Add(1)
		if g.ctx.stopped() {
			g.ctx.reset()
			reason := g.ctx.reason.Load()
			if reason == stopMemory {
				// What the call held in its locals is garbage now: measure
				// again before the next call.
				g.mem.pending.Store(true)
			}
			return reason
		}
	}
	return stopNone
}

// interrupted reports, for Go code inside a call that runs long (the
// pattern matcher) or builds strings, whether the call has been stopped,
// doing a requested measurement first (it runs on the state's goroutine);
// it returns the error the call ends with.
func (g *guard) interrupted() error {
	if g.mem.pending.Load() && g.mem.walk() {
		g.ctx.stop(stopMemory)
	}
	if g.ctx.stopped() {
		return g.ctx.Err()
	}
	return nil
}
