package game

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// TestClusterRange_shardHoldsOnlyItsRange: a shard's game lists every agent
// (id, tree, place) and makes a runtime agent and Lua tables only for its
// range; the world's init sees every id and only the shard's agents'
// tables; every other agent costs it its directory entry alone.
func TestClusterRange_shardHoldsOnlyItsRange(t *testing.T) {
	cfg, err := LoadConfig(clusterConfig("signals"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	const k, n = 1, 3
	g, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard, Shard: &ShardOf{K: k, N: n}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	lo, hi := cluster.Cut(len(whole.agents), n).Range(k)
	if len(g.agents) != len(whole.agents) || hi-lo >= int32(len(g.agents)) {
		t.Fatalf("%d agents listed, %d in the range %d..%d, of %d", len(g.agents), hi-lo, lo, hi, len(whole.agents))
	}
	for i, ga := range g.agents {
		in := int32(i) >= lo && int32(i) < hi
		if got, want := g.agentID(ga), whole.agents[i].a.ID(); got != want || g.byID[want] != ga {
			t.Errorf("place %d: id %q, want %q", i, got, want)
		}
		if g.treeName(ga) != whole.treeName(whole.agents[i]) {
			t.Errorf("place %d: tree %q, want %q", i, g.treeName(ga), whole.treeName(whole.agents[i]))
		}
		if (ga.a != nil) != in {
			t.Errorf("place %d (range %d..%d): runtime agent %v", i, lo, hi-1, ga.a != nil)
		}
	}
	if len(g.byPtr) != int(hi-lo) || len(g.Agents()) != int(hi-lo) {
		t.Errorf("%d agents by pointer, Agents() %d: want %d", len(g.byPtr), len(g.Agents()), hi-lo)
	}
	sh, err := newShard(g, lo, hi, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.start(); err != nil {
		t.Fatal(err)
	}
	ids := g.lua.game.RawGetString("ids").(*lua.LTable)
	tables := 0
	g.lua.game.RawGetString("agents").(*lua.LTable).ForEach(func(id, _ lua.LValue) {
		tables++
		if ga := g.byID[id.String()]; ga == nil || ga.a == nil {
			t.Errorf("the world sees the table of agent %s, which the shard does not hold", id)
		}
	})
	if ids.Len() != len(g.agents) || tables != int(hi-lo) {
		t.Errorf("the world sees %d ids and %d agents' tables: want %d and %d", ids.Len(), tables, len(g.agents), hi-lo)
	}
	if _, err := newShard(g, lo, hi+1, false); err == nil || !strings.Contains(err.Error(), "Options.Shard") {
		t.Errorf("a shard of another range than the game made: %v", err)
	}
	for _, bad := range []ShardOf{{K: 3, N: 3}, {K: -1, N: 2}, {K: 0, N: 0}} {
		if _, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard, Shard: &bad}); err == nil || !strings.Contains(err.Error(), "Options.Shard") {
			t.Errorf("Options.Shard %+v: %v", bad, err)
		}
	}
}

// TestClusterRange_treeOfOthers: a shard knows the tree of every agent it
// does not make (a signal's data is checked against it), translated kinds
// included, as the game that makes them.
func TestClusterRange_treeOfOthers(t *testing.T) {
	cfg, err := LoadConfig(writeGame(t, translateGame("sniperAttack")))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	g, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard, Shard: &ShardOf{K: 0, N: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	others := 0
	for i, ga := range g.agents {
		want := whole.agents[i].a.Tree().Tree
		got := g.treeOf(ga)
		if ga.a == nil {
			others++
			if ga.kind == 0 {
				t.Errorf("agent %s: not of a translated kind", g.agentID(ga))
			}
		}
		if got == nil || got.File != want.File || len(got.Rules) != len(want.Rules) {
			t.Errorf("agent %s: tree %v, want %s", g.agentID(ga), got, want.File)
		}
	}
	if others != 2 {
		t.Fatalf("the shard leaves %d agents to the other: want the 2 snipers", others)
	}
}

// TestClusterRange_restoreKeepsGatesByPlace: restoring a shard's agents
// from their own saves without the gates' state (what a move of agents to
// a shard does) keeps the gates as they were, by place, the restored agents
// taking up their holds: a run whose shards restore every agent they hold
// after every step ends with one process's save.
func TestClusterRange_restoreKeepsGatesByPlace(t *testing.T) {
	const steps = 60
	_, wantEnd := singleSave(t, "gates", steps)
	tc := startCluster(t, "gates", 2)
	held := 0 // holds of the shards' own agents met at a restore
	for s := 1; s <= steps; s++ {
		tc.steps(s, s)
		for _, sh := range tc.shards {
			g := sh.g
			placeOf := func(a *runtime.Agent) int32 { return g.byPtr[a].idx }
			before := g.gates.State(placeOf)
			for _, st := range before {
				for _, h := range st.Holders {
					if g.cl.holds(h.Place) {
						held++
					}
				}
			}
			var out cluster.Out
			if err := g.agentSaves(g.cl.lo, g.cl.hi, &out); err != nil {
				t.Fatal(err)
			}
			if err := sh.restoreAgents(out.Items); err != nil {
				t.Fatal(err)
			}
			if got, want := encodeGateState(g.gates.State(placeOf)), encodeGateState(before); !bytes.Equal(got, want) {
				t.Fatalf("step %d: the gates after a restore of the shard of %d..%d differ", s, g.cl.lo, g.cl.hi-1)
			}
		}
	}
	if held == 0 {
		t.Fatal("no agent held a gate at a restore: this test shows nothing")
	}
	if end := tc.save(); !bytes.Equal(end, wantEnd) {
		t.Error("the save at the end differs from one process's")
	}
}
