package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCluster_lostDuringReloadWithPluginOnTheConductor: the example game
// with its nav plugin run on the conductor (not shardable: the shards get
// its declarations at its path, and every shard's calls to it cross to the
// conductor) loses a process during a reload, then goes back to the
// checkpoint before it: the conductor opens a copy of the checkpoint's
// files whose plugin path holds the program it ran (nav's build in the
// cache, found again by its sources' hash), not the declarations, and the
// trace, output and save are one process's. So for a shard killed as the
// reload reaches it, and for a conductor killed there, then -resume. So
// too for the example as it is (nav on each shard: the conductor runs one
// as well, whose program its copy gets from the cache, not from the run's
// object store).
func TestCluster_lostDuringReloadWithPluginOnTheConductor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	for _, shardable := range []bool{false, true} {
		t.Run(fmt.Sprintf("shardable=%v", shardable), func(t *testing.T) { testLostDuringReloadWithNav(t, shardable) })
	}
}

func testLostDuringReloadWithNav(t *testing.T, shardable bool) {
	config := navOnConductorConfig(t, shardable)
	dir := t.TempDir()
	inputs := filepath.Join(dir, "inputs.txt")
	if err := os.WriteFile(inputs, []byte("40 reload\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{"-config", config, "-inputs", inputs, "-steps", "120"}
	trace, save, one := oneProcessRun(t, dir, common...)
	if !strings.Contains(one.stdout, "reload: ") {
		t.Fatalf("one process did not reload:\n%s", one.stdout)
	}
	for _, c := range []struct{ tag, fault, back string }{
		{"shard", "shard1:reload:40", "going back to the checkpoint of step 0 and replaying"},
		{"conductor", "conductor:reload:40", "from its checkpoint at step 0"},
	} {
		r := runRecovered(t, dir, c.tag, c.fault, append([]string{"run", "-shards", "2", "-name", fmt.Sprintf("navreload-%s-%v", c.tag, shardable)}, common...)...)
		if !strings.Contains(r.stderr, c.back) {
			t.Errorf("%s: %q lacks %q", c.tag, r.stderr, c.back)
		}
		if c.tag != "conductor" {
			sameOutput(t, c.tag, r.stdout, one.stdout)
		}
		sameFiles(t, c.tag, dir, trace, save)
	}
}

// navOnConductorConfig is the example game's config beside it (its paths
// stay relative: a cluster sends the files they name), with nav marked
// shardable or not, checkpoints every 100 steps and a store of its own.
func navOnConductorConfig(t *testing.T, shardable bool) string {
	t.Helper()
	path := exampleClusterConfig(t, "navreload-test-*.toml", "checkpoint_every = 100\ndeadline = \"2s\"\n")
	if shardable {
		return path
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(text), "shardable = true", "shardable = false", 1)
	if edited == string(text) {
		t.Fatal("the example's nav is not marked shardable: the test needs another edit")
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
