package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestReplay_enginesAgreeOnTheExampleGamesCalls records a few steps of the
// example game and replays them on bare gopher-lua, and on C Lua 5.1 and
// LuaJIT where they are installed (skipped otherwise: CI need not have
// them): every engine replays every call, with the same results.
func TestReplay_enginesAgreeOnTheExampleGamesCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the example game")
	}
	dir := t.TempDir()
	logPath := filepath.Join(dir, "calls.log")
	calls, err := record(filepath.Join("..", "..", "..", "config.toml"), "", logPath, 40, 8)
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Fatal("no calls recorded")
	}
	script := filepath.Join(dir, "replay.lua")
	if err := writeScript(script); err != nil {
		t.Fatal(err)
	}
	here, err := replayHere(script, logPath, 1)
	if err != nil {
		t.Fatal(err)
	}
	if here.calls != calls || here.errors*20 > calls {
		t.Fatalf("gopher-lua replayed %d of %d calls, %d of them raising errors", here.calls, calls, here.errors)
	}
	// The patched glua reads its CPU time from /proc (its os.clock is wall
	// time) and reports the figure of its replay loop as every engine does:
	// the log's calls, once each.
	glua := buildGlua(filepath.Join("..", "..", "..", "third_party", "gopher-lua"), filepath.Join(dir, "glua"))
	if glua == "" {
		t.Fatal("the patched glua did not build")
	}
	g, err := replayExec("glua", glua, script, logPath, 1, runtime.GOOS == "linux")
	if err != nil {
		t.Fatal(err)
	}
	if g.calls != calls || g.errors != here.errors || g.checksum != here.checksum {
		t.Errorf("glua: %d calls, %d errors, checksum %s; the log %d calls, in process %d errors, %s", g.calls, g.errors, g.checksum, calls, here.errors, here.checksum)
	}
	for _, bin := range []string{"lua5.1", "luajit"} {
		path, err := exec.LookPath(bin)
		if err != nil {
			t.Logf("%s is not installed: not compared", bin)
			continue
		}
		r, err := replayExec(bin, path, script, logPath, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		if r.calls != here.calls || r.errors != here.errors || r.checksum != here.checksum {
			t.Errorf("%s: %d calls, %d errors, checksum %s; gopher-lua: %d, %d, %s", bin, r.calls, r.errors, r.checksum, here.calls, here.errors, here.checksum)
		}
	}
}

// TestReplay_timesEachLoggedCallOnceAndNothingElse replays a log of a
// script whose action counts its calls, with a clock that reads that
// count: the figure replay.lua prints is the calls alone, each logged call
// once per replay (none in the baseline it subtracts, none while loading).
func TestReplay_timesEachLoggedCallOnceAndNothingElse(t *testing.T) {
	script, logPath := countLog(t)
	const reps = 3
	r, err := replayWith(script, logPath, reps, func(L *lua.LState) float64 {
		return float64(lua.LVAsNumber(L.GetGlobal("work")))
	})
	if err != nil {
		t.Fatal(err)
	}
	calls, errors := countSteps*countPerStep*reps, countSteps*reps
	if r.calls != calls+errors || r.errors != errors || r.checksum != strconv.Itoa(calls) {
		t.Fatalf("%d calls, %d errors, checksum %s; want %d, %d, %d", r.calls, r.errors, r.checksum, calls+errors, errors, calls)
	}
	if r.seconds != float64(calls) || r.baseline != 0 {
		t.Errorf("the clock counted %v calls in the replay and %v in its baseline; want %d and 0", r.seconds, r.baseline, calls)
	}
}

