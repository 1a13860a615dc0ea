package game

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// TestConductorWatch_anEditIsNotLostWithAShard: the watcher saw a script
// edited and a new script added, and a shard is lost before the batch is
// reloaded (no reload since the checkpoint). The next link's conductor is
// told the checkpoint's files and the lost watcher's paths (Recovered):
// it replays the journal (a signal after step 3), then reloads both at
// the step after the replay, journaled; one process that reloads them
// there writes the same trace, output and save. A second loss after that
// reload replays it from the journal at the same step.
func TestConductorWatch_anEditIsNotLostWithAShard(t *testing.T) {
	files := map[string]string{}
	for k, v := range counterGame {
		files[k] = v
	}
	files["config.toml"] = strings.Replace(counterGame["config.toml"], "count = 2", "count = 6", 1)
	config := writeGame(t, files)
	dir := filepath.Dir(config)
	const (
		back   = 2 // the checkpoint's step
		signal = 3 // a journaled signal follows it: the replay's end
		lost   = 4 // the shard lost after it, the watcher's batch not reloaded
		steps  = 8
		script = "ai/count.lua"
		extra  = "ai/extra.lua" // a new script: no checkpoint names it
	)
	save := func(name, text string) { // as an editor saves
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.WriteFile(p+".new", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatal(err)
		}
	}
	edit := func() {
		save(script, strings.ReplaceAll(counterGame[script], "v1", "v2"))
		save(extra, "local bt = require(\"bt\")\nbt.action(\"extra\", function(ctx) return bt.SUCCESS end)\n")
	}
	ping := runtime.String("go")

	// One process: the signal after step 3, then the reload.
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var soloTrace, soloOut bytes.Buffer
	g, err := Open(cfg, Options{TraceTo: &soloTrace, Stdout: &soloOut, Stderr: &soloOut})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	for step := 1; step <= steps; step++ {
		if err := g.Run(1); err != nil {
			t.Fatal(err)
		}
		if step == signal {
			if err := g.Signal("all", "Ping", ping); err != nil {
				t.Fatal(err)
			}
			edit()
			if _, err := g.Reload(ReloadOptions{Changed: []string{script, extra}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	wantSave, err := g.encodeSave()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	wantTrace, wantOut := soloTrace.String(), soloOut.String()
	if !strings.Contains(wantOut, "v2 n=") || !strings.Contains(wantOut, "reload: ai/count.lua, ai/extra.lua") {
		t.Fatalf("one process did not reload the edit:\n%s", wantOut)
	}
	save(script, counterGame[script])
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(extra))); err != nil {
		t.Fatal(err)
	}

	// The first link, watching: the edit is seen, and a shard lost before
	// the batch is reloaded.
	var journal cluster.MemJournal
	var store cluster.MemFiles
	man, programs := storeFiles(t, config, &store)
	shardFiles := func() string {
		p, err := WriteStoredFiles(&store, man, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := openCluster(t, clusterSetup{name: config, shards: 2, shardFiles: shardFiles, store: &store})
	c := first.conductor()
	c.SetJournal(&journal)
	c.SetFiles(&store)
	if err := c.Watch(false); err != nil {
		t.Fatal(err)
	}
	defer first.ch.g.stopWatching()
	if err := c.Run(back); err != nil {
		t.Fatal(err)
	}
	checkpoint := first.save()
	trace, out := first.trace.Len(), first.out.Len()
	if err := c.Run(signal - back); err != nil {
		t.Fatal(err)
	}
	if err := c.Signal("all", "Ping", ping); err != nil {
		t.Fatal(err)
	}
	if err := c.Run(lost - signal); err != nil {
		t.Fatal(err)
	}
	edit()
	want := make([]string, 0, 2)
	for _, name := range []string{script, extra} { // sorted, as the watcher reports them
		p, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, p)
	}
	var held []string
	deadline := time.Now().Add(time.Minute) // a hang guard only: the test waits for the watcher's batch
	for !slices.Equal(held, want) {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher saw %q in a minute, not %q", held, want)
		}
		time.Sleep(5 * time.Millisecond)
		held = c.Unreloaded()
	}
	if c.Reloads() != 0 {
		t.Fatal("the first link reloaded")
	}
	first.stop()

	// The next link, from the checkpoint's files (as btrun run opens them
	// with -watch), told what the lost one held.
	home, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	recover := func(checkpoint []byte, trace, out string, from uint64, held []string) (*testCluster, *Conductor) {
		t.Helper()
		copied, err := WriteCheckpointFiles(&store, man, programs, home, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		tc := openCluster(t, clusterSetup{name: copied, shards: 2, shardFiles: shardFiles, store: &store})
		tc.load(checkpoint)
		tc.trace.Reset()
		tc.out.Reset()
		tc.trace.WriteString(trace)
		tc.out.WriteString(out)
		c := tc.conductor()
		c.SetJournal(&journal)
		c.SetFiles(&store)
		c.SetFilesCopy(home)
		if err := c.Watch(false); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tc.ch.g.stopWatching)
		ins, err := journal.From(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Replay(ins); err != nil {
			t.Fatal(err)
		}
		c.Recovered(man, held)
		return tc, c
	}
	tc, c2 := recover(checkpoint, first.trace.String()[:trace], first.out.String()[:out], back, held)
	if err := c2.Run(signal - back); err != nil {
		t.Fatal(err)
	}
	if c2.Reloads() != 0 {
		t.Fatal("the conductor reloaded during the replay, before the journaled signal")
	}
	if err := c2.Run(1); err != nil {
		t.Fatal(err)
	}
	if c2.Reloads() != 1 {
		t.Fatalf("after the replay the conductor reloaded %d times, not once", c2.Reloads())
	}
	// Lost again after the reload: its replay from the journal is at the
	// same step (no watcher's paths held now: the files are the reload's).
	tc.stop()
	tc2, c3 := recover(checkpoint, first.trace.String()[:trace], first.out.String()[:out], back, nil)
	if err := c3.Run(steps - back); err != nil {
		t.Fatal(err)
	}
	if c3.Reloads() != 1 {
		t.Fatalf("the second recovery reloaded %d times, not once (the journaled reload)", c3.Reloads())
	}
	tc2.wantSolo("an edit the lost watcher saw, reloaded after the replay", wantTrace, wantOut, wantSave)
}
