package game

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestCluster_pluginsOnTheConductor: a plugin whose replies depend on
// every agent's calls (counter: one count across all of them, its tickets
// making agents fail, run on and signal one another) runs on the
// conductor, one batch of every shard's calls per round, and a shardable
// one (pure) on each shard: the trace and the output are one process's on
// 1, 2 and 3 shards and on 2 shards of 2 workers; so are those of a plugin
// that crashes in the middle of a batch and is restarted (crashy), and of
// one that does not answer in time (relayhang), with their errors and
// notes where one process writes them.
func TestCluster_pluginsOnTheConductor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	for _, fx := range []struct {
		name  string
		steps int
	}{{"relay", 40}, {"crashy", 20}, {"relayhang", 12}} {
		buildPlugins(t, fx.name)
		wantTrace, wantOut := singleRun(t, fx.name, fx.steps)
		for _, shards := range []int{1, 2, 3, -2} { // -2: 2 shards of 2 workers
			t.Run(fmt.Sprintf("%s/%d", fx.name, shards), func(t *testing.T) {
				trace, out := clusterRun(t, fx.name, fx.steps, shards)
				if trace != wantTrace {
					t.Errorf("trace differs:\n%s", lineDiff(trace, wantTrace))
				}
				if out, wantOut := withoutLifeline(out), withoutLifeline(wantOut); out != wantOut {
					t.Errorf("output differs:\n%s", lineDiff(out, wantOut))
				}
			})
		}
	}
}

// withoutLifeline is a run's output without the line a plugin killed for
// a timeout may write as it sees its host go (the SDK's watchdog), which
// may come or not before the kill, in one process as in a cluster.
func withoutLifeline(out string) string {
	lines := strings.SplitAfter(out, "\n")
	lines = slices.DeleteFunc(lines, func(l string) bool { return strings.Contains(l, "host is gone (lifeline closed)") })
	return strings.Join(lines, "")
}

// TestCluster_pluginOnTheConductorSaves: with counter on the conductor,
// the saves half way and at the end are one process's; and a save made on
// 2 shards, loaded on 3 and on 1 (with 2 workers each), goes on to the end
// one process that loads it goes on to. (A save holds no plugin's own
// state: a process that loads one starts its plugins afresh, in a
// cluster as in one process.)
func TestCluster_pluginOnTheConductorSaves(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	const steps = 40
	wantHalf, wantEnd := singleSave(t, "relay", steps)
	a := startCluster(t, "relay", 2)
	a.steps(1, steps/2)
	half := a.save()
	if !bytes.Equal(half, wantHalf) {
		t.Fatalf("the save at step %d differs from one process's", steps/2)
	}
	a.steps(steps/2+1, steps)
	if end := a.save(); !bytes.Equal(end, wantEnd) {
		t.Errorf("the save at the end differs from one process's")
	}
	wantLoaded := singleFromSave(t, "relay", half, steps/2+1, steps)
	if bytes.Equal(wantLoaded, wantEnd) {
		t.Fatal("a fresh counter gives the run that did not stop: the load shows nothing")
	}
	for _, shards := range []int{3, 1} {
		b := startClusterWorkers(t, "relay", shards, 2)
		b.load(half)
		b.steps(steps/2+1, steps)
		if end := b.save(); !bytes.Equal(end, wantLoaded) {
			t.Errorf("%d shards from the 2 shards' save: the save at the end differs from one process's", shards)
		}
	}
}

// singleFromSave is the save file of one process that loads save and runs
// steps from to to.
func singleFromSave(t *testing.T, name string, save []byte, from, to int) []byte {
	t.Helper()
	g := openQuiet(t, clusterConfig(name))
	defer g.Close()
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := g.decodeSave(save); err != nil {
		t.Fatal(err)
	}
	for s := from; s <= to; s++ {
		if _, err := g.runStep(); err != nil {
			t.Fatal(err)
		}
	}
	end, err := g.encodeSave()
	if err != nil {
		t.Fatal(err)
	}
	return end
}

