package game

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
)

// reloadCase is a game, an edit of its files and the step after which it
// is reloaded.
type reloadCase struct {
	name  string
	files map[string]string
	edit  map[string]func(string) string // file -> its new text from its old
	at    int
	steps int
	// programs are executables copied into the game (its path there ->
	// the program's): plugins the config names by relative paths.
	programs map[string]string
}

// apply writes the case's edit into the game at dir.
func (rc reloadCase) apply(t *testing.T, dir string) []string {
	t.Helper()
	var changed []string
	for name, f := range rc.edit {
		editorSave(t, dir, name, f(rc.files[name]))
		changed = append(changed, name)
	}
	slices.Sort(changed)
	return changed
}

// undo writes the game's files back as they were.
func (rc reloadCase) undo(t *testing.T, dir string) {
	t.Helper()
	for name := range rc.edit {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(rc.files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// soloReload is the case's run in one process, reloading after step at:
// its trace, output and final save.
func soloReload(t *testing.T, config string, rc reloadCase) (string, string, []byte) {
	t.Helper()
	g, trace, out := openSolo(t, config)
	if err := g.Run(rc.at); err != nil {
		t.Fatal(err)
	}
	changed := rc.apply(t, filepath.Dir(config))
	defer rc.undo(t, filepath.Dir(config))
	if _, err := g.Reload(ReloadOptions{Changed: changed}); err != nil && !errors.Is(err, ErrReload) {
		t.Fatal(err)
	}
	if err := g.Run(rc.steps - rc.at); err != nil {
		t.Fatal(err)
	}
	save := endSolo(t, g)
	return trace.String(), out.String(), save
}

// reloadCases: a Lua action edited (memory kept), a rule renamed under
// running actions (restarts, the old cancel hook's lines), a gate's
// capacity shrunk under its holders and a holder's rule gone (gates carried
// by name, holds released), and files that do not load (nothing applied).
func reloadCases() []reloadCase {
	return append(fixedReloadCases(), fixtureReloadCases()...)
}

// fixtureReloadCases: a parallel's lane's rule renamed under agents that
// run it (restarts) and others that keep their lanes; a grafted tree
// edited under agents whose slot (in a lane) runs it.
func fixtureReloadCases() []reloadCase {
	lanes := fixtureFilesOf("parallel")
	lanes["config.toml"] = strings.Replace(lanes["config.toml"], "count = 3", "count = 5", 1)
	slots := fixtureFilesOf("slotlanes")
	slots["config.toml"] = strings.Replace(slots["config.toml"], "count = 2", "count = 5", 1)
	return []reloadCase{
		{name: "lanes", files: lanes, at: 9, steps: 24, edit: map[string]func(string) string{
			"ai/scout.xml": func(s string) string { return strings.Replace(s, `id=".walk"`, `id=".stroll"`, 1) },
			"ai/scout.lua": func(s string) string {
				return strings.NewReplacer(`ctx:log("walk stopped after "`, `ctx:log("v2 walk stopped after "`,
					`ctx:jump("patrol.walk")`, `ctx:jump("patrol.stroll")`).Replace(s)
			},
		}},
		{name: "slots", files: slots, at: 3, steps: 12, edit: map[string]func(string) string{
			"ai/obj.xml": func(s string) string { return strings.Replace(s, `id=".hold"`, `id=".hold2"`, 1) },
		}},
	}
}

// fixtureFilesOf is fixtureFiles without a test (the cases are made
// before it).
func fixtureFilesOf(name string) map[string]string {
	dir := filepath.Join("..", "tests", "testdata", "fixtures", name)
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	return files
}

func fixedReloadCases() []reloadCase {
	aim := withReplaced(aimGame, "config.toml", "count = 2", "count = 7")
	count := withReplaced(counterGame, "config.toml", "count = 2", "count = 6")
	// the old cancel hook sends a signal
	aimSends := withReplaced(aim, "ai/aim.lua", `ctx:log("v1 cancel`, `ctx:send("a-1", "Aborted", {by = ctx.id}); ctx:log("v1 cancel`)
	post := withReplaced(postGame, "config.toml", "count = 3", "count = 7")
	return []reloadCase{
		{name: "lua edited", files: count, at: 3, steps: 8, edit: map[string]func(string) string{
			"ai/count.lua": func(s string) string { return strings.ReplaceAll(s, "v1", "v2") },
		}},
		{name: "cancel sends", files: aimSends, at: 2, steps: 6, edit: map[string]func(string) string{
			"ai/a.xml": func(s string) string { return strings.Replace(s, `id=".aim"`, `id=".aim2"`, 1) },
		}},
		{name: "rule renamed", files: aim, at: 2, steps: 6, edit: map[string]func(string) string{
			"ai/a.xml":   func(s string) string { return strings.Replace(s, `id=".aim"`, `id=".aim2"`, 1) },
			"ai/aim.lua": func(s string) string { return strings.ReplaceAll(s, "v1", "v2") },
		}},
		{name: "gates", files: post, at: 4, steps: 9, edit: map[string]func(string) string{
			"g.xml": func(s string) string {
				return strings.Replace(strings.Replace(s, `users="2"`, `users="1"`, 1), `id=".stand"`, `id=".stand2"`, 1)
			},
		}},
		{name: "broken", files: count, at: 2, steps: 5, edit: map[string]func(string) string{
			"ai/c.xml":     func(s string) string { return strings.Replace(s, "<action ", "<actoin ", 1) },
			"ai/count.lua": func(s string) string { return s + "\nbt.action(\n" },
		}},
	}
}

// TestConductorReload_isOneProcesssReload: a reload between two steps of a
// cluster's run (Conductor.Reload, journaled) on 1, 2 and 3 shards of 2
// workers gives the trace, output and final save of one process that
// reloads the same files between the same steps; a reload whose files do
// not load changes nothing anywhere and prints what one process prints.
func TestConductorReload_isOneProcesssReload(t *testing.T) {
	for _, rc := range reloadCases() {
		config := writeGame(t, rc.files)
		dir := filepath.Dir(config)
		wantTrace, wantOut, wantSave := soloReload(t, config, rc)
		if !strings.Contains(wantOut, "reload: ") {
			t.Fatalf("%s: one process's output has no reload line:\n%s", rc.name, wantOut)
		}
		// 4: two shards, the conductor holding copies (as with a live view).
		for _, shards := range []int{1, 2, 3, 4} {
			copies := shards == 4
			if copies {
				shards = 2
			}
			label := fmt.Sprintf("%s, %d shards, copies %v", rc.name, shards, copies)
			tc := openCluster(t, clusterSetup{name: config, shards: shards, workers: 2, copies: copies})
			c := tc.conductor()
			var journal cluster.MemJournal
			var files cluster.MemFiles
			c.SetJournal(&journal)
			c.SetFiles(&files)
			if err := c.Run(rc.at); err != nil {
				t.Fatal(err)
			}
			changed := rc.apply(t, dir)
			_, err := c.Reload(ReloadOptions{Changed: changed})
			if rc.name == "broken" {
				if !errors.Is(err, ErrReload) || !strings.Contains(err.Error(), "ai/c.xml:4:5: unknown tag <actoin>") || !strings.Contains(err.Error(), "ai/count.lua:") {
					t.Errorf("%s: %v, want ErrReload naming the files and lines", label, err)
				}
			} else if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			if held := tc.ch.g.Agents(); !copies && len(held) != 0 { // cluster_reload_copies.go: made for the reload only
				t.Errorf("%s: the conductor holds %d agents after the reload, want none", label, len(held))
			}
			if ins, _ := journal.From(0); len(ins) != 1 || ins[0].Kind != cluster.InputReload || ins[0].Step != uint64(rc.at) {
				t.Errorf("%s: journaled %+v, want the reload after step %d", label, ins, rc.at)
			}
			if err := c.Run(rc.steps - rc.at); err != nil {
				t.Fatal(err)
			}
			tc.wantSolo(label, wantTrace, wantOut, wantSave)
			tc.stop()
			rc.undo(t, dir)
		}
	}
}

// TestConductorWatch_reloadsTheCluster: a conductor that watches the
// game's files (Game.Watch on the conductor's game) reloads the whole
// cluster between two steps when one changes: the run between the steps
// the change was seen is one process's that reloads there (the test holds
// the run between two steps until the watcher's batch arrives).
func TestConductorWatch_reloadsTheCluster(t *testing.T) {
	rc := reloadCases()[0]
	config := writeGame(t, rc.files)
	wantTrace, wantOut, wantSave := soloReload(t, config, rc)
	tc := openCluster(t, clusterSetup{name: config, shards: 2, workers: 2})
	c := tc.conductor()
	if err := tc.ch.g.Watch(); err != nil {
		t.Fatal(err)
	}
	defer tc.ch.g.stopWatching()
	if err := c.Run(rc.at); err != nil {
		t.Fatal(err)
	}
	rc.apply(t, filepath.Dir(config))
	defer rc.undo(t, filepath.Dir(config))
	deadline := time.Now().Add(time.Minute) // a hang guard only: the test waits for the watcher's event
	for c.Reloads() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the watcher saw no change in a minute")
		}
		if err := c.BetweenSteps(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := c.Run(rc.steps - rc.at); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tc.save(), wantSave) {
		t.Error("the final save differs from one process's")
	}
	trace, out := tc.finish()
	if trace != wantTrace {
		t.Errorf("trace differs:\n%s", lineDiff(trace, wantTrace))
	}
	if !strings.Contains(out, "watching ") {
		t.Errorf("the conductor did not say it watches:\n%s", out)
	}
	if out = withoutLines(out, "watching "); out != wantOut {
		t.Errorf("output differs:\n%s", lineDiff(out, wantOut))
	}
}

// withoutLines is text without the lines that hold part.
func withoutLines(text, part string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if !strings.Contains(l, part) {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestConductorReload_replaysFromTheJournal: a run that goes back to a
// checkpoint before a reload (a lost shard's, with the game opened from
// the files of the checkpoint) applies the journaled reload again after
// its step, from the files it names: the trace, output and save are one
// process's. A replay whose files are no longer those the reload read is
// an error naming the file, before anything changes.
func TestConductorReload_replaysFromTheJournal(t *testing.T) {
	for _, rc := range reloadCases() {
		if rc.name == "rule renamed" || rc.name == "cancel sends" { // restarts, the old cancel hooks (their signals)
			t.Run(rc.name, func(t *testing.T) { testReplayedReload(t, rc) })
		}
	}
}

func testReplayedReload(t *testing.T, rc reloadCase) {
	config := writeGame(t, rc.files)
	dir := filepath.Dir(config)
	wantTrace, wantOut, wantSave := soloReload(t, config, rc)
	const back = 1 // the checkpoint's step, before the reload's
	var journal cluster.MemJournal
	var files cluster.MemFiles
	first := openCluster(t, clusterSetup{name: config, shards: 2})
	c := first.conductor()
	c.SetJournal(&journal)
	c.SetFiles(&files)
	if err := c.Run(back); err != nil {
		t.Fatal(err)
	}
	checkpoint := first.save()
	trace, out := first.trace.Len(), first.out.Len()
	if err := c.Run(rc.at - back); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Reload(ReloadOptions{Changed: rc.apply(t, dir)}); err != nil {
		t.Fatal(err)
	}
	first.stop()
	if files.Puts == 0 {
		t.Error("the reload stored no file")
	}
	ins, _ := journal.From(back)

	replay := func(label string, edit func()) (*testCluster, error) {
		rc.undo(t, dir) // the game is opened from the checkpoint's files
		tc := openCluster(t, clusterSetup{name: config, shards: 3})
		tc.load(checkpoint)
		tc.wroteAs(first, trace, out)
		edit()
		rc2 := tc.conductor()
		rc2.SetJournal(&journal)
		rc2.SetFiles(&files)
		if err := rc2.Replay(ins); err != nil {
			t.Fatal(err)
		}
		return tc, rc2.Run(rc.steps - back)
	}
	tc, err := replay("replayed", func() { rc.apply(t, dir) })
	if err != nil {
		t.Fatal(err)
	}
	tc.wantSolo("replayed", wantTrace, wantOut, wantSave)
	tc.stop()

	tc, err = replay("files changed", func() {
		rc.apply(t, dir)
		os.WriteFile(filepath.Join(dir, "ai", "aim.lua"), []byte("-- edited again\n"), 0o644)
	})
	if err == nil || !strings.Contains(err.Error(), "ai/aim.lua is not the file it reloaded") {
		t.Errorf("a replay from other files: %v", err)
	}
	tc.stop()
	rc.undo(t, dir)
}