// TestReplay_eachTimedLoopStartsAfterAFullCollection: a Go engine's
// collector sweeps and marks during the allocations after a garbage-making
// phase, so the loop timed first paid for the garbage of loading the log
// (and the second for the first's) until each loop began after a full
// collection.
func TestReplay_eachTimedLoopStartsAfterAFullCollection(t *testing.T) {
	script, logPath := countLog(t)
	var events []string
	_, err := replayOut(script, logPath, 1, func(*lua.LState) float64 {
		events = append(events, "clock")
		return 0
	}, func(L *lua.LState) {
		L.SetGlobal("collectgarbage", L.NewFunction(func(*lua.LState) int {
			events = append(events, "collect")
			return 0
		}))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(events, " "), "collect clock clock collect clock clock"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestReplay_oneLoopAloneForCallgrind: with "calls" or "base" the replay
// runs that loop alone, after a full collection, and says which it ran:
// -callgrind subtracts the two runs' instructions.
func TestReplay_oneLoopAloneForCallgrind(t *testing.T) {
	script, logPath := countLog(t)
	for _, c := range []struct {
		mode string
		work float64
	}{{"calls", countSteps * countPerStep}, {"base", 0}} {
		collected := false
		out, err := replayOut(script, logPath, 1, func(*lua.LState) float64 { return 0 }, func(L *lua.LState) {
			L.SetGlobal("collectgarbage", L.NewFunction(func(L *lua.LState) int {
				collected = lua.LVAsNumber(L.GetGlobal("work")) == 0 // before the loop
				return 0
			}))
		}, "-", c.mode)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, c.mode+" calls ") || !collected {
			t.Errorf("%s: printed %q, collected first %v", c.mode, out, collected)
		}
		if c.mode == "calls" {
			n, errs, sum, err := parseOnly(out)
			if err != nil || n != countSteps*(countPerStep+1) || errs != countSteps || sum != strconv.Itoa(int(c.work)) {
				t.Errorf("calls: %d calls, %d errors, checksum %s (%v)", n, errs, sum, err)
			}
		} else if strings.Contains(out, "calls calls") {
			t.Errorf("base: %q reads as the calls' run", out)
		}
	}
}

// TestCallgrind_readsTheCount: the instruction count is read from
// callgrind's report, digits grouped by commas.
func TestCallgrind_readsTheCount(t *testing.T) {
	n, _, err := parseRefs("==1== Collected : 123\n==1==\n==1== I   refs:      12,548,232,862\n", "")
	if err != nil || n != 12548232862 {
		t.Errorf("%d, %v", n, err)
	}
	if _, _, err := parseRefs("==1== valgrind: fatal", ""); err == nil {
		t.Error("a report without a count was read")
	}
	c := count{calls: 4, with: 1000, base: 600}
	if c.perCall() != 100 {
		t.Errorf("per call %v", c.perCall())
	}
}

const countSteps, countPerStep = 5, 4

// countLog writes a log of a script whose action counts its calls in the
// global work: countSteps steps of countPerStep calls and one that raises.
// Some calls raise an error, which must not stop the counts: in gopher-lua
// as released an error caught by pcall closed its callers' open upvalues
// (the patch set's "pcallclose" fixes it), and the replay's counters, kept
// in the main chunk, stopped at the first one.
func countLog(t *testing.T) (script, logPath string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "count.lua")
	code := "local bt = require(\"bt\")\nbt.action(\"count\", function(ctx, params, arg)\n  work = work + 1\n  return bt.SUCCESS\nend)\n" +
		"bt.action(\"fail\", function(ctx) error(\"refused\") end)\nwork = 0\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	fmt.Fprintf(&log, "L %s count.lua count\nF 0 count.lua 2\nF 1 count.lua 6\nA 0 a1 t\nA 1 a2 t\nP 0\n", esc(src))
	for s := range countSteps {
		fmt.Fprintf(&log, "T %d 1 %d\n", s, s)
		for c := range countPerStep {
			fmt.Fprintf(&log, "C 0 %d 0 count %d %d -\n", c%2, boolInt(s == 0), boolInt(c < 2))
		}
		fmt.Fprintf(&log, "C 1 0 0 fail 0 0 -\n") // raises
	}
	logPath = filepath.Join(dir, "calls.log")
	if err := os.WriteFile(logPath, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	script = filepath.Join(dir, "replay.lua")
	if err := writeScript(script); err != nil {
		t.Fatal(err)
	}
	return script, logPath
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestReplay_paramsParsedBeforeTheTimedLoops: params:number returns the
// value parsed before the replay is timed, as btrun's returns the value
// parsed at bind time; the replay parsed the string at every call, work
// btrun's calls do not do.
func TestReplay_paramsParsedBeforeTheTimedLoops(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "p.lua")
	code := "local bt = require(\"bt\")\nbt.action(\"add\", function(ctx, params)\n  work = work + params:number(\"step\", 1) + params:number(\"none\", 10)\n  return bt.SUCCESS\nend)\nwork = 0\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	log := fmt.Sprintf("L %s p.lua p\nF 0 p.lua 2\nA 0 a1 t\nP 0 step 2\nT 0 1 0\nC 0 0 0 add 1 1 -\nC 0 0 0 add 0 0 -\n", esc(src))
	logPath := filepath.Join(dir, "calls.log")
	if err := os.WriteFile(logPath, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "replay.lua")
	if err := writeScript(script); err != nil {
		t.Fatal(err)
	}
	parses, timed := 0, false
	_, err := replayOut(script, logPath, 1, func(L *lua.LState) float64 {
		timed = !timed // the clock opens and closes each timed loop
		return 0
	}, func(L *lua.LState) {
		L.SetGlobal("tonumber", L.NewFunction(func(L *lua.LState) int {
			if timed {
				parses++
			}
			f, err := strconv.ParseFloat(L.CheckString(1), 64)
			if err != nil {
				L.Push(lua.LNil)
			} else {
				L.Push(lua.LNumber(f))
			}
			return 1
		}))
	})
	if err != nil {
		t.Fatal(err)
	}
	if parses != 0 {
		t.Errorf("%d strings parsed while timed", parses)
	}
	// 2 calls of 2 + 10 (the default of a parameter the rule has not).
	r, err := replayWith(script, logPath, 1, func(L *lua.LState) float64 { return float64(lua.LVAsNumber(L.GetGlobal("work"))) })
	if err != nil || r.seconds != 24 {
		t.Errorf("work %v in the timed loop, want 24 (%v)", r.seconds, err)
	}
}

// TestReplay_stateIsTheAgentsOneTableEmptied: where btrun empties an
// agent's ctx.state (the cursor arrived at a rule) the replay empties the
// agent's one table too, as btrun reuses it; it made a new table, so that
// the calls' writes into it allocated where btrun's do not.
func TestReplay_stateIsTheAgentsOneTableEmptied(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "s.lua")
	code := "local bt = require(\"bt\")\nbt.action(\"st\", function(ctx)\n" +
		"  ctx.state.n = (ctx.state.n or 0) + 1\n  seen = seen .. ctx.state.n\n" +
		"  first = first or ctx.state\n  if first ~= ctx.state then seen = seen .. \"new\" end\n  return bt.SUCCESS\nend)\nseen = \"\"\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	log := fmt.Sprintf("L %s s.lua s\nF 0 s.lua 2\nA 0 a1 t\nP 0\nT 0 1 0\nC 0 0 0 st 1 1 -\nC 0 0 0 st 0 0 -\nC 0 0 0 st 0 1 -\nC 0 0 0 st 0 0 -\n", esc(src))
	logPath := filepath.Join(dir, "calls.log")
	if err := os.WriteFile(logPath, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "replay.lua")
	if err := writeScript(script); err != nil {
		t.Fatal(err)
	}
	var seen []string
	if _, err := replayOut(script, logPath, 1, func(L *lua.LState) float64 {
		seen = append(seen, L.GetGlobal("seen").String())
		return 0
	}, nil); err != nil {
		t.Fatal(err)
	}
	if len(seen) < 2 || seen[1] != "1212" {
		t.Errorf("ctx.state's counts after each call %q, want \"1212\" (one table, emptied at the third call)", seen)
	}
}
