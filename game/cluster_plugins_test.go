package game

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestCluster_pluginNotShardableIsRefused: a cluster runs an instance of a
// plugin on each shard only when its [[plugins]] entry says shardable =
// true (the example's nav does); without it the conductor, a shard and the
// files for the shards each refuse the game, naming the plugin and the
// key, instead of giving results other than one process's.
func TestCluster_pluginNotShardableIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the nav plugin")
	}
	cfg, err := LoadConfig(clusterConfig("example"))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Plugins[0].Shardable {
		t.Fatal("the example's nav plugin is not marked shardable")
	}
	cfg.Plugins[0].Shardable = false
	g, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrClusterFeature) || !strings.Contains(err.Error(), "plugins[0] (nav) is not marked shardable") ||
			!strings.Contains(err.Error(), "shardable = true") {
			t.Errorf("%s: %v", what, err)
		}
	}
	link, ends := cluster.NewLocal(1)
	_, err = g.Conduct(link, nil, io.Discard)
	check("Conduct", err)
	check("ServeShard", g.ServeShard(ends[0], 0, 1, ShardOptions{}))
	_, _, err = g.ClusterFiles()
	check("ClusterFiles", err)
}

// TestConfig_shardableIsABoolean: the key is checked as every key is.
func TestConfig_shardableIsABoolean(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	text := "[[trees]]\nname = \"t\"\nfile = \"t.xml\"\n\n[[plugins]]\nname = \"p\"\npath = \"p\"\nshardable = \"yes\"\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadConfig(path)
	if err == nil || !strings.Contains(err.Error(), "shardable") || !strings.Contains(err.Error(), ":8") {
		t.Errorf("got %v", err)
	}
}

// TestClusterFiles_listsWhatAShardOpens: the files for the shards are the
// config and the trees it names, at their paths relative to the config's
// folder; a config naming an absolute path is refused, naming it (a shard
// opens the files from a folder of its own).
func TestClusterFiles_listsWhatAShardOpens(t *testing.T) {
	cfg, err := LoadConfig(fixturePath("alarm"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	files, config, err := g.ClusterFiles()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
		if len(f.Data) == 0 || f.Exec {
			t.Errorf("%s: %d bytes, exec %v", f.Path, len(f.Data), f.Exec)
		}
	}
	if config != "config.toml" || strings.Join(paths, " ") != "ai/sentry.xml config.toml" {
		t.Errorf("config %q, files %q", config, paths)
	}

	abs, err := filepath.Abs(filepath.Join(filepath.Dir(fixturePath("alarm")), "ai", "sentry.xml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Trees[0].File = abs
	g2, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	if _, _, err := g2.ClusterFiles(); !errors.Is(err, ErrClusterFeature) || !strings.Contains(err.Error(), abs+", an absolute path") {
		t.Errorf("an absolute path: %v", err)
	}
}

// TestCluster_gateAnswersDoNotGrowWithGateActivity: a shard's agents' gate
// parts of a round cross up in one request, and every agent's part reaches
// each shard in one answer, so requests and answers are at most one per
// shard and round however many agents take or release gates (the gates
// fixture: more parts than rounds), and the run stays one process's.
func TestCluster_gateAnswersDoNotGrowWithGateActivity(t *testing.T) {
	const steps = 60
	wantTrace, wantOut := singleRun(t, "gates", steps)
	for _, shards := range []uint64{1, 3} {
		tc := startCluster(t, "gates", int(shards))
		tc.steps(1, steps)
		st := tc.c.Stats()
		// One item per part would pass the bounds below only with no more
		// parts than rounds.
		if parts := tc.ch.gateParts; parts <= st.Rounds {
			t.Fatalf("%d gate parts in %d rounds: the fixture does not take gates often enough to show anything", parts, st.Rounds)
		}
		for _, k := range []cluster.ItemKind{cluster.Request, cluster.Answer} {
			if st.Items[k] > shards*st.Rounds {
				t.Errorf("%d shards: %d %ss for %d gate parts in %d rounds: more than one per shard and round", shards, st.Items[k], k, tc.ch.gateParts, st.Rounds)
			}
		}
		if trace, out := tc.finish(); trace != wantTrace || out != wantOut {
			t.Errorf("%d shards: the run differs from one process's", shards)
		}
	}
}
