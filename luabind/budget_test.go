package luabind

import (
	"errors"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// endlessWorld runs away in whichever hook the global `stuck` names.
const endlessWorld = `local world = {}
function world.init(game)
  while stuck == "init" do end
end
function world.spawn(ctx)
  while stuck == "spawn" do end
end
function world.tick(game)
  while stuck == "tick" do end
end
return world
`

// TestWorld_initAndTickRunWithinBudgetsOfTheirOwn: a runaway init or tick
// is stopped at its line under the budget SetTimeouts gave it, which the
// error names; spawn, and init and tick given 0, keep the call timeout.
func TestWorld_initAndTickRunWithinBudgetsOfTheirOwn(t *testing.T) {
	f := newFixture(t, map[string]string{"world.lua": endlessWorld, "act.lua": `bt.action("ok", function() return bt.SUCCESS end)`},
		func(o *Options) { o.CallTimeout = 20 * time.Millisecond })
	f.bind(tree(`<action id='a' name='ok'/>`))
	w, err := f.e.LoadWorld("world")
	if err != nil {
		t.Fatal(err)
	}
	a := f.agent("a1")
	run := func(hook string) error {
		f.e.L.SetGlobal("stuck", lua.LString(hook))
		defer f.e.L.SetGlobal("stuck", lua.LNil)
		switch hook {
		case "init":
			return w.Init(f.e.L.NewTable())
		case "tick":
			return w.Tick(f.e.L.NewTable())
		}
		return w.Spawn(a)
	}
	want := func(hook, msg string) {
		t.Helper()
		err := run(hook)
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("%s: got %v, want a timeout", hook, err)
		}
		wantContains(t, err.Error(), msg)
	}
	w.SetTimeouts(40*time.Millisecond, 60*time.Millisecond)
	want("init", `world module "world", init: world.lua:3: script ran longer than the world's init timeout (40ms)`)
	want("tick", `world module "world", tick: world.lua:9: script ran longer than the world's tick timeout (60ms)`)
	want("spawn", `world module "world", spawn: world.lua:6: script ran longer than the call timeout (20ms)`)
	// The state goes on, each call within its own budget.
	if err := errors.Join(w.Init(f.e.L.NewTable()), w.Spawn(a), w.Tick(f.e.L.NewTable())); err != nil {
		t.Fatal(err)
	}
	w.SetTimeouts(0, 0)
	want("init", "world.lua:3: script ran longer than the call timeout (20ms)")
	want("tick", "world.lua:9: script ran longer than the call timeout (20ms)")
}

// TestWorld_initOutlivesTheCallTimeoutWithinItsBudget: an init that keeps
// a core busy for ten call timeouts of this process's CPU time (what the
// watchdog counts) ends normally under a budget of its own. The loop reads
// the CPU time, not a wall clock; without a budget of its own, the call
// timeout would stop it on any machine not too loaded to run it.
func TestWorld_initOutlivesTheCallTimeoutWithinItsBudget(t *testing.T) {
	if _, ok := cpuTime(); !ok {
		t.Skip("no CPU time on this OS")
	}
	const callTimeout = 20 * time.Millisecond
	world := `local world = {}
function world.init(game)
  local start = cpu()
  while cpu() - start < 10 * timeout do
    for i = 1, 1000 do end
  end
  done = true
end
return world
`
	f := newFixture(t, map[string]string{"world.lua": world}, func(o *Options) { o.CallTimeout = callTimeout })
	f.e.L.SetGlobal("cpu", f.e.L.NewFunction(func(L *lua.LState) int {
		d, _ := cpuTime()
		L.Push(lua.LNumber(d.Seconds()))
		return 1
	}))
	f.e.L.SetGlobal("timeout", lua.LNumber(callTimeout.Seconds()))
	w, err := f.e.LoadWorld("world")
	if err != nil {
		t.Fatal(err)
	}
	w.SetTimeouts(time.Hour, 0)
	if err := w.Init(f.e.L.NewTable()); err != nil {
		t.Fatalf("init within a budget of an hour: %v", err)
	}
	if f.e.L.GetGlobal("done") != lua.LTrue {
		t.Error("init did not run to its end")
	}
}

// TestBudget_busyTicksKeepTheTimeout: a budget is kept in ticks of the
// watchdog's period, from 0.9 to 1.0 times its timeout, one tick at least;
// an unbounded one never stops a call.
func TestBudget_busyTicksKeepTheTimeout(t *testing.T) {
	for _, c := range []struct {
		timeout, period time.Duration
		stopAfter       int
	}{
		{100 * time.Millisecond, 10 * time.Millisecond, 9},
		{11 * time.Second, 10 * time.Millisecond, 990},
		{time.Second, 2 * time.Millisecond, 450},
		{5 * time.Millisecond, 10 * time.Millisecond, 1},
		{-1, 10 * time.Millisecond, 0},
	} {
		if b := newBudget(c.timeout, c.period, "x"); b.stopAfter != c.stopAfter {
			t.Errorf("%v at a tick every %v: stop after %d ticks, want %d", c.timeout, c.period, b.stopAfter, c.stopAfter)
		}
	}
}
