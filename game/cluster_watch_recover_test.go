package game

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/runtime"
)

// TestConductorWatch_anEditIsNotLostOverARecovery: the watcher saw a
// script edited and a new script added, and the link is lost before the
// batch is reloaded (no reload since the checkpoint, a signal journaled
// after it). The next link's conductor opens the checkpoint's files and is
// told which they are (Recovered): once its replay is over it reloads what
// differs in the run's folder, journaled, and one process that reloads
// there writes the same trace, output and save.
//
//   - a shard lost: the conductor lives and carries its watcher's paths
//     (the new script, which no checkpoint names, too) and the step the
//     lost link reached, after which the reload comes (the replay writes
//     again what the lost link wrote); lost again after that reload, the
//     run replays it from the journal at the same step;
//   - a conductor lost (-resume): nothing is carried; the edited script
//     differs from the checkpoint's, and the new script is one no
//     checkpoint names in a script folder (cluster_watch_added.go): both
//     are reloaded after the journaled signal, the replay's end.
func TestConductorWatch_anEditIsNotLostOverARecovery(t *testing.T) {
	const (
		signal = 3 // a journaled signal after it
		lost   = 4 // the step the lost link reached
	)
	t.Run("a shard lost", func(t *testing.T) {
		testEditNotLost(t, lost, true, []string{"ai/count.lua", "ai/extra.lua"})
	})
	t.Run("the conductor lost", func(t *testing.T) {
		testEditNotLost(t, signal, false, []string{"ai/count.lua", "ai/extra.lua"})
	})
}

// testEditNotLost: the reload after step at, of changed; carried: the
// lost conductor's watcher's paths and step are carried (a shard lost).
func testEditNotLost(t *testing.T, at int, carried bool, changed []string) {
	const (
		back   = 2 // the checkpoint's step
		signal = 3 // a journaled signal follows it
		lost   = 4 // the step the lost link reached, the watcher's batch not reloaded
		steps  = 8
		script = "ai/count.lua"
		extra  = "ai/extra.lua" // a new script: no checkpoint names it
	)
	files := withReplaced(counterGame, "config.toml", "count = 2", "count = 6")
	config := writeGame(t, files)
	dir := filepath.Dir(config)
	save := func(name, text string) { t.Helper(); editorSave(t, dir, name, text) }
	edit := func() {
		save(script, strings.ReplaceAll(counterGame[script], "v1", "v2"))
		save(extra, "local bt = require(\"bt\")\nbt.action(\"extra\", function(ctx) return bt.SUCCESS end)\n")
	}
	ping := runtime.String("go")

	// One process: the signal after step 3, the reload after step at.
	wantTrace, wantOut, wantSave := soloEachStep(t, config, steps, func(g *Game, step int) {
		if step == signal {
			if err := g.Signal("all", "Ping", ping); err != nil {
				t.Fatal(err)
			}
		}
		if step == at {
			edit()
			if _, err := g.Reload(ReloadOptions{Changed: changed}); err != nil {
				t.Fatal(err)
			}
		}
	})
	if !strings.Contains(wantOut, "v2 n=") || !strings.Contains(wantOut, "reload: "+strings.Join(changed, ", ")+":") {
		t.Fatalf("one process did not reload the edit:\n%s", wantOut)
	}
	save(script, counterGame[script])
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(extra))); err != nil {
		t.Fatal(err)
	}

	// The first link, watching: the edit is seen, and the link lost before
	// the batch is reloaded.
	stored := newStoredRun(t, config)
	first, c := stored.open(2)
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
	to := c.Step()
	first.stop()
	if !carried {
		held, to = nil, 0
	}

	// The next link, from the checkpoint's files (as btrun run opens them
	// with -watch).
	recover := func(held []string, to uint64) (*testCluster, *Conductor) {
		t.Helper()
		tc, c, _ := stored.recover(2, checkpoint, first, trace, out)
		if err := c.Watch(false); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tc.ch.g.stopWatching)
		ins, err := stored.journal.From(back)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Replay(ins); err != nil {
			t.Fatal(err)
		}
		c.Recovered(stored.man, held, to)
		return tc, c
	}
	tc, c2 := recover(held, to)
	if err := c2.Run(at - back); err != nil {
		t.Fatal(err)
	}
	if c2.Reloads() != 0 {
		t.Fatalf("the conductor reloaded during the replay, before step %d", at)
	}
	if err := c2.Run(1); err != nil {
		t.Fatal(err)
	}
	if c2.Reloads() != 1 {
		t.Fatalf("after the replay the conductor reloaded %d times, not once", c2.Reloads())
	}
	if carried {
		// Lost again after the reload: its replay from the journal is at
		// the same step (nothing held now: the files are the reload's).
		tc.stop()
		tc, c2 = recover(nil, 0)
		if err := c2.Run(at + 1 - back); err != nil {
			t.Fatal(err)
		}
		if c2.Reloads() != 1 {
			t.Fatalf("the second recovery reloaded %d times, not once (the journaled reload)", c2.Reloads())
		}
	}
	if err := c2.Run(steps - at - 1); err != nil {
		t.Fatal(err)
	}
	tc.wantSolo("an edit the lost link had not reloaded", wantTrace, wantOut, wantSave)
}
