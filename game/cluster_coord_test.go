package game

import (
	"bytes"
	"fmt"
	"io"
	goruntime "runtime"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// quietSolo is cfg's run in one process without a trace, as btrun bench or
// a run without -trace: its output.
func quietSolo(t *testing.T, name string, steps int) string {
	t.Helper()
	var out bytes.Buffer
	g, err := Open(movingConfig(t, name, 0), Options{Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(steps); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestClusterCoord_reportsPicked: without a trace, a shard reports only the
// agents whose step report writes or changes something (one that failed,
// errored or now runs another rule), as one process does, and the output
// stays one process's byte for byte, on 1 to 3 shards, with gates, rule
// changes, failures and errors. Reporting every agent (what the shards did
// before) reports all of them at every step.
func TestClusterCoord_reportsPicked(t *testing.T) {
	for _, name := range []string{"gates", "failing", "alarm", "signals"} {
		fewer := name != "failing" // whose agents fail or run away at every step
		cfg := movingConfig(t, name, 0)
		steps := int(cfg.Run.Steps)
		want := quietSolo(t, name, steps)
		for shards := 1; shards <= 3; shards++ {
			t.Run(fmt.Sprint(name, "/", shards), func(t *testing.T) {
				tc := openCluster(t, clusterSetup{name: name, shards: shards, noTrace: true})
				agents, reported := 0, 0
				for s := 1; s <= steps; s++ {
					tc.steps(s, s)
					for _, sh := range tc.shards {
						agents += len(sh.g.activeGA)
						reported += sh.reported
					}
				}
				if fewer && reported >= agents {
					t.Errorf("%d agent-steps reported of %d: want fewer (those whose report writes)", reported, agents)
				}
				_, out := tc.finish()
				if out != want {
					t.Errorf("output differs from one process's:\n%s", lineDiff(out, want))
				}
			})
		}
	}
}

// TestClusterCoord_takeAllocs: a shard's take of its agents' trace and
// output lines allocates nothing once its reply's buffer has grown (the
// lines are kept in the reply's Out until it is sent; a copy per record
// allocated one per line, one per agent and step with a trace).
func TestClusterCoord_takeAllocs(t *testing.T) {
	tc := openCluster(t, clusterSetup{name: "alarm", shards: 1})
	g := tc.shards[0].g
	var out cluster.Out
	take := func() {
		out.Reset()
		for i := range 100 {
			g.cl.trace.WriteString(`{"step":1,"agent":"sentry-1"}` + "\n")
			g.cl.out.WriteString("a line of the output\n")
			if err := g.take(&out, cluster.Place(cluster.PhaseReport, int64(i)), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	take()
	if n := testing.AllocsPerRun(20, take); n != 0 {
		t.Errorf("taking 100 agents' lines: %.0f allocations, want 0", n)
	}
	if len(out.Items) != 200 || string(out.Items[1].Data) != "a line of the output\n" || string(out.Items[198].Data) != `{"step":1,"agent":"sentry-1"}`+"\n" {
		t.Errorf("the taken items: %d, want 200 with each line", len(out.Items))
	}
}

// TestClusterCoord_allocs: the example game's allocations per agent-step
// in one process and on 2 shards with their conductor in this process (the
// in-process transport encodes and decodes every message, as NATS's does),
// no trace, steps 2 to 11: what a cluster adds to the garbage its processes
// collect is per message and item (encoding, decoding, the shared data
// each shard's Lua states take), not per agent: at 2,000 agents at most
// 0.15 allocations an agent-step (300 a step; 0.21 when Decode copied every
// item's fields) and 10% of one process's bytes.
//
//	go test ./game -run ClusterCoord_allocs -v
func TestClusterCoord_allocs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the nav plugin")
	}
	if raceOn {
		t.Skip("the race detector changes the allocations counted")
	}
	const agents, steps = 2000, 10
	per := func(step func(s uint64)) (allocs, bytes float64) {
		step(1)
		var m0, m1 goruntime.MemStats
		goruntime.ReadMemStats(&m0)
		for s := range uint64(steps) {
			step(s + 2)
		}
		goruntime.ReadMemStats(&m1)
		n := float64(steps * agents)
		return float64(m1.Mallocs-m0.Mallocs) / n, float64(m1.TotalAlloc-m0.TotalAlloc) / n
	}
	g, err := Open(movingConfig(t, "example", agents), Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	oneAllocs, oneBytes := per(func(uint64) {
		if err := g.Run(1); err != nil {
			t.Fatal(err)
		}
	})
	tc := openCluster(t, clusterSetup{name: "example", shards: 2, agents: agents, noTrace: true})
	clAllocs, clBytes := per(func(s uint64) { tc.steps(int(s), int(s)) })
	t.Logf("per agent-step: one process %.3f allocations, %.0f bytes; 2 shards and the conductor %.3f, %.0f", oneAllocs, oneBytes, clAllocs, clBytes)
	if clAllocs > oneAllocs+0.15 || clBytes > oneBytes*1.1 {
		t.Errorf("the cluster allocates %.3f times and %.0f bytes an agent-step, one process %.3f and %.0f: want at most 0.15 more and 10%% more", clAllocs, clBytes, oneAllocs, oneBytes)
	}
}
