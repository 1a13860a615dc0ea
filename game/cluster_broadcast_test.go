package game

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// broadcastConfig is the signals fixture with a world that also sends
// every agent a signal ("all") at step 30, beside the schedule's Orders to
// "all" at step 48: both broadcasts of the conductor.
func broadcastConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	from := filepath.Dir(fixturePath("signals"))
	if err := os.CopyFS(dir, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	world := filepath.Join(dir, "ai", "world.lua")
	b, err := os.ReadFile(world)
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "function world.tick(game)\n",
		"function world.tick(game)\n  if game.step == 30 then\n    game.signal(\"all\", \"Orders\", \"hold\")\n  end\n", 1)
	if src == string(b) {
		t.Fatal("the fixture's world.tick moved: the test's edit no longer applies")
	}
	if err := os.WriteFile(world, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "config.toml")
}

// TestClusterBroadcast_oneDeliveryPerShard: a signal to every agent from
// the schedule or the world's game.signal crosses to each shard as one
// delivery, whatever the number of agents (it was one per agent: the
// conductor's work and the bytes followed the agents, 60 deliveries with 12
// agents and 156 with 60), and the trace, output and save stay one
// process's.
func TestClusterBroadcast_oneDeliveryPerShard(t *testing.T) {
	config := broadcastConfig(t)
	const steps = 60
	var deliveries []uint64
	for _, agents := range []int{12, 60} {
		wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, config, agents), Options{}, steps, true)
		if n := strings.Count(wantTrace, "Orders"); n < 2*agents {
			t.Fatalf("%d agents: one process's trace names Orders %d times: want at least %d (both broadcasts reach every agent)", agents, n, 2*agents)
		}
		tc := openCluster(t, clusterSetup{name: config, shards: 2, agents: agents})
		tc.steps(1, steps)
		deliveries = append(deliveries, tc.c.Stats().Items[cluster.Delivery])
		tc.wantSolo(fmt.Sprintf("%d agents", agents), wantTrace, wantOut, wantSave)
	}
	// The agents' own signals do not change with their number here: the
	// deliveries that cross may not either.
	if deliveries[0] != deliveries[1] {
		t.Errorf("deliveries that crossed to the shards: %d with 12 agents, %d with 60: want the same, one per shard for a broadcast", deliveries[0], deliveries[1])
	}
}
