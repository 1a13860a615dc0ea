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
// once LState.SetContext was called. That check is what costs: measured on
// this project's 2-core machine (Go 1.26, gopher-lua v1.1.2), an empty
// numeric for loop runs 13% slower with a context.WithCancel context, and
// 6% slower with stopCtx below, whose Done is a plain field read instead of
// an atomic load; a mixed arithmetic loop 16% and 12%. So:
//
//   - the LState always carries one stopCtx (created once, replaced only
//     after it stopped a call), never a context with a deadline per call,
//     which would cost a timer and allocations per call;
//   - a call costs two atomic increments of a sequence number (odd while a
//     call runs), about 6 ns on the same machine;
//   - a watchdog goroutine ticks ten times per timeout and closes the
//     context when it sees the same odd sequence number for nine ticks in a
//     row, so a runaway call is stopped after between 0.9 and 1.0 times the
//     timeout (plus scheduling delay). Lua then raises an error at the
//     position of the instruction it was about to run, the protected call
//     unwinds, and the LState stays usable.
//
// A call stuck inside a Go function (a huge string.rep) cannot be stopped
// before that function returns: the context is only checked between
// instructions.

// stopCtx is the context the LState checks before every instruction. Done
// is a plain field read: the channel never changes after creation, and
// closing it is the only signal.
type stopCtx struct {
	done    chan struct{}
	once    sync.Once
	timeout time.Duration
}

func newStopCtx(timeout time.Duration) *stopCtx {
	return &stopCtx{done: make(chan struct{}), timeout: timeout}
}

func (c *stopCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *stopCtx) Done() <-chan struct{}       { return c.done }
func (c *stopCtx) Value(any) any               { return nil }

// Err is what Lua raises at the instruction where the call is stopped; the
// VM prefixes it with the script position.
func (c *stopCtx) Err() error {
	if c.stopped() {
		return timeoutMsg{c.timeout}
	}
	return nil
}

func (c *stopCtx) stop() { c.once.Do(func() { close(c.done) }) }

func (c *stopCtx) stopped() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

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
	cur     atomic.Pointer[stopCtx]
	depth   int // nesting of calls; only the LState's goroutine touches it
	quit    chan struct{}
	wg      sync.WaitGroup
}

func (g *guard) start(L *lua.LState, timeout time.Duration) {
	g.L, g.timeout = L, timeout
	if timeout <= 0 {
		return
	}
	c := newStopCtx(timeout)
	g.cur.Store(c)
	L.SetContext(c)
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
	var last uint64
	same := 0
	for {
		select {
		case <-g.quit:
			return
		case <-tick.C:
		}
		s := g.seq.Load()
		if s&1 == 0 || s != last {
			last, same = s, 0
			continue
		}
		if same++; same == ticksPerTimeout-1 {
			// The call that was running at the first of these ticks is
			// still running: stop it. (If it ended in the nanoseconds
			// since the Load and another began, the new one is stopped
			// instead; that needs the old one to have run the whole
			// timeout, which is an error already.)
			g.cur.Load().stop()
			same = 0
		}
	}
}

// enter marks the start of a call into Lua.
func (g *guard) enter() {
	if g.depth == 0 && g.timeout > 0 {
		if g.cur.Load().stopped() {
			g.renew()
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
		if g.cur.Load().stopped() {
			g.renew()
			return true
		}
	}
	return false
}

func (g *guard) renew() {
	c := newStopCtx(g.timeout)
	g.cur.Store(c)
	g.L.SetContext(c)
}
