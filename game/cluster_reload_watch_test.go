package game

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
)

// TestConductorWatch_watchesTheRunsFolderAfterGoingBackOverAReload: a
// conductor that goes back over a journaled reload opens a copy of the
// checkpoint's files, and its watcher watches the run's folder all the
// same: an edit made there while no watcher ran (the process lost) is
// reloaded at the step after the replayed reload, once the game reads the
// run's folder again, and an edit made after the replay is seen and
// reloaded, as one process reloads them between the same steps: the
// trace, output and save are one process's.
func TestConductorWatch_watchesTheRunsFolderAfterGoingBackOverAReload(t *testing.T) {
	files := map[string]string{}
	for k, v := range counterGame {
		files[k] = v
	}
	files["config.toml"] = strings.Replace(counterGame["config.toml"], "count = 2", "count = 6", 1)
	config := writeGame(t, files)
	dir := filepath.Dir(config)
	version := func(v string) { // count.lua's version v, saved as an editor saves
		t.Helper()
		p := filepath.Join(dir, "ai", "count.lua")
		if err := os.WriteFile(p+".new", []byte(strings.ReplaceAll(counterGame["ai/count.lua"], "v1", v)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatal(err)
		}
	}
	const (
		back   = 1  // the checkpoint's step
		at     = 3  // the journaled reload (v2) follows it
		stale  = 4  // v3, saved while no watcher ran, is reloaded after it
		seen   = 6  // v4, saved after the replay, is reloaded after it
		steps  = 10 // the run's
		script = "ai/count.lua"
	)

	// One process, reloading the same versions after the same steps.
	wantTrace, wantOut, wantSave := soloReloads(t, config, steps, map[int]func(){
		at: func() { version("v2") }, stale: func() { version("v3") }, seen: func() { version("v4") },
	}, script)
	if !strings.Contains(wantOut, "v4 n=") {
		t.Fatalf("one process did not reload v4:\n%s", wantOut)
	}
	version("v1")

	// The run lost during its reload of v2, after step at.
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
	if err := c.Run(back); err != nil {
		t.Fatal(err)
	}
	checkpoint := first.save()
	trace, out := first.trace.Len(), first.out.Len()
	if err := c.Run(at - back); err != nil {
		t.Fatal(err)
	}
	version("v2")
	if _, err := c.Reload(ReloadOptions{Changed: []string{script}}); err != nil {
		t.Fatal(err)
	}
	first.stop()
	ins, _ := journal.From(back)
	version("v3") // while no watcher runs

	// The conductor that goes back to the checkpoint, from its files.
	home, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	copied, err := WriteCheckpointFiles(&store, man, programs, home, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tc := openCluster(t, clusterSetup{name: copied, shards: 2, shardFiles: shardFiles, store: &store})
	tc.load(checkpoint)
	tc.trace.Reset()
	tc.out.Reset()
	tc.trace.WriteString(first.trace.String()[:trace])
	tc.out.WriteString(first.out.String()[:out])
	c2 := tc.conductor()
	c2.SetJournal(&journal)
	c2.SetFiles(&store)
	c2.SetFilesCopy(home)
	if err := c2.Watch(false); err != nil {
		t.Fatal(err)
	}
	defer tc.ch.g.stopWatching()
	if err := c2.Replay(ins); err != nil {
		t.Fatal(err)
	}
	if err := c2.Run(seen - back); err != nil {
		t.Fatal(err)
	}
	if c2.Reloads() != 2 {
		t.Fatalf("after the replay the conductor reloaded %d times, not twice (v2 replayed, v3 as the run's folder has it)", c2.Reloads())
	}
	version("v4")
	deadline := time.Now().Add(time.Minute) // a hang guard only: the test waits for the watcher's event
	for c2.Reloads() == 2 {
		if time.Now().After(deadline) {
			t.Fatal("the watcher saw no change of the run's folder in a minute")
		}
		if err := c2.BetweenSteps(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := c2.Run(steps - seen); err != nil {
		t.Fatal(err)
	}
	tc.wantSolo("watched after going back over a reload", wantTrace, wantOut, wantSave)
}

// soloReloads is config's run in one process for steps steps, reloading
// changed after each step that edits names (after calling its edit): the
// trace, the output and the final save.
func soloReloads(t *testing.T, config string, steps int, edits map[int]func(), changed string) (string, string, []byte) {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var trace, out bytes.Buffer
	g, err := Open(cfg, Options{TraceTo: &trace, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
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
		if edit := edits[step]; edit != nil && step < steps {
			edit()
			if _, err := g.Reload(ReloadOptions{Changed: []string{changed}}); err != nil {
				t.Fatal(err)
			}
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
