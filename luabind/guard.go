package luabind

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Bounded calls.
//
// gopher-lua has no instruction hook; the only way to stop a running
// script from outside is the context it checks before every instruction
// once LState.SetContext was called. That check is what costs. Measured
// with BenchmarkBounding_tightLoop (an empty numeric for loop of 10,000
// iterations, one instruction each; medians of 10 runs, GOMAXPROCS=1, on
// this project's 2-core machine, Go 1.26, gopher-lua v1.1.2): 228 µs with
// no context, 277 µs (+21%) with a context.WithCancel context as
// gopher-lua's README does it, 251 µs (+10%) with the engine's. A first
// version whose Done was an open channel in a plain field measured +7%
// where WithCancel measured +15% on a scratch copy of the same loop; the
// nil channel below was +5% there. So:
//
//   - the LState always carries one stopCtx, created once, never a
//     context with a deadline per call, which would cost a timer and
//     allocations per call. Its Done is nil until the watchdog stops a
//     call: a select on a nil channel is the cheapest check there is;
//   - a call costs two atomic increments of a sequence number (odd while a
//     call runs), about 6 ns on the same machine;
//   - a watchdog goroutine ticks ten times per timeout and stops the
//     context when it sees the same odd sequence number for nine busy ticks
//     in a row, so a runaway call is stopped after between 0.9 and 1.0
//     times the timeout (plus scheduling delay). Lua then raises an error at
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
// A call stuck inside a Go function (a huge string.rep) cannot be stopped
// before that function returns: the context is only checked between
// instructions.

// stopCtx is the context the LState checks before every instruction. Its
// Done is nil (a select on it falls through at once, the cheapest check)
// until the watchdog stops the call, then a closed channel. That bends
// context.Context's rule that Done always returns the same value; only the
// LState sees this context, and gopher-lua only selects on Done.
type stopCtx struct {
	done    atomic.Pointer[chan struct{}]
	timeout time.Duration
}

// closed is the channel Done returns once a call is stopped.
var closed = func() *chan struct{} {
	c := make(chan struct{})
	close(c)
	return &c
}()

func (c *stopCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *stopCtx) Value(any) any               { return nil }

func (c *stopCtx) Done() <-chan struct{} {
	if p := c.done.Load(); p != nil {
		return *p
	}
	return nil
}

// Err is what Lua raises at the instruction where the call is stopped; the
// VM prefixes it with the script position.
func (c *stopCtx) Err() error {
	if c.stopped() {
		return timeoutMsg{c.timeout}
	}
	return nil
}

func (c *stopCtx) stop()         { c.done.Store(closed) }
func (c *stopCtx) stopped() bool { return c.done.Load() != nil }
func (c *stopCtx) reset()        { c.done.Store(nil) }

type timeoutMsg struct{ d time.Duration }

func (m timeoutMsg) Error() string {
	return fmt.Sprintf("script ran longer than the call timeout (%v)", m.d)
}

var _ context.Context = (*stopCtx)(nil)

// guard bounds the calls into one LState.
type guard struct {
	L       *lua.LState
	timeout time.Duration // <= 0: unbounded
	seq     atomic.Uint64 // odd while an outermost call runs
	ctx     *stopCtx
	depth   int // nesting of calls; only the LState's goroutine touches it
	quit    chan struct{}
	wg      sync.WaitGroup
}

func (g *guard) start(L *lua.LState, timeout time.Duration) {
	g.L, g.timeout = L, timeout
	if timeout <= 0 {
		return
	}
	g.ctx = &stopCtx{timeout: timeout}
	L.SetContext(g.ctx)
	g.quit = make(chan struct{})
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

// watch is the watchdog goroutine.
func (g *guard) watch() {
	defer g.wg.Done()
	const ticksPerTimeout = 10
	tick := time.NewTicker(g.timeout / ticksPerTimeout)
	defer tick.Stop()
	period := g.timeout / ticksPerTimeout
	var last uint64
	same := 0
	cpu, _ := cpuTime()
	for {
		select {
		case <-g.quit:
			return
		case <-tick.C:
		}
		s := g.seq.Load()
		now, ok := cpuTime()
		busy := !ok || now-cpu >= period/2
		cpu = now
		if s&1 == 0 || s != last {
			last, same = s, 0
			continue
		}
		if !busy {
			continue
		}
		if same++; same == ticksPerTimeout-1 {
			// The call that was running at the first of these ticks is
			// still running: stop it. (If it ended in the nanoseconds
			// since the Load and another began, the new one is stopped
			// instead; that needs the old one to have run the whole
			// timeout, which is an error already.)
			g.ctx.stop()
			same = 0
		}
	}
}

// enter marks the start of a call into Lua.
func (g *guard) enter() {
	if g.depth == 0 && g.timeout > 0 {
		if g.ctx.stopped() {
			g.ctx.reset() // stopped just after the last call ended: not this call's
		}
		g.seq.Add(1)
	}
	g.depth++
}

// leave marks the end of a call and reports whether the watchdog stopped
// it; the LState then gets a fresh context for the next call.
func (g *guard) leave() (timedOut bool) {
	g.depth--
	if g.depth == 0 && g.timeout > 0 {
		g.seq.Add(1)
		if g.ctx.stopped() {
			g.ctx.reset()
			return true
		}
	}
	return false
}