// TestCluster_pluginMarkedShardableWhenItIsNot: the same game with counter
// marked shardable runs an instance of it on each shard, each counting its
// own shard's calls: on 2 shards the trace is not one process's. (What
// TestCluster_pluginsOnTheConductor shows is therefore the conductor's
// doing, not the fixture's luck.) On 1 shard it still is.
func TestCluster_pluginMarkedShardableWhenItIsNot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	const steps = 40
	wantTrace, _ := singleRun(t, "relay", steps)
	config := shardableCopy(t, "relay", "counter")
	if trace, _ := singleRun(t, config, steps); trace != wantTrace {
		t.Fatal("in one process, shardable changes the run")
	}
	if trace, _ := clusterRun(t, config, steps, 1); trace != wantTrace {
		t.Errorf("1 shard: the trace differs from one process's")
	}
	if trace, _ := clusterRun(t, config, steps, 2); trace == wantTrace {
		t.Errorf("2 shards each running counter: the trace is one process's, so the test shows nothing")
	}
}

// buildPlugins opens a config once, so that its plugins are built before
// the runs whose output is compared (a first build says so there).
func buildPlugins(t *testing.T, name string) {
	t.Helper()
	g := openQuiet(t, clusterConfig(name))
	g.Close()
}

// abs is a config's path made absolute.
func abs(t *testing.T, cfg *Config, path string) string {
	t.Helper()
	p, err := filepath.Abs(cfg.Abs(path))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// shardableCopy writes a copy of a fixture's config whose paths are
// absolute and whose plugin name is marked shardable.
func shardableCopy(t *testing.T, fixture, name string) string {
	t.Helper()
	cfg, err := LoadConfig(fixturePath(fixture))
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(fixturePath(fixture))
	if err != nil {
		t.Fatal(err)
	}
	s := string(text)
	for _, tc := range cfg.Trees {
		s = strings.Replace(s, fmt.Sprintf("file = %q", tc.File), fmt.Sprintf("file = %q", abs(t, cfg, tc.File)), 1)
	}
	for _, p := range cfg.Plugins {
		line := fmt.Sprintf("path = %q", p.Path)
		with := fmt.Sprintf("path = %q", abs(t, cfg, p.Path))
		if p.Name == name {
			with += "\nshardable = true"
		}
		s = strings.Replace(s, line, with, 1)
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg2, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cfg2.Plugins {
		if p.Name == name && !p.Shardable {
			t.Fatalf("the copy's plugin %s: shardable %v", p.Name, p.Shardable)
		}
	}
	return path
}

// TestCluster_pluginCallsDoNotGrowWithAgents: a round's calls of a shard's
// agents to a plugin on the conductor cross up as one request, and their
// replies come down as one answer: at most one of each per shard and
// round, however many agents call.
func TestCluster_pluginCallsDoNotGrowWithAgents(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	const steps = 40
	for _, shards := range []uint64{1, 3} {
		tc := startCluster(t, "relay", int(shards))
		tc.steps(1, steps)
		st := tc.c.Stats()
		calls := uint64(tc.ch.g.plugins.Stats().Calls)
		if calls <= st.Rounds {
			t.Fatalf("%d calls in %d rounds: the fixture does not call often enough to show anything", calls, st.Rounds)
		}
		for _, k := range []cluster.ItemKind{cluster.Request, cluster.Answer} {
			if st.Items[k] > shards*st.Rounds {
				t.Errorf("%d shards: %d %ss for %d calls in %d rounds: more than one per shard and round", shards, st.Items[k], k, calls, st.Rounds)
			}
		}
		t.Logf("%d shards: %d calls on the conductor, %d requests (%d bytes), %d answers (%d bytes) in %d steps, %d rounds",
			shards, calls, st.Items[cluster.Request], st.ItemBytes[cluster.Request], st.Items[cluster.Answer], st.ItemBytes[cluster.Answer], st.Steps, st.Rounds)
	}
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

// TestClusterFiles_aPluginOnTheConductorIsNotSent: the shards get the
// program of a shardable plugin (pure), which they run, but only the
// declarations of one that runs on the conductor (counter), so they start
// no process for it; a plugin with a cancel hook (crashy has none; a
// test of host covers the refusal) would go whole.
func TestClusterFiles_aPluginOnTheConductorIsNotSent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	g := openQuiet(t, fixturePath("relay"))
	defer g.Close()
	files, _, err := g.ClusterFiles()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]SourceFile{}
	for _, f := range files {
		got[path.Base(f.Path)] = f
	}
	if c := got["counter"]; c.Exec || !strings.HasPrefix(string(c.Data), "#!btrun plugin declarations") || !strings.Contains(string(c.Data), `"counter.take"`) {
		t.Errorf("counter: exec %v, %.80q", c.Exec, c.Data)
	}
	if p := got["pure"]; !p.Exec || strings.HasPrefix(string(p.Data), "#!btrun") || len(p.Data) < 1<<20 {
		t.Errorf("pure: exec %v, %d bytes", p.Exec, len(p.Data))
	}
}

// TestCluster_exampleGameWithNavOnTheConductor: the example game with its
// nav plugin not marked shardable, so that every shard's calls to it cross
// to the conductor, round after round, beside the gates' parts, from
// parallels, grafts and handlers, on shards with workers: the trace, the
// output and the save of one process (whose nav is the same either way).
func TestCluster_exampleGameWithNavOnTheConductor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the nav plugin")
	}
	const steps = 300
	edit := func(cfg *Config) { cfg.Plugins[0].Shardable = false }
	wantTrace, wantOut, wantSave := editedRun(t, "example", edit, steps, 0, 1)
	for _, layout := range [][2]int{{1, 1}, {2, 1}, {3, 2}} {
		t.Run(fmt.Sprintf("%dx%d", layout[0], layout[1]), func(t *testing.T) {
			trace, out, save := editedRun(t, "example", edit, steps, layout[0], layout[1])
			if trace != wantTrace {
				t.Errorf("trace differs:\n%s", lineDiff(trace, wantTrace))
			}
			if out != wantOut {
				t.Errorf("output differs:\n%s", lineDiff(out, wantOut))
			}
			if !bytes.Equal(save, wantSave) {
				t.Errorf("the save differs")
			}
		})
	}
}

