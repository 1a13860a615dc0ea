package game

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// conductorHolds fails unless the conductor of tc holds a runtime agent,
// its Lua tables and its place in the world's game.agents for every agent
// (copies) or for none.
func conductorHolds(t *testing.T, tc *testCluster, copies bool, when string) {
	t.Helper()
	g := tc.ch.g
	made := 0
	for _, ga := range g.agents {
		if ga.a != nil {
			made++
		}
	}
	attached := 0
	for _, s := range append([]*scripts{g.lua}, g.extraScripts()...) {
		if s != nil {
			attached += s.engine.Attached()
		}
	}
	tables := 0
	if g.lua != nil && g.lua.game != nil && !g.contract {
		if agents, ok := g.lua.game.RawGetString("agents").(*lua.LTable); ok {
			agents.ForEach(func(lua.LValue, lua.LValue) { tables++ })
		}
	}
	want := 0
	if copies {
		want = len(g.agents)
	}
	if made != want || len(g.byPtr) != want || attached != want || (g.lua != nil && g.lua.game != nil && !g.contract && tables != want) {
		t.Fatalf("%s: the conductor has %d runtime agents (%d by pointer), %d agents' Lua tables, %d in game.agents, of %d agents; want %d",
			when, made, len(g.byPtr), attached, tables, len(g.agents), want)
	}
}

// TestConductor_holdsNoAgents: a conductor opened with Options.Conductor
// makes no runtime agent, no Lua table of an agent and no store, at any
// step of runs with gates and signals between agents, agents moved
// between shards, agents added and removed, signals from outside, a save
// and its load (a checkpoint gone back to); the runs' trace, output and
// final save are one process's. With copies (a live view), it holds every
// agent.
func TestConductor_holdsNoAgents(t *testing.T) {
	t.Run("gates and moves", func(t *testing.T) {
		const name, agents, steps = "gates", 14, 60
		wantTrace, wantOut, wantSave := singleMoving(t, name, agents, steps)
		tc, moves := startMovingCluster(t, name, agents, 3, 1, 2)
		conductorHolds(t, tc, false, "at the start")
		for s := 1; s <= steps; s++ {
			tc.steps(s, s)
			conductorHolds(t, tc, false, fmt.Sprintf("after step %d", s))
			if s == steps/2 {
				tc.load(tc.save()) // the run goes on from its own save
				conductorHolds(t, tc, false, "after a load")
			}
		}
		if moves[0] == 0 || moves[1] == 0 {
			t.Fatalf("boundaries moved up %d times and down %d: want both", moves[0], moves[1])
		}
		tc.wantSolo("", wantTrace, wantOut, wantSave)
		conductorHolds(t, tc, false, "at the end")
	})
	t.Run("inputs and a checkpoint", func(t *testing.T) {
		const steps = 12
		config := agentsGame(t)
		wantTrace, wantOut, wantSave := singleWithAgents(t, config, steps)
		tc := startClusterFromSaves(t, config, 2)
		c := tc.conductor()
		conductorHolds(t, tc, false, "at the start")
		var cp []byte
		for c.Step() < steps {
			changeDue(t, c.Step(), func(id, tree string) error { return c.AddAgent(id, tree, nil) }, c.RemoveAgent, c.Signal)
			conductorHolds(t, tc, false, fmt.Sprintf("after step %d's inputs", c.Step()))
			if err := c.Run(1); err != nil {
				t.Fatal(err)
			}
			conductorHolds(t, tc, false, fmt.Sprintf("after step %d", c.Step()))
			if c.Step() == 5 {
				var err error
				if cp, err = c.Checkpoint(); err != nil {
					t.Fatal(err)
				}
			}
		}
		tc.wantSolo("", wantTrace, wantOut, wantSave)
		b := startClusterFromSaves(t, config, 3) // the checkpoint holds other agents than the config
		if err := b.conductor().Load(cp); err != nil {
			t.Fatal(err)
		}
		conductorHolds(t, b, false, "after the checkpoint's load")
		heldOnly(t, b, "after the checkpoint's load")
	})
	t.Run("copies for a live view", func(t *testing.T) {
		const steps = 20
		wantTrace, wantOut, wantSave := singleMoving(t, "gates", 0, steps)
		tc := openCluster(t, clusterSetup{name: "gates", shards: 2, copies: true})
		conductorHolds(t, tc, true, "at the start")
		tc.steps(1, steps)
		conductorHolds(t, tc, true, fmt.Sprintf("after step %d", steps))
		tc.wantSolo("", wantTrace, wantOut, wantSave)
	})
}

