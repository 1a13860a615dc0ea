package game

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
)

// swingCost is a cost injected into shard k's meter: each agent it steps
// costs 1, or 3 in every other window of every steps (shifted by k), so
// that the costliest shard changes every window and the boundaries move
// one way, then the other.
func swingCost(k int, every uint64, held func() int32) func(uint64, time.Duration) float64 {
	return func(step uint64, _ time.Duration) float64 {
		f := 1.0
		if ((step-1)/every+uint64(k))%2 == 0 {
			f = 3
		}
		return f * float64(held())
	}
}

// movingConfig is a fixture's config with agents agents (0: as it is),
// so that shards have agents to move.
func movingConfig(t testing.TB, name string, agents int) *Config {
	t.Helper()
	cfg, err := LoadConfig(clusterConfig(name))
	if err != nil {
		t.Fatal(err)
	}
	if agents > 0 {
		for i := range cfg.Agents {
			cfg.Agents[i].Count = max(cfg.Agents[i].Count, 1)
		}
		cfg.ScaleAgents(agents)
	}
	return cfg
}

// singleMoving is the run of movingConfig in one process: its trace,
// output and final save.
func singleMoving(t *testing.T, name string, agents, steps int) (string, string, []byte) {
	t.Helper()
	return soloRun(t, movingConfig(t, name, agents), Options{}, steps, true)
}

// startMovingCluster is startClusterWorkers with moves: the conductor
// decides every `every` steps, and each shard reports swingCost's costs,
// not its time. moves counts the boundaries that moved up and down.
func startMovingCluster(t *testing.T, name string, agents, shards, workers int, every uint64) (*testCluster, *[2]int) {
	t.Helper()
	return startMovingClusterEdited(t, name, agents, shards, workers, every, nil)
}

// startMovingClusterEdited is startMovingCluster of the config as edit
// changes it, in every process.
func startMovingClusterEdited(t *testing.T, name string, agents, shards, workers int, every uint64, edit func(*Config)) (*testCluster, *[2]int) {
	t.Helper()
	tc := openCluster(t, clusterSetup{name: name, shards: shards, workers: workers, agents: agents, edit: edit, every: every})
	return tc, &tc.moves
}

// TestRebalance_sameTraceOutputAndSave: agents moved between 2 or 3 shards
// every few steps, both ways (costs injected), on 1 or 2 workers: the
// trace, the output and the final save are one process's, byte for byte,
// with signals, gates, parallels, slots, interruptions and folded errors
// of agents that move.
func TestRebalance_sameTraceOutputAndSave(t *testing.T) {
	for _, fx := range []struct {
		name  string
		steps int
	}{{"signals", 80}, {"gates", 60}, {"parallel", 48}, {"slots", 60}, {"interrupt", 40}, {"failing", 30}, {"slotlanes", 40}, {"alarm", 30}} {
		wantTrace, wantOut, wantSave := singleMoving(t, fx.name, 12, fx.steps)
		for _, sw := range [][2]int{{2, 1}, {3, 1}, {2, 2}} {
			t.Run(fmt.Sprintf("%s/%dx%d", fx.name, sw[0], sw[1]), func(t *testing.T) {
				tc, _ := startMovingCluster(t, fx.name, 12, sw[0], sw[1], 3)
				tc.steps(1, fx.steps)
				tc.movedBothWays()
				tc.wantSolo("", wantTrace, wantOut, wantSave)
				if st := tc.c.Balance.Stats(); st.Agents == 0 || st.Bytes == 0 {
					t.Errorf("moves counted %+v", st)
				}
			})
		}
	}
}

// TestRebalance_exampleGame: the example game (its shardable nav plugin,
// gates, signals, the world's shared data) with agents moving every 5
// steps for 300 steps on 2 shards of 2 workers: one process's trace,
// output and save.
func TestRebalance_exampleGame(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the nav plugin")
	}
	const steps = 300
	wantTrace, wantOut := singleRun(t, "example", steps)
	_, wantSave := singleSave(t, "example", steps)
	for _, sw := range [][2]int{{2, 2}, {3, 1}} {
		t.Run(fmt.Sprintf("%dx%d", sw[0], sw[1]), func(t *testing.T) {
			tc, _ := startMovingCluster(t, "example", 0, sw[0], sw[1], 5)
			tc.steps(1, steps)
			tc.movedBothWays()
			tc.wantSolo("", wantTrace, wantOut, wantSave)
		})
	}
}

// TestRebalance_saveRightAfterAMoveLoadsAnywhere: a save taken at the end
// of a step that moved agents is one process's save, and loaded on 3
// shards, on 1, on 2 that move agents themselves, or in one process, goes
// on to the same end.
func TestRebalance_saveRightAfterAMoveLoadsAnywhere(t *testing.T) {
	const name, steps, every = "gates", 54, 3
	wantHalf, wantEnd := singleSave(t, name, steps) // at step 27: a window's end
	tc, moves := startMovingCluster(t, name, 0, 2, 1, every)
	tc.steps(1, steps/2)
	if moves[0]+moves[1] == 0 || tc.c.Layout.Start[1] == cluster.Cut(tc.c.Layout.Agents(), 2).Start[1] {
		t.Fatalf("no agents moved by step %d (layout %v)", steps/2, tc.c.Layout.Start)
	}
	half := tc.save()
	if !bytes.Equal(half, wantHalf) {
		t.Fatalf("the save right after a move differs from one process's")
	}
	for _, shards := range []int{3, 1} {
		b := startCluster(t, name, shards)
		b.load(half)
		b.steps(steps/2+1, steps)
		if end := b.save(); !bytes.Equal(end, wantEnd) {
			t.Errorf("%d shards from the save after a move: the end differs", shards)
		}
	}
	m, _ := startMovingCluster(t, name, 0, 2, 1, every)
	m.load(half)
	m.steps(steps/2+1, steps)
	if end := m.save(); !bytes.Equal(end, wantEnd) {
		t.Errorf("2 moving shards from the save after a move: the end differs")
	}
	g := openQuiet(t, clusterConfig(name))
	defer g.Close()
	if _, err := g.decodeSave(half); err != nil {
		t.Fatal(err)
	}
	for range steps / 2 {
		if _, err := g.runStep(); err != nil {
			t.Fatal(err)
		}
	}
	if end, err := g.encodeSave(); err != nil || !bytes.Equal(end, wantEnd) {
		t.Errorf("one process from the save after a move: the end differs (%v)", err)
	}
}

