package luabind

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// TestGuard_runawayScriptStopsAtItsPositionAndStateStaysUsable: a call
// that never ends is stopped (when is the watchdog's decision, tested
// tick by tick in TestGuard_overrun...), with an error at its position,
// and the state goes on.
func TestGuard_runawayScriptStopsAtItsPositionAndStateStaysUsable(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.CallTimeout = 50 * time.Millisecond })
	err := f.e.DoString("spin.lua", "local n = 0\nwhile true do\n  n = n + 1\nend\n")
	if err == nil {
		t.Fatal("runaway script returned no error")
	}
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, ErrScript) {
		t.Errorf("error %v does not wrap ErrTimeout and ErrScript", err)
	}
	var se *ScriptError
	if !errors.As(err, &se) || se.File != "spin.lua" || se.Line < 2 || se.Line > 4 {
		t.Errorf("error %q, want it in the loop, spin.lua:2-4", err)
	}
	wantContains(t, err.Error(), "script ran longer than the call timeout (50ms)")
	for i := 0; i < 3; i++ {
		f.do(`local s = 0; for i = 1, 1000 do s = s + i end; assert(s == 500500)`)
	}
}

func TestGuard_pcallCannotSwallowTheTimeout(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.CallTimeout = 30 * time.Millisecond })
	err := f.e.DoString("p.lua", "while true do\n  pcall(function() while true do end end)\nend\n")
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want a timeout", err)
	}
	f.do(`x = 1`)
}

// TestGuard_shortCallsAreNotStopped: many short calls in a row under a
// watchdog that ticks every 2 ms are never stopped (each is a new call).
func TestGuard_shortCallsAreNotStopped(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.CallTimeout = 20 * time.Millisecond })
	for range 5000 {
		f.do(`local s = 0; for i = 1, 100 do s = s + i end`)
	}
}

// TestGuard_overrunStopsTheSameBusyCallAfterNinetyPercent: the watchdog
// stops a call seen at stopAfter busy ticks in a row, that is after 0.9 to
// 1.0 times the timeout of its running; ticks at which the process did not
// run (a loaded machine), or at which another call or none runs, do not
// count towards it.
func TestGuard_overrunStopsTheSameBusyCallAfterNinetyPercent(t *testing.T) {
	plan := planWatch(50 * time.Millisecond) // a tick every 5 ms, stop after 9
	busy, idle := plan.period, plan.period/4
	type tick struct {
		seq uint64
		cpu time.Duration // CPU time used since the last tick
	}
	run := func(ticks []tick) int {
		o := overrun{plan: plan}
		for i, tk := range ticks {
			o.cpu -= tk.cpu // the process's CPU time goes on by tk.cpu
			if o.tick(tk.seq, 0, true) {
				return i
			}
			o.cpu = 0
		}
		return -1
	}
	repeat := func(n int, tk tick) []tick { return slices.Repeat([]tick{tk}, n) }
	if plan.stopAfter != 9 || time.Duration(plan.stopAfter)*plan.period < 45*time.Millisecond {
		t.Fatalf("plan %+v", plan)
	}
	// Call 1 seen first at tick 0, then busy for 9 ticks: stopped at the
	// ninth, 45 ms after it was first seen.
	if got := run(repeat(10, tick{1, busy})); got != 9 {
		t.Errorf("a busy call was stopped at tick %d, want 9", got)
	}
	// Ticks at which the process did not run do not count.
	ticks := append(repeat(5, tick{3, busy}), repeat(20, tick{3, idle})...)
	if got := run(ticks); got != -1 {
		t.Errorf("a call whose thread did not run was stopped at tick %d", got)
	}
	if got := run(append(ticks, repeat(5, tick{3, busy})...)); got != 29 {
		t.Errorf("stopped at tick %d, want 29 (the ninth busy tick after the first sight)", got)
	}
	// A new call, or none, starts the count again.
	ticks = append(append(repeat(8, tick{5, busy}), tick{7, busy}), repeat(8, tick{7, busy})...)
	if got := run(ticks); got != -1 {
		t.Errorf("calls of 8 ticks each were stopped at tick %d", got)
	}
	ticks = append(append(repeat(8, tick{5, busy}), tick{6, busy}), repeat(8, tick{5, busy})...)
	if got := run(ticks); got != -1 {
		t.Errorf("a call's count went on after no call ran: stopped at tick %d", got)
	}
	// Without the CPU time (an OS that does not tell), every tick is busy.
	o := overrun{plan: plan}
	for i := range 10 {
		if o.tick(9, 0, false) != (i == 9) {
			t.Errorf("without CPU time: tick %d", i)
		}
	}
	// The same call goes on being stopped every stopAfter ticks.
	if got := run(repeat(30, tick{11, busy})); got != 9 {
		t.Errorf("stopped at tick %d", got)
	}
}

