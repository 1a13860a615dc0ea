package luabind

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMemory_growingTableInACallIsStoppedInTheLoop: a call that grows a
// table without end is stopped by the memory budget, with an error in the
// loop, long before the call timeout; the state stays usable.
func TestMemory_growingTableInACallIsStoppedInTheLoop(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) {
		o.MemoryLimit = 8 << 20
		o.CallTimeout = 2 * time.Minute // a hang guard: these cases are about memory
	})
	within(t, 2*time.Minute, func() {
		err := f.e.DoString("grow.lua", "local t = {}\nwhile true do\n  t[#t + 1] = {x = #t, name = 'item' .. #t}\nend\n")
		if !errors.Is(err, ErrMemory) || !errors.Is(err, ErrScript) {
			t.Fatalf("got %v, want a memory error", err)
		}
		var se *ScriptError
		if !errors.As(err, &se) || se.File != "grow.lua" || se.Line < 2 || se.Line > 4 {
			t.Errorf("error %q, want it in the loop, grow.lua:2-4", err)
		}
		wantContains(t, err.Error(), "over its memory budget of 8 MB (run.lua_memory)")
	})
	f.do(`local t = {} for i = 1, 1000 do t[i] = i end assert(#t == 1000)`)
}

// TestMemory_growthWithoutStringsIsStoppedByTheHeap: a loop that grows a
// table with no string function to measure at is stopped by the watchdog
// when the heap has grown by twice the budget during the call.
func TestMemory_growthWithoutStringsIsStoppedByTheHeap(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) {
		o.MemoryLimit = 8 << 20
		o.CallTimeout = 2 * time.Minute // a hang guard: these cases are about memory
	})
	within(t, 2*time.Minute, func() {
		err := f.e.DoString("grow.lua", "local t = {}\nwhile true do\n  t[#t + 1] = {#t, #t * 2}\nend\n")
		if !errors.Is(err, ErrMemory) {
			t.Fatalf("got %v, want a memory error", err)
		}
		var se *ScriptError
		if !errors.As(err, &se) || se.File != "grow.lua" || se.Line < 2 || se.Line > 4 {
			t.Errorf("error %q, want it in the loop, grow.lua:2-4", err)
		}
	})
	f.do(`local t = {} for i = 1, 1000 do t[i] = i end assert(#t == 1000)`)
}

// TestMemory_tableGrownAcrossCallsIsStopped: a table kept between calls
// (ctx.memory, a global) that grows a little at every call passes the
// budget at some call, which fails, and so do the calls after it while the
// state stays over; a call that frees the memory cannot run, but Go code
// that drops the data (here: clearing the global from Go) lets calls run
// again once measured.
func TestMemory_tableGrownAcrossCallsIsStopped(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.MemoryLimit = 4 << 20 })
	f.do(`hoard = {} function grow(n) for i = 1, n do hoard[#hoard + 1] = string.rep("x", 100) .. #hoard end end`)
	var err error
	calls := 0
	within(t, 2*time.Minute, func() {
		for ; calls < 200000 && err == nil; calls++ {
			err = f.e.DoString("step.lua", "grow(50)")
			if calls%100 == 0 {
				runtime.GC() // a game allocates all along; here the collector gets a hand
			}
		}
	})
	if !errors.Is(err, ErrMemory) {
		t.Fatalf("after %d calls: got %v, want a memory error", calls, err)
	}
	used, walks := f.e.MemoryUsed()
	t.Logf("stopped after %d calls, %d walks, %d bytes counted", calls, walks, used)
	if used < 4<<20 {
		t.Errorf("the last walk counted %d bytes, under the budget", used)
	}
	if err := f.e.DoString("other.lua", "local x = 1"); !errors.Is(err, ErrMemory) || !strings.HasPrefix(err.Error(), "other.lua:1: the Lua state holds") {
		t.Errorf("a call while over the budget: got %v", err)
	}
	f.e.L.SetGlobal("hoard", nil)
	runtime.GC()
	f.e.guard.mem.pending.Store(true) // what the watchdog does after a collection
	f.do(`local x = 1`)
}

// TestMemory_estimateFollowsTheHeap: the walk's estimate of a state's data
// is within a factor of two of the Go heap that data takes.
func TestMemory_estimateFollowsTheHeap(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		{"numbers in an array", "for i = 1, 200000 do data[i] = i + 0.5 end"},
		{"short strings in a map", "for i = 1, 100000 do data['k' .. i] = 'v' .. i end"},
		{"small tables", "for i = 1, 50000 do data[i] = {x = i, y = -i, name = 'n' .. i} end"},
		{"long strings", "for i = 1, 2000 do data[i] = string.rep('x', 1000) .. i end"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nil, func(o *Options) { o.MemoryLimit = 1 << 30; o.CallTimeout = 2 * time.Minute })
			before := f.e.MeasureMemory()
			heap0 := liveAfterGC()
			f.do("data = {} " + c.src)
			heap1 := liveAfterGC()
			est := f.e.MeasureMemory() - before
			real := int64(heap1) - int64(heap0)
			ratio := float64(est) / float64(real)
			t.Logf("estimate %d bytes, heap %d bytes, ratio %.2f", est, real, ratio)
			if ratio < 0.5 || ratio > 2 {
				t.Errorf("estimate %d is not within a factor of two of the heap's %d", est, real)
			}
		})
	}
}

func liveAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkMemory_walk measures a walk of a state holding many agents'
// worth of small tables (what a measurement costs when one is asked for).
func BenchmarkMemory_walk(b *testing.B) {
	e, err := New(Options{MemoryLimit: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if err := e.DoString("setup", "data = {} for i = 1, 10000 do data[i] = {x = i, y = i, heading = 0.5, name = 'agent' .. i, memory = {}} end"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var n int64
	for range b.N {
		n = e.MeasureMemory()
	}
	b.ReportMetric(float64(n)/(1<<20), "MB-counted")
}