// initSignalsGame is a game whose world's init logs, signals every agent
// and one agent, between its lines, and whose spawn logs and signals the
// agent: what the start writes interleaves the world's lines and the
// agents'.
func initSignalsGame(t *testing.T) string {
	t.Helper()
	return writeGame(t, map[string]string{
		"config.toml": `[run]
steps = 4
seed = 5
[scripts]
paths = ["ai"]
world = "ai/world.lua"
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 7
`,
		"ai/t.xml": `<behaviorTree><action id="walk" name="walk"/></behaviorTree>`,
		"ai/world.lua": `local world = {}
function world.init(game)
  game.log("init begins")
  game.signal("all", "Ping", "to all")
  game.log("between")
  game.signal("t-5", "Ping", "to five")
  game.signal("t-2", "Ping", "to two")
  game.log("init ends")
end
function world.spawn(ctx)
  ctx:log("spawned " .. ctx.id)
end
function world.tick(game) end
return world`,
		"ai/t.lua": `local bt = require("bt")
bt.action("walk", {
  run = function(ctx)
    ctx:log("walks")
    return bt.SUCCESS
  end,
  on = {
    Ping = function(ctx, params, data) ctx:log("ping " .. data) end,
  },
})`,
	})
}

// TestConductor_startOfInitSignals: the world's init delivers signals to
// agents before their spawns; the shards deliver their agents' and spawn
// them, the conductor runs the world's part and writes everything in one
// process's order (1, 2, 3 shards, and 2 of 2 workers).
func TestConductor_startOfInitSignals(t *testing.T) {
	const steps = 3
	config := initSignalsGame(t)
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	wantTrace, wantOut, wantSave := soloRun(t, cfg, Options{}, steps, true)
	for _, want := range []string{"init begins", "t-7 <- signal Ping", "world between", "spawned t-7", "init ends"} {
		if !strings.Contains(wantOut, want) {
			t.Fatalf("one process's output has no %q:\n%s", want, wantOut)
		}
	}
	for _, shards := range []int{1, 2, 3, -2} {
		workers := 1
		if shards < 0 {
			shards, workers = -shards, 2
		}
		tc := openCluster(t, clusterSetup{name: config, shards: shards, workers: workers})
		tc.steps(1, steps)
		tc.wantSolo(fmt.Sprintf("%d shards of %d workers", shards, workers), wantTrace, wantOut, wantSave)
		tc.stop()
	}
}

// TestConductor_liveViewNeedsCopies: a live view attached to a conductor
// that holds no agents is refused at the run, naming what to do; opened
// with copies, it runs.
func TestConductor_liveViewNeedsCopies(t *testing.T) {
	for _, copies := range []bool{false, true} {
		tc := openCluster(t, clusterSetup{name: "gates", shards: 2, copies: copies})
		c := tc.conductor()
		c.g.cl.debug = &clusterDebug{c: c} // as Conduct makes it
		c.g.AttachDebugger(&stepsSeen{t: t})
		err := c.Run(1)
		switch {
		case !copies && (!errors.Is(err, ErrClusterFeature) || !strings.Contains(err.Error(), "Options.Conductor")):
			t.Errorf("a live view on a conductor without copies: %v", err)
		case copies && err != nil:
			t.Errorf("a live view on a conductor with copies: %v", err)
		}
		tc.stop()
	}
}

// TestOpen_shardOrConductor: a game opened as a shard and as the
// conductor is refused, naming both options.
func TestOpen_shardOrConductor(t *testing.T) {
	_, err := Open(movingConfig(t, "gates", 0), Options{Stdout: io.Discard, Stderr: io.Discard, Shard: &ShardOf{K: 0, N: 2}, Conductor: true})
	if err == nil || !strings.Contains(err.Error(), "Options.Shard and Options.Conductor") {
		t.Fatalf("got %v", err)
	}
}