func TestGuard_negativeTimeoutLeavesCallsUnbounded(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.CallTimeout = -1 })
	// The context stays (the memory budget needs it), but the watchdog
	// never stops a call for its time: this loop outlasts many of its ticks.
	f.do(`local s = 0; for i = 1, 3000000 do s = s + i end`)
}

// TestGuard_anyTimeoutTicks: a call timeout of a nanosecond (anything under
// ten would ask for a ticker of period zero, which panics) makes a
// watchdog that ticks at its shortest period and stops runaway calls.
func TestGuard_anyTimeoutTicks(t *testing.T) {
	for _, d := range []time.Duration{time.Nanosecond, 9 * time.Nanosecond, time.Microsecond} {
		f := newFixture(t, nil, func(o *Options) { o.CallTimeout = d })
		err := f.e.DoString("spin.lua", "while true do end")
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("timeout %v: got %v, want a timeout", d, err)
		}
	}
}

func TestGuard_runawayAtLoadIsALoadError(t *testing.T) {
	f := newFixtureNoLoad(t, map[string]string{"a.lua": "x = 1\nrepeat until false\n"}, func(o *Options) { o.CallTimeout = 30 * time.Millisecond })
	err := f.e.Load()
	if err == nil || !strings.HasPrefix(err.Error(), "a.lua:2: script ran longer than the call timeout") {
		t.Errorf("got %v", err)
	}
}

// BenchmarkBounding_tightLoop measures what checking a context before every
// instruction costs: the same empty loop (10,000 iterations) on a bare
// LState, on one with a context.WithCancel context (gopher-lua's README
// way), and on the engine's (the stop flag of the gopher-lua patch
// "interrupt", plus the watchdog's two atomic increments per call).
//
//	go test ./luabind -run '^$' -bench Bounding -count 10
func BenchmarkBounding_tightLoop(b *testing.B) {
	const loop = `function spin() for i = 1, 10000 do end end`
	bare := func(ctx context.Context) *lua.LState {
		L := lua.NewState()
		b.Cleanup(L.Close)
		if ctx != nil {
			L.SetContext(ctx)
		}
		if err := L.DoString(loop); err != nil {
			b.Fatal(err)
		}
		return L
	}
	run := func(b *testing.B, L *lua.LState, call func() error) {
		fn := L.GetGlobal("spin")
		if call == nil {
			call = func() error { return L.CallByParam(lua.P{Fn: fn, Protect: true}) }
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := call(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("none", func(b *testing.B) { run(b, bare(nil), nil) })
	b.Run("contextWithCancel", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		run(b, bare(ctx), nil)
	})
	b.Run("engine", func(b *testing.B) {
		e, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		if err := e.DoString("spin", loop); err != nil {
			b.Fatal(err)
		}
		fn := e.L.GetGlobal("spin").(*lua.LFunction)
		run(b, e.L, func() error { _, err := e.call(fn, 0); return err })
	})
}

func TestGuard_watchPlanKeepsTimeoutAndHeapLooks(t *testing.T) {
	for _, c := range []struct {
		timeout               time.Duration
		period                time.Duration
		stopAfter, memoryEach int
	}{
		{100 * time.Millisecond, 10 * time.Millisecond, 9, 1},
		{30 * time.Second, 10 * time.Millisecond, 2700, 1},
		{time.Millisecond, 100 * time.Microsecond, 9, 100},
		{time.Nanosecond, 100 * time.Microsecond, 1, 100},
		{-1, 10 * time.Millisecond, 0, 1},
	} {
		p := planWatch(c.timeout)
		if p.period != c.period || p.stopAfter != c.stopAfter || p.memoryEvery != c.memoryEach {
			t.Errorf("timeout %v: %+v, want period %v, stop after %d ticks, heap every %d", c.timeout, p, c.period, c.stopAfter, c.memoryEach)
		}
	}
}
