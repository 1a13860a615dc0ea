package luabind

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

func TestGuard_runawayScriptStopsAtItsPositionAndStateStaysUsable(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.CallTimeout = 50 * time.Millisecond })
	start := time.Now()
	err := f.e.DoString("spin.lua", "local n = 0\nwhile true do\n  n = n + 1\nend\n")
	took := time.Since(start)
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
	// The watchdog stops a call after 0.9 to 1.0 times the timeout. The
	// upper bound is loose: on a loaded shared machine the OS may not run
	// the watchdog's thread for a while.
	t.Logf("stopped after %v", took)
	if took < 40*time.Millisecond || took > 3*time.Second {
		t.Errorf("stopped after %v, want about 45-50ms", took)
	}
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

func TestGuard_shortCallsAreNotStopped(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.CallTimeout = 20 * time.Millisecond })
	deadline := time.Now().Add(100 * time.Millisecond)
	for time.Now().Before(deadline) {
		f.do(`local s = 0; for i = 1, 100 do s = s + i end`)
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
// way), and on the engine's (stopCtx, whose Done is nil until a call is
// stopped, plus the watchdog's two atomic increments per call).
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
