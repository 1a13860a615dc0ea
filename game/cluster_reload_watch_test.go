package game

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestConductorWatch_watchesTheRunsFolderAfterGoingBackOverAReload: a
// conductor that goes back over a journaled reload opens a copy of the
// checkpoint's files, and its watcher watches the run's folder all the
// same: an edit made there while no watcher ran (the process lost), and
// one the watcher sees during the replay (held: a reload then would read
// the copy), are reloaded together at the step after the replayed reload,
// once the game reads the run's folder again; an edit made after the
// replay is seen and reloaded; one process that reloads them between the
// same steps writes the same trace, output and save.
func TestConductorWatch_watchesTheRunsFolderAfterGoingBackOverAReload(t *testing.T) {
	files := withReplaced(counterGame, "config.toml", "count = 2", "count = 6")
	config := writeGame(t, files)
	dir := filepath.Dir(config)
	const (
		back   = 1  // the checkpoint's step
		at     = 3  // the journaled reload (v2) follows it
		stale  = 4  // v3 (saved while no watcher ran) and the tree's edit (during the replay) are reloaded after it
		seen   = 6  // v4, saved after the replay, is reloaded after it
		steps  = 10 // the run's
		script = "ai/count.lua"
		tree   = "ai/c.xml"
	)
	save := func(name, text string) { t.Helper(); editorSave(t, dir, name, text) }
	version := func(v string) { save(script, strings.ReplaceAll(counterGame[script], "v1", v)) }
	param := func() {
		save(tree, strings.Replace(counterGame[tree], `<action id=".count" name="count"/>`, `<action id=".count" name="count"><parameter name="x">1</parameter></action>`, 1))
	}

	// One process, reloading the same versions after the same steps.
	wantTrace, wantOut, wantSave := soloReloads(t, config, steps, map[int]func() []string{
		at:    func() []string { version("v2"); return []string{script} },
		stale: func() []string { version("v3"); param(); return []string{tree, script} },
		seen:  func() []string { version("v4"); return []string{script} },
	})
	if !strings.Contains(wantOut, "v4 n=") || !strings.Contains(wantOut, "reload: ai/c.xml, ai/count.lua: 6 agents kept their place") {
		t.Fatalf("one process did not reload v3 and v4:\n%s", wantOut)
	}
	version("v1")
	save(tree, counterGame[tree])

	// The run lost during its reload of v2, after step at.
	stored := newStoredRun(t, config)
	first, c := stored.open(2)
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
	ins, _ := stored.journal.From(back)
	version("v3") // while no watcher runs

	// The conductor that goes back to the checkpoint, from its files.
	tc, c2, _ := stored.recover(2, checkpoint, first, trace, out)
	if err := c2.Watch(false); err != nil {
		t.Fatal(err)
	}
	defer tc.ch.g.stopWatching()
	if err := c2.Replay(ins); err != nil {
		t.Fatal(err)
	}
	if err := c2.Run(1); err != nil {
		t.Fatal(err)
	}
	param() // during the replay
	treePath, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(tree)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute) // a hang guard only: the test waits for the watcher's event
	for !slices.Contains(c2.stale, treePath) {
		if time.Now().After(deadline) {
			t.Fatal("the watcher saw no change of the run's folder during the replay in a minute")
		}
		if err := c2.BetweenSteps(); err != nil {
			t.Fatal(err)
		}
		if c2.Reloads() != 0 {
			t.Fatal("the conductor reloaded from its copy of the checkpoint's files what the watcher saw in the run's folder")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := c2.Run(seen - back - 1); err != nil {
		t.Fatal(err)
	}
	if c2.Reloads() != 2 {
		t.Fatalf("after the replay the conductor reloaded %d times, not twice (v2 replayed, v3 as the run's folder has it)", c2.Reloads())
	}
	version("v4")
	deadline = time.Now().Add(time.Minute) // a hang guard only: the test waits for the watcher's event
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
// after each step that edits names the files its edit changed: the trace,
// the output and the final save.
func soloReloads(t *testing.T, config string, steps int, edits map[int]func() []string) (string, string, []byte) {
	t.Helper()
	return soloEachStep(t, config, steps, func(g *Game, step int) {
		if edit := edits[step]; edit != nil && step < steps {
			if _, err := g.Reload(ReloadOptions{Changed: edit()}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
