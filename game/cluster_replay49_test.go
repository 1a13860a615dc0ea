package game

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// What a replay and a recovery open and apply (docs/cluster.md,
// "Reloads"): a reload asked for during a replay waits for its end; a
// recovery after a failed reload goes on with the files the run ran with;
// a file added while no conductor ran is reloaded once the replay is over.
// Each is held to one process that does the same between the same steps.

const (
	r49Back   = 2 // the checkpoint's step
	r49Signal = 3 // a journaled signal follows it
	r49Lost   = 4 // the step the lost link reached
	r49Steps  = 8
	r49Script = "ai/count.lua"
	r49Tree   = "ai/c.xml"
	r49Extra  = "ai/extra.lua"
)

// r49Game is the counter game with six agents, in a folder of its own.
func r49Game(t *testing.T) (config, dir string, save func(name, text string)) {
	t.Helper()
	files := map[string]string{}
	for k, v := range counterGame {
		files[k] = v
	}
	files["config.toml"] = strings.Replace(counterGame["config.toml"], "count = 2", "count = 6", 1)
	config = writeGame(t, files)
	dir = filepath.Dir(config)
	return config, dir, func(name, text string) { // as an editor saves
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.WriteFile(p+".new", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatal(err)
		}
	}
}

// r49Solo runs config in one process for r49Steps steps, calling after(g,
// step) after each: the trace, the output and the final save.
func r49Solo(t *testing.T, config string, after func(g *Game, step int)) (string, string, []byte) {
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
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	for step := 1; step <= r49Steps; step++ {
		if err := g.Run(1); err != nil {
			t.Fatal(err)
		}
		after(g, step)
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

// r49Run is a run's first link: the checkpoint of step r49Back (its save,
// and the trace and output written then), a signal journaled after step
// r49Signal, then the link lost after step r49Lost. reloadAt, when > 0,
// is a reload after that step (before the checkpoint's), with edit made
// first; it returns the conductor's FailedReload after it.
type r49Run struct {
	journal    cluster.MemJournal
	store      cluster.MemFiles
	man        *cluster.ReloadManifest
	programs   []PluginProgram
	shardFiles func() string
	checkpoint []byte
	trace, out string
	failed     *cluster.ReloadManifest // the checkpoint's FailedReload
}

var r49Ping = runtime.String("go")

func r49First(t *testing.T, config string, watch bool, reloadAt int, edit func()) *r49Run {
	t.Helper()
	r := &r49Run{}
	r.man, r.programs, r.shardFiles = storedFiles(t, config, &r.store)
	first := openCluster(t, clusterSetup{name: config, shards: 2, shardFiles: r.shardFiles, store: &r.store})
	c := first.conductor()
	c.SetJournal(&r.journal)
	c.SetFiles(&r.store)
	if watch {
		if err := c.Watch(false); err != nil {
			t.Fatal(err)
		}
		defer first.ch.g.stopWatching()
	}
	if reloadAt > 0 {
		if err := c.Run(reloadAt); err != nil {
			t.Fatal(err)
		}
		edit()
		if _, err := c.Reload(ReloadOptions{Changed: []string{r49Tree}}); !errors.Is(err, ErrReload) {
			t.Fatalf("the broken tree's reload: %v, want ErrReload", err)
		}
	}
	if err := c.Run(r49Back - reloadAt); err != nil {
		t.Fatalf("after the reload: %v", err)
	}
	r.failed = c.FailedReload()
	r.checkpoint = first.save()
	r.trace, r.out = first.trace.String(), first.out.String()
	if err := c.Run(r49Signal - r49Back); err != nil {
		t.Fatal(err)
	}
	if err := c.Signal("all", "Ping", r49Ping); err != nil {
		t.Fatal(err)
	}
	if err := c.Run(r49Lost - r49Signal); err != nil {
		t.Fatal(err)
	}
	first.stop()
	return r
}

// recover opens the next link from the checkpoint's files (as btrun run
// does: WriteCheckpointFiles, SetFilesCopy), watching the run's folder if
// watch, and replays the journal since the checkpoint, as after -resume:
// nothing carried, the step the lost link reached not known.
func (r *r49Run) recover(t *testing.T, config string, watch bool) (*testCluster, *Conductor) {
	t.Helper()
	home, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	copied, err := WriteCheckpointFiles(&r.store, r.man, r.programs, home, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tc := openCluster(t, clusterSetup{name: copied, shards: 2, shardFiles: r.shardFiles, store: &r.store})
	tc.load(r.checkpoint)
	tc.trace.Reset()
	tc.out.Reset()
	tc.trace.WriteString(r.trace)
	tc.out.WriteString(r.out)
	c := tc.conductor()
	c.SetJournal(&r.journal)
	c.SetFiles(&r.store)
	c.SetFilesCopy(home)
	if watch {
		if err := c.Watch(false); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tc.ch.g.stopWatching)
	}
	ins, err := r.journal.From(r49Back)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Replay(ins); err != nil {
		t.Fatal(err)
	}
	c.Recovered(SeenFiles(r.man, r.failed), nil, 0)
	c.RecoveredFailed(r.failed)
	return tc, c
}

// TestConductorReload_waitsForTheReplaysEnd: a reload asked for while the
// conductor replays its journal (the live view's Reload during a resumed
// run's replay, an inputs file's line the journal does not hold) would be
// journaled before the later inputs the journal holds, and applied to a
// run that the lost one was not. It waits: Reload answers a
// *ReloadWaitsError (an ErrReload) naming the replay's last step, and the
// reload is applied after that step, after the inputs replayed there,
// journaled after them, so that a second recovery replays both in order.
// A link lost before the replay's end gives the waiting reload to the
// next (WaitingReload, WaitReload). One process that reloads after that
// step writes the same trace, output and save.
func TestConductorReload_waitsForTheReplaysEnd(t *testing.T) {
	config, _, save := r49Game(t)
	v2 := func() { save(r49Script, strings.ReplaceAll(counterGame[r49Script], "v1", "v2")) }
	wantTrace, wantOut, wantSave := r49Solo(t, config, func(g *Game, step int) {
		if step != r49Signal {
			return
		}
		if err := g.Signal("all", "Ping", r49Ping); err != nil {
			t.Fatal(err)
		}
		v2()
		if _, err := g.Reload(ReloadOptions{Changed: []string{r49Script}}); err != nil {
			t.Fatal(err)
		}
	})
	if !strings.Contains(wantOut, "v2 n=") {
		t.Fatalf("one process did not reload v2:\n%s", wantOut)
	}
	save(r49Script, counterGame[r49Script])

	r := r49First(t, config, false, 0, nil)
	tc, c := r.recover(t, config, false)
	v2() // saved in the editor, the page's Reload pressed at the replay's first step
	_, err := c.Reload(ReloadOptions{Changed: []string{r49Script}})
	var waits *ReloadWaitsError
	if !errors.As(err, &waits) || !errors.Is(err, ErrReload) || waits.Until != r49Signal {
		t.Fatalf("a reload during the replay: %v, want a *ReloadWaitsError until step %d", err, r49Signal)
	}
	// A shard lost before the replay's end: the next link's conductor
	// is given the waiting reload, which waits for its replay in turn.
	waiting := c.WaitingReload()
	if waiting == nil || len(waiting.Changed) != 1 || waiting.Changed[0] != r49Script {
		t.Fatalf("the waiting reload is %+v, not the reload of %s", waiting, r49Script)
	}
	tc.stop()
	tc, c = r.recover(t, config, false)
	c.WaitReload(*waiting)
	if err := c.Run(r49Signal - r49Back); err != nil {
		t.Fatal(err)
	}
	if c.Reloads() != 0 {
		t.Fatalf("the reload was applied during the replay, before step %d", r49Signal)
	}
	if err := c.Run(1); err != nil {
		t.Fatal(err)
	}
	if c.Reloads() != 1 {
		t.Fatalf("after the replay the conductor reloaded %d times, not once", c.Reloads())
	}
	// Lost again: the journal holds the signal and the reload in the
	// order they apply.
	tc.stop()
	tc, c = r.recover(t, config, false)
	if err := c.Run(r49Steps - r49Back); err != nil {
		t.Fatal(err)
	}
	if c.Reloads() != 1 {
		t.Fatalf("the second recovery reloaded %d times, not once (the journaled reload)", c.Reloads())
	}
	tc.wantSolo("a reload asked for during the replay", wantTrace, wantOut, wantSave)
	save(r49Script, counterGame[r49Script])
}

// TestConductorWatch_aFailedReloadIsNotTriedAgainAfterARecovery: a
// reload of a broken tree fails (the run goes on with the tree it had),
// a checkpoint follows it, and the conductor is lost. The recovery opens
// the files the run ran with (the checkpoint's, never the run's folder,
// whose tree does not load), and its -watch, told what the failed reload
// read (FailedReload, SeenFiles), does not try the broken tree again: one
// process's watcher tried it once. The trace, output and save are one
// process's that tried the reload once after the same step.
func TestConductorWatch_aFailedReloadIsNotTriedAgainAfterARecovery(t *testing.T) {
	const reloadAt = 1
	config, _, save := r49Game(t)
	broken := strings.Replace(counterGame[r49Tree], "</sequence>", "<sequence>", 1)
	breakIt := func() { save(r49Tree, broken) }
	wantTrace, wantOut, wantSave := r49Solo(t, config, func(g *Game, step int) {
		switch step {
		case reloadAt:
			breakIt()
			if _, err := g.Reload(ReloadOptions{Changed: []string{r49Tree}}); !errors.Is(err, ErrReload) {
				t.Fatalf("one process's reload of the broken tree: %v", err)
			}
		case r49Signal:
			if err := g.Signal("all", "Ping", r49Ping); err != nil {
				t.Fatal(err)
			}
		}
	})
	if strings.Count(wantOut, "reload: ai/c.xml: not applied") != 1 {
		t.Fatalf("one process did not say once that the tree does not load:\n%s", wantOut)
	}
	save(r49Tree, counterGame[r49Tree])

	for _, watch := range []bool{false, true} {
		r := r49First(t, config, watch, reloadAt, breakIt)
		if r.failed == nil {
			t.Fatal("FailedReload is nil after a failed reload")
		}
		for _, f := range r.failed.Files {
			if f.Path == r49Tree && f.Hash != cluster.HashOf([]byte(broken)) {
				t.Fatalf("FailedReload names %s with the hash %s, not the broken tree's", f.Path, f.Hash)
			}
		}
		tc, c := r.recover(t, config, watch)
		if err := c.Run(r49Steps - r49Back); err != nil {
			t.Fatal(err)
		}
		if c.Reloads() != 0 {
			t.Errorf("watch %v: the recovery reloaded %d times: the broken tree was tried again", watch, c.Reloads())
		}
		if c.FailedReload() != r.failed {
			t.Errorf("watch %v: the recovered conductor's FailedReload is not the checkpoint's", watch)
		}
		tc.wantSolo("after a failed reload", wantTrace, wantOut, wantSave)
		save(r49Tree, counterGame[r49Tree])
	}
}

// TestConductorWatch_aScriptAddedWhileNoConductorRanIsReloaded: a new
// script is saved into a script folder while no conductor runs (the run
// stopped whole, then -resume). No checkpoint names it and no watcher saw
// it: once the replay is over (the journaled signal applied again), the
// conductor reloads it, as one process's watcher would have, journaled;
// one process that reloads it after that step writes the same trace,
// output and save.
func TestConductorWatch_aScriptAddedWhileNoConductorRanIsReloaded(t *testing.T) {
	config, dir, save := r49Game(t)
	extra := "local bt = require(\"bt\")\nbt.action(\"extra\", function(ctx) return bt.SUCCESS end)\n"
	wantTrace, wantOut, wantSave := r49Solo(t, config, func(g *Game, step int) {
		if step != r49Signal {
			return
		}
		if err := g.Signal("all", "Ping", r49Ping); err != nil {
			t.Fatal(err)
		}
		save(r49Extra, extra)
		if _, err := g.Reload(ReloadOptions{Changed: []string{r49Extra}}); err != nil {
			t.Fatal(err)
		}
	})
	if !strings.Contains(wantOut, "reload: "+r49Extra+":") {
		t.Fatalf("one process did not reload the new script:\n%s", wantOut)
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(r49Extra))); err != nil {
		t.Fatal(err)
	}

	r := r49First(t, config, true, 0, nil)
	save(r49Extra, extra) // while no conductor runs
	tc, c := r.recover(t, config, true)
	if err := c.Run(r49Signal - r49Back); err != nil {
		t.Fatal(err)
	}
	if c.Reloads() != 0 {
		t.Fatalf("the conductor reloaded during the replay, before step %d", r49Signal)
	}
	if err := c.Run(r49Steps - r49Signal); err != nil {
		t.Fatal(err)
	}
	if c.Reloads() != 1 {
		t.Fatalf("the new script was reloaded %d times, not once", c.Reloads())
	}
	tc.wantSolo("a script added while no conductor ran", wantTrace, wantOut, wantSave)
}

// TestConductorReload_afterTheReplayReadsTheRunsFolder: a recovery opens
// the checkpoint's files in a folder of their own; the replay over, a
// reload asked for before BetweenSteps (the live view's moment comes
// first) reads the run's folder, where the developer saved the edit, not
// that copy. One process that reloads the edit there writes the same
// trace, output and save.
func TestConductorReload_afterTheReplayReadsTheRunsFolder(t *testing.T) {
	config, _, save := r49Game(t)
	v2 := func() { save(r49Script, strings.ReplaceAll(counterGame[r49Script], "v1", "v2")) }
	wantTrace, wantOut, wantSave := r49Solo(t, config, func(g *Game, step int) {
		if step != r49Signal {
			return
		}
		if err := g.Signal("all", "Ping", r49Ping); err != nil {
			t.Fatal(err)
		}
		v2()
		if _, err := g.Reload(ReloadOptions{Changed: []string{r49Script}}); err != nil {
			t.Fatal(err)
		}
	})
	save(r49Script, counterGame[r49Script])
	r := r49First(t, config, false, 0, nil)
	tc, c := r.recover(t, config, false)
	if err := c.Run(r49Signal - r49Back); err != nil {
		t.Fatal(err)
	}
	v2()
	if _, err := c.Reload(ReloadOptions{Changed: []string{r49Script}}); err != nil {
		t.Fatalf("a reload after the replay: %v", err)
	}
	if err := c.Run(r49Steps - r49Signal); err != nil {
		t.Fatal(err)
	}
	tc.wantSolo("a reload after the replay", wantTrace, wantOut, wantSave)
	save(r49Script, counterGame[r49Script])
}
