package game

import (
	"io"
	"math"
	"strings"
	"syscall"
	"testing"
	"time"
)

// exampleGame opens the example game with n agents and runs it a few steps,
// so that agents are mid-action with Lua state and plugin state bytes.
func exampleGame(tb testing.TB, n, steps int) *Game {
	tb.Helper()
	cfg, err := LoadConfig("../config.toml")
	if err != nil {
		tb.Fatal(err)
	}
	cfg.ScaleAgents(n)
	g, err := Open(cfg, Options{Quiet: true, Stdout: io.Discard, Stderr: io.Discard, SaveEvery: -1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { g.Close() })
	if err := g.Start(); err != nil {
		tb.Fatal(err)
	}
	for range steps {
		if _, err := g.runStep(); err != nil {
			tb.Fatal(err)
		}
	}
	return g
}

// BenchmarkSaveExampleGame measures saving the example game's whole run
// (world, every agent with its Lua tables and plugin state) with 10,000
// agents, into the save file's bytes as Save writes them (in the buffer
// the game reuses; SaveState copies them out). Beside agents/s (wall time)
// it reports agents/cpu-s: agents per second of the process's CPU time
// (garbage collection included), which a machine busy with other work
// changes far less.
func BenchmarkSaveExampleGame(b *testing.B) {
	g := exampleGame(b, 10000, 50)
	if _, err := g.saveBytes(); err != nil { // the memory a game's first save takes, kept for the next
		b.Fatal(err)
	}
	var size int
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		data, err := g.saveBytes()
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.ReportMetric(float64(len(g.agents)*b.N)/(cpuTime()-cpu).Seconds(), "agents/cpu-s")
	b.ReportMetric(float64(size)/float64(len(g.agents)), "bytes/agent")
	b.ReportMetric(float64(len(g.agents)*b.N)/b.Elapsed().Seconds(), "agents/s")
}

// BenchmarkLoadExampleGame measures decoding, checking and applying such a
// save (the restore of every agent's Lua tables included, and the cancel
// hooks of the actions the load interrupts); metrics as above.
func BenchmarkLoadExampleGame(b *testing.B) {
	g := exampleGame(b, 10000, 50)
	data, err := g.encodeSave()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		if _, err := g.decodeSave(data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.agents)*b.N)/(cpuTime()-cpu).Seconds(), "agents/cpu-s")
	b.ReportMetric(float64(len(g.agents)*b.N)/b.Elapsed().Seconds(), "agents/s")
}

// cpuTime is the CPU time the process has used, all threads.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestSave_allocatesLessThanOncePerAgent: saving and loading the example
// game allocates per save, not per field: under 0.2 allocations per agent
// to save (a save borrows the custom rules' bytes it writes at once) and
// under one to load (the plans reuse their arrays from load to load, the
// snapshots' bytes go into one buffer), everything counted (the world's
// save() and load(), the cancel hooks of the actions a load interrupts,
// whose log lines are most of what a load still allocates).
func TestSave_allocatesLessThanOncePerAgent(t *testing.T) {
	const n = 300
	g := exampleGame(t, n, 40)
	data, err := g.encodeSave()
	if err != nil {
		t.Fatal(err)
	}
	save := testing.AllocsPerRun(5, func() {
		if _, err := g.encodeSave(); err != nil {
			t.Fatal(err)
		}
	})
	load := testing.AllocsPerRun(5, func() {
		if _, err := g.decodeSave(data); err != nil {
			t.Fatal(err)
		}
	})
	if save > 0.2*n || load > n {
		t.Errorf("%.2f allocations per agent to save, %.2f to load; want under 0.2 and 1", save/n, load/n)
	}
	t.Logf("%.2f allocations per agent to save, %.2f to load", save/n, load/n)
}

// TestSave_roundTripOfTheExampleGameIsStable: saving, loading and saving
// again gives the same bytes.
func TestSave_roundTripOfTheExampleGameIsStable(t *testing.T) {
	g := exampleGame(t, 60, 40)
	a, err := g.encodeSave()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.decodeSave(a); err != nil {
		t.Fatal(err)
	}
	b, err := g.encodeSave()
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Error("a loaded save saves differently")
	}
}

// FuzzLoadSave feeds arbitrary bytes to the game's save reader: no panic,
// and a failed load leaves the game as it was.
func FuzzLoadSave(f *testing.F) {
	g := exampleGame(f, 9, 30)
	good, err := g.encodeSave()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good) // the example world publishes the player: the save holds a game.shared (shared_save.go)
	// A game.shared with one table at two places (a back-reference of its
	// encoding), boolean and fractional keys; a player, which the world's
	// load(t) reads.
	L := g.lua.engine.State()
	if err := L.DoString(`local p = {x = 1, y = 2} p.self = p S = {player = p, medics = 0, [true] = p, [2.5] = -0.0}`); err != nil {
		f.Fatal(err)
	}
	published := g.lua.game.RawGetString("shared")
	g.lua.game.RawSetString("shared", L.GetGlobal("S"))
	twice, err := g.encodeSave()
	g.lua.game.RawSetString("shared", published)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(twice)
	f.Add(good[:len(good)/2])
	f.Add(asVersion8(f, good)) // a save of before game.shared was saved
	f.Fuzz(func(t *testing.T, data []byte) {
		before, _ := g.encodeSave()
		if _, err := g.decodeSave(data); err != nil {
			after, _ := g.encodeSave()
			if string(before) != string(after) {
				t.Fatalf("a failed load changed the game: %v", err)
			}
		}
	})
}

// TestSave_stepsBeyondTheLimitAreRefused: a crafted save at step 2^64-1 is
// an error (it used to wrap to step 0), for the run and for an agent, and
// the game is left as it was.
func TestSave_stepsBeyondTheLimitAreRefused(t *testing.T) {
	g := exampleGame(t, 3, 5)
	before, err := g.encodeSave()
	if err != nil {
		t.Fatal(err)
	}
	g.step = math.MaxUint64
	crafted, err := g.encodeSave()
	g.step = 5
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.decodeSave(crafted)
	if err == nil || !strings.Contains(err.Error(), "the save is at step 18446744073709551615, beyond step 9007199254740992") {
		t.Errorf("run step 2^64-1: %v", err)
	}
	if after, _ := g.encodeSave(); string(after) != string(before) {
		t.Error("the refused load changed the game")
	}
	if err := g.Run(int(MaxSteps)); err == nil || !strings.Contains(err.Error(), "beyond step 9007199254740992") {
		t.Errorf("running past 2^53: %v", err)
	}
}
