package game

import (
	"fmt"
	"testing"

	"github.com/btrun/btrun/cluster"
	lua "github.com/yuin/gopher-lua"
)

// TestRebalance_shardsHoldOnlyTheirRange: after every step of runs whose
// agents move both ways between 2 or 3 shards (on 1 or 2 workers), each
// shard makes exactly the agents of its new range: a runtime agent, known
// by pointer, on a worker, for every place in it and none outside it (a
// released agent is dropped, an adopted one made); and the run is still
// one process's, byte for byte.
func TestRebalance_shardsHoldOnlyTheirRange(t *testing.T) {
	const agents = 12
	worlds := 0
	for _, fx := range []struct {
		name  string
		steps int
	}{{"signals", 40}, {"gates", 40}, {"slots", 30}, {"parallel", 40}, {"interrupt", 30}} {
		wantTrace, wantOut, wantSave := singleMoving(t, fx.name, agents, fx.steps)
		for _, sw := range [][2]int{{2, 1}, {3, 2}} {
			t.Run(fmt.Sprintf("%s/%dx%d", fx.name, sw[0], sw[1]), func(t *testing.T) {
				tc, _ := startMovingCluster(t, fx.name, agents, sw[0], sw[1], 3)
				for step := 1; step <= fx.steps; step++ {
					tc.steps(step, step)
					worlds += checkHeldRanges(t, tc, step)
				}
				tc.movedBothWays()
				tc.wantSolo("", wantTrace, wantOut, wantSave)
			})
		}
	}
	if worlds == 0 {
		t.Error("no shard's world game.agents was checked")
	}
}

// checkHeldRanges fails t unless every shard of tc makes exactly the
// agents of its range in the conductor's layout, each attached to its
// worker's Lua state, and the world's game.agents (one thread) has the
// tables of those and no other. worlds counts the shards whose
// game.agents it checked.
func checkHeldRanges(t *testing.T, tc *testCluster, step int) (worlds int) {
	t.Helper()
	for k, sh := range tc.shards {
		g := sh.g
		lo, hi := tc.c.Layout.Range(k)
		if g.cl.lo != lo || g.cl.hi != hi || g.held.lo != lo || g.held.hi != hi {
			t.Fatalf("step %d: shard %d steps %d..%d (made %d..%d), the layout says %d..%d", step, k, g.cl.lo, g.cl.hi-1, g.held.lo, g.held.hi-1, lo, hi-1)
		}
		for _, ga := range g.agents {
			in := ga.idx >= lo && ga.idx < hi
			if (ga.a != nil) != in {
				t.Fatalf("step %d: shard %d of %d..%d: agent %d made %v", step, k, lo, hi-1, ga.idx, ga.a != nil)
			}
			if in && g.byPtr[ga.a] != ga {
				t.Fatalf("step %d: shard %d: agent %d not known by its runtime agent", step, k, ga.idx)
			}
			if in && g.lua != nil && luaEngineOf(ga.a) != g.current().luaFor(g, int(ga.idx)).engine {
				t.Fatalf("step %d: shard %d: agent %d not attached to its worker's Lua state", step, k, ga.idx)
			}
		}
		if g.lua != nil && g.lua.game != nil && !g.contract {
			tables := 0
			g.lua.game.RawGetString("agents").(*lua.LTable).ForEach(func(id, _ lua.LValue) {
				tables++
				if ga := g.byID[lua.LVAsString(id)]; ga == nil || ga.a == nil {
					t.Fatalf("step %d: shard %d: the world's game.agents has %s, which it does not make", step, k, id)
				}
			})
			if tables != int(hi-lo) {
				t.Fatalf("step %d: shard %d of %d agents: %d tables in the world's game.agents", step, k, hi-lo, tables)
			}
			worlds++
		}
		if len(g.byPtr) != int(hi-lo) {
			t.Fatalf("step %d: shard %d of %d agents knows %d runtime agents", step, k, hi-lo, len(g.byPtr))
		}
		if g.workers != nil {
			n := 0
			for _, w := range g.workers {
				n += w.agents
			}
			if n != int(hi-lo) {
				t.Fatalf("step %d: shard %d of %d agents has %d on its workers", step, k, hi-lo, n)
			}
		}
	}
	return worlds
}

// TestRebalance_dropTellsNoLiveView: a shard that relays its agents' notes
// to a live view drops the agents it gives away with no note: the cancel
// hooks that closing them runs log (the parallel fixture's walk), which
// one process's live view never sees. After every step no note is left
// for the next step's replies, and the run is one process's.
func TestRebalance_dropTellsNoLiveView(t *testing.T) {
	const name, agents, steps = "parallel", 12, 48
	wantTrace, wantOut, _ := singleMoving(t, name, agents, steps)
	tc, moves := startMovingCluster(t, name, agents, 3, 1, 2)
	for _, sh := range tc.shards {
		var out cluster.Out
		if err := sh.Debug([]cluster.Item{{Name: cluster.DebugRelay}}, &out); err != nil {
			t.Fatal(err)
		}
	}
	for step := 1; step <= steps; step++ {
		tc.steps(step, step)
		for k, sh := range tc.shards {
			if n := len(sh.g.cl.relay.notes); n > 0 {
				t.Fatalf("step %d: shard %d keeps %d notes (the first %s of agent %d) after the step", step, k, n, sh.g.cl.relay.notes[0].Name, sh.g.cl.relay.notes[0].Agent)
			}
		}
	}
	if moves[0]+moves[1] == 0 {
		t.Fatal("no agent moved")
	}
	tc.wantSolo("", wantTrace, wantOut, nil)
}

// TestRebalance_navOnTheConductor: the example game with its nav plugin
// not marked shardable (its calls cross to the conductor, which runs it
// for every shard) while agents move between shards holding only their
// range: the plugin's calls follow the agents to their new shards, and
// the trace, output and save are one process's.
func TestRebalance_navOnTheConductor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the nav plugin")
	}
	const steps = 300
	edit := func(cfg *Config) { cfg.Plugins[0].Shardable = false }
	wantTrace, wantOut, wantSave := editedRun(t, "example", edit, steps, 0, 1)
	for _, sw := range [][2]int{{2, 1}, {3, 2}} {
		t.Run(fmt.Sprintf("%dx%d", sw[0], sw[1]), func(t *testing.T) {
			tc, _ := startMovingClusterEdited(t, "example", 0, sw[0], sw[1], 5, edit)
			for step := 1; step <= steps; step++ {
				tc.steps(step, step)
				checkHeldRanges(t, tc, step)
			}
			tc.movedBothWays()
			tc.wantSolo("", wantTrace, wantOut, wantSave)
		})
	}
}