// TestRebalance_configTurnsItOn: [cluster] rebalance = true gives the
// conductor a balancer, and its absence none (a cluster without it never
// moves agents); the key is a boolean, checked as every key is.
func TestRebalance_configTurnsItOn(t *testing.T) {
	for _, on := range []bool{false, true} {
		cfg, err := LoadConfig(fixturePath("signals"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Cluster.Rebalance = on
		g, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		link, _ := cluster.NewLocal(2)
		c, err := g.Conduct(link, nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if (c.c.Balance != nil) != on {
			t.Errorf("rebalance = %v: balancer %v", on, c.c.Balance)
		}
		g.Close()
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	text := "[[trees]]\nname = \"t\"\nfile = \"t.xml\"\n\n[cluster]\nrebalance = 1\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadConfig(path)
	if err == nil || !strings.Contains(err.Error(), "rebalance") || !strings.Contains(err.Error(), ":6") {
		t.Errorf("got %v", err)
	}
}

// TestRebalance_gateHoldersMove: agents that hold a gate when they move
// keep their place among its holders (every process's copy of the gates
// has it, and the move does not touch them): in the gates fixture, moves
// carry holders, and the run is one process's byte for byte.
func TestRebalance_gateHoldersMove(t *testing.T) {
	const name, agents, steps = "gates", 14, 120
	wantTrace, wantOut, wantSave := singleMoving(t, name, agents, steps)
	tc, _ := startMovingCluster(t, name, agents, 3, 1, 2)
	holders := 0
	tc.c.Balance.Decide = func(_ uint64, _ []float64, from, to cluster.Layout) {
		g := tc.ch.g // it holds no agents: its gates name their holders by place
		for _, gate := range g.gates.SnapshotNamed(func(p int32) string { return g.agentID(g.agents[p]) }) {
			for _, h := range gate.Holders {
				if p := g.byID[h.Agent].idx; from.Of(p) != to.Of(p) {
					holders++
				}
			}
		}
	}
	tc.steps(1, steps)
	if holders == 0 {
		t.Fatal("no agent held a gate as it moved")
	}
	tc.wantSolo("", wantTrace, wantOut, wantSave)
	t.Logf("%d gate holders moved", holders)
}

// TestRebalance_badMovesAreRefused: a shard refuses a move that would have
// it step a copy rather than the agent (a save missing, one twice, one of
// an agent it holds, adopting before releasing) or whose records are not
// a moving agent's, naming the agents; nothing panics.
func TestRebalance_badMovesAreRefused(t *testing.T) {
	g, err := Open(movingConfig(t, "signals", 6), Options{Stdout: io.Discard, Stderr: io.Discard, Shard: &ShardOf{K: 0, N: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	h, err := newShard(g, 0, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.start(); err != nil {
		t.Fatal(err)
	}
	var out cluster.Out
	if err := h.Release(0, 2, &out); err != nil || len(out.Items) != 1 || out.Items[0].Agent != 2 {
		t.Fatalf("release of agent 2: %v, %+v", err, out.Items)
	}
	good := out.Items[0]
	if g.cl.lo != 0 || g.cl.hi != 2 {
		t.Fatalf("after the release the shard steps %d..%d", g.cl.lo, g.cl.hi-1)
	}
	for _, c := range []struct {
		lo, hi int32
		saves  []cluster.Item
		want   string
	}{
		{0, 3, nil, "from 0 saves, not 1"},
		{0, 3, []cluster.Item{good, good}, "from 2 saves, not 1"},
		{1, 3, []cluster.Item{good}, "without releasing the others"},
		{0, 4, []cluster.Item{good, {Kind: cluster.AgentSave, Agent: 2, Data: good.Data}}, "adopting agent 2"},
		{0, 3, []cluster.Item{{Kind: cluster.AgentSave, Agent: 1, Data: good.Data}}, "adopting agent 1"},
		{0, 3, []cluster.Item{{Kind: cluster.AgentSave, Agent: 2, Data: []byte("BTRUNMOV garbage")}}, "agent 2 moving to its shard"},
	} {
		if err := h.Adopt(c.lo, c.hi, c.saves); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Adopt(%d, %d, %d saves): %v, want %q", c.lo, c.hi, len(c.saves), err, c.want)
		}
	}
	if err := h.Adopt(0, 3, []cluster.Item{good}); err != nil || g.cl.lo != 0 || g.cl.hi != 3 {
		t.Errorf("adopting agent 2 back: %v, steps %d..%d", err, g.cl.lo, g.cl.hi-1)
	}
}