// editedRun runs a config changed by edit for steps steps, in one process
// (shards 0) or on shards of workers each in this process, and returns
// the trace, the output and the save at the end.
func editedRun(t *testing.T, name string, edit func(*Config), steps, shards, workers int) (string, string, []byte) {
	t.Helper()
	var trace, out bytes.Buffer
	open := func(w io.Writer, workers int, shard *ShardOf) *Game {
		cfg, err := LoadConfig(clusterConfig(name))
		if err != nil {
			t.Fatal(err)
		}
		edit(cfg)
		opts := Options{Stdout: w, Stderr: w, Workers: &workers, Shard: shard}
		if shards == 0 {
			opts.TraceTo = &trace
		}
		g, err := Open(cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}
	if shards == 0 {
		g := open(&out, workers, nil)
		if err := g.OpenTrace(); err != nil {
			t.Fatal(err)
		}
		if err := g.Start(); err != nil {
			t.Fatal(err)
		}
		for range steps {
			if _, err := g.runStep(); err != nil {
				t.Fatal(err)
			}
		}
		save, err := g.encodeSave()
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		return trace.String(), out.String(), save
	}
	tc := openCluster(t, clusterSetup{name: name, shards: shards, workers: workers, edit: edit})
	cg := tc.ch.g
	tc.steps(1, steps)
	save := tc.save()
	trace2, out2 := tc.finish()
	if calls := cg.plugins.Stats().Calls; calls == 0 {
		t.Error("no call reached the conductor's plugins")
	} else {
		t.Logf("%d calls on the conductor, %d requests, %d answers", calls, tc.c.Stats().Items[cluster.Request], tc.c.Stats().Items[cluster.Answer])
	}
	return trace2, out2, save
}
