package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCluster_pluginsOnTheConductor: `btrun run -shards N` runs a plugin
// not marked shardable on the conductor, one batch of every shard's calls
// per round, and a shardable one on each shard process: the relay fixture
// (counter numbers every call in the order of its batches, so each
// instance of it per shard would give other tickets) and the crashy
// fixture (a plugin that dies in the middle of a batch and is restarted)
// write the trace, the output and the save of `btrun run`, on 2 shards and
// on 3 shards of 2 workers; and a save made on 2 shards half way, loaded
// on 3, ends where one process that loads it ends.
func TestCluster_pluginsOnTheConductor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	for _, c := range []struct{ name, steps, half string }{{"relay", "40", "20"}, {"crashy", "20", "10"}} {
		t.Run(c.name, func(t *testing.T) {
			config := fixture(c.name)
			t.Cleanup(func() { os.RemoveAll(filepath.Join(filepath.Dir(config), "btrun-cluster")) })
			dir := t.TempDir()
			file := func(n string) string { return filepath.Join(dir, n) }
			run(t, "", "run", "-config", config, "-steps", "1", "-quiet") // builds the plugins: a build says so
			trace, save, want := oneProcessRun(t, dir, "-config", config, "-steps", c.steps)
			for _, layout := range [][]string{{"-shards", "2"}, {"-shards", "3", "-workers", "2"}} {
				tag := strings.Join(layout, "")
				got := runTo(t, nil, dir, tag, append([]string{"run", "-config", config, "-steps", c.steps}, layout...)...)
				sameOutput(t, tag, got.stdout, want.stdout)
				sameFiles(t, tag, dir, trace, save)
			}
			half := run(t, "", "run", "-config", config, "-steps", c.half, "-shards", "2", "-save", file("half.sav"), "-quiet")
			if half.code != 0 {
				t.Fatalf("exit %d: %s", half.code, half.stderr)
			}
			one := run(t, "", "run", "-config", config, "-steps", c.half, "-load", file("half.sav"), "-save", file("rest1.sav"), "-quiet")
			three := run(t, "", "run", "-config", config, "-steps", c.half, "-shards", "3", "-load", file("half.sav"), "-save", file("rest3.sav"), "-quiet")
			if one.code != 0 || three.code != 0 {
				t.Fatalf("exit %d, %d: %s %s", one.code, three.code, one.stderr, three.stderr)
			}
			a, _ := os.ReadFile(file("rest1.sav"))
			b, _ := os.ReadFile(file("rest3.sav"))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("from a save made on 2 shards: 3 shards end with another save than one process")
			}
		})
	}
}
