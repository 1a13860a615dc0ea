package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputs_agentsRemovedFromAGameWithGatesOnShardProcesses: agents
// removed from outside a cluster of a game with gates (the "gates"
// fixture, a checkpoint every 20 steps; a grunt holding the grenade, a
// pair waiting at the rendezvous, a pair whose partner waits on it, a
// grunt holding nothing: game's TestConductor_agentsRemovedFromAGameWithGates
// finds them), with a shard killed after the removals of steps 26 and 27,
// before the checkpoint of step 40: the run goes back to step 20 and
// replays them, and its trace, save and output are one process's.
func TestInputs_agentsRemovedFromAGameWithGatesOnShardProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := clusterConfigOf(t, fixture("gates"), "remove-test-*.toml", "checkpoint_every = 20\ndeadline = \"2s\"\n")
	dir := t.TempDir()
	inputs := filepath.Join(dir, "inputs.txt")
	if err := os.WriteFile(inputs, []byte(`3 remove grunt-1
16 remove pair-2
26 remove pair-1
27 remove grunt-4
`), 0o644); err != nil {
		t.Fatal(err)
	}
	trace, save, one := oneProcessRun(t, dir, "-config", config, "-inputs", inputs)
	if one.stderr != "" {
		t.Fatalf("one process: %s", one.stderr)
	}
	for _, c := range []struct{ fault, tag string }{{"", "plain"}, {"shard1:report:35", "lost"}} {
		r := runRecovered(t, dir, c.tag, c.fault, "run", "-config", config, "-shards", "3", "-inputs", inputs)
		if c.fault != "" && !recoveredAs(r.stderr, "going back to the checkpoint of step 20 and replaying") && !strings.Contains(r.stderr, "starting the run again") {
			t.Errorf("%s: no recovery in %q", c.tag, r.stderr) // from step 20, or earlier on a busy machine
		}
		sameOutput(t, c.tag, r.stdout, one.stdout)
		sameFiles(t, c.tag, dir, trace, save)
	}
}
