package tests

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// replayGame writes reloadGame, its edits and inputs into a new folder,
// with checkpoints every 20 steps and the extra files given: the folder
// and its config.
func replayGame(t *testing.T, extra map[string]string) (dir, config string) {
	t.Helper()
	dir = t.TempDir()
	writeReloadGame(t, dir)
	config = filepath.Join(dir, "config.toml")
	extra["config.toml"] = strings.Replace(reloadGame["config.toml"], "checkpoint_every = 100", "checkpoint_every = 20", 1)
	for name, text := range extra {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, config
}

// TestCluster_recoversAfterAFailedReload: an inputs file's reload of a
// broken tree fails after step 12 (the run goes on with the tree it had,
// and the run's folder keeps the broken one); the checkpoint of step 20
// follows. A shard killed at step 30, and a conductor killed there and
// resumed, go back to that checkpoint and open the files the run ran
// with, not the run's folder (which does not load): the trace and the
// save are one process's.
func TestCluster_recoversAfterAFailedReload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	broken := map[string]string{
		"edits/g-broken.xml": strings.Replace(reloadGame["ai/g.xml"], "</choice>", "", 1),
		"failed-inputs.txt":  "12 reload ai/g.xml edits/g-broken.xml\n",
	}
	const failedLine = "reload: ai/g.xml: not applied"
	dir, config := replayGame(t, broken)
	inputs := filepath.Join(dir, "failed-inputs.txt")
	one := run(t, "", "run", "-config", config, "-inputs", inputs, "-trace", filepath.Join(dir, "one.jsonl"), "-save", filepath.Join(dir, "one.sav"))
	if one.code != 0 || !strings.Contains(one.stdout, failedLine) {
		t.Fatalf("one process: exit %d, no failed reload: %s%s", one.code, one.stdout, one.stderr)
	}
	trace, _ := os.ReadFile(filepath.Join(dir, "one.jsonl"))
	save, _ := os.ReadFile(filepath.Join(dir, "one.sav"))
	for _, c := range []struct{ tag, fault, back string }{
		{"shard", "shard1:report:30", "going back to the checkpoint of step 20 and replaying"},
		{"conductor", "conductor:step:30", "resuming run failedreload-conductor from its checkpoint at step 20"},
	} {
		dir, config := replayGame(t, broken) // the files as they were before the reload
		args := []string{"run", "-shards", "2", "-name", "failedreload-" + c.tag, "-config", config, "-inputs", filepath.Join(dir, "failed-inputs.txt"),
			"-trace", filepath.Join(dir, c.tag+".jsonl"), "-save", filepath.Join(dir, c.tag+".sav")}
		r := runFault(t, c.fault, args...)
		if c.tag == "conductor" {
			if r.code == 0 {
				t.Fatalf("%s: the conductor was not killed", c.tag)
			}
			r = run(t, "", append(args, "-resume")...)
		}
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", c.tag, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, c.back) {
			t.Errorf("%s: %q lacks %q", c.tag, r.stderr, c.back)
		}
		if c.tag == "shard" && beforeSummary(r.stdout) != beforeSummary(one.stdout) {
			t.Errorf("%s: the output differs from one process's:\n%s\n----\n%s", c.tag, r.stdout, one.stdout)
		}
		sameFiles(t, c.tag, dir, trace, save)
	}
}

// TestCluster_watchReloadsAScriptAddedWhileNoConductorRan: `btrun run
// -shards 2 -watch` whose conductor is killed at step 30, a new script
// saved into the script folder while no conductor runs, then `-resume
// -watch`: no checkpoint names the script and no watcher saw it, and the
// resumed run reloads it once its replay is over (after the checkpoint's
// step 20: nothing was journaled after it). The trace and save are those
// of one process whose inputs add the script after step 20.
func TestCluster_watchReloadsAScriptAddedWhileNoConductorRan(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	const (
		script     = "local bt = require(\"bt\")\nbt.action(\"extra\", function(ctx) return bt.SUCCESS end)\n"
		reloadLine = "reload: ai/extra.lua:"
	)
	dir, config := replayGame(t, map[string]string{"edits/extra.lua": script, "one-inputs.txt": "20 reload ai/extra.lua edits/extra.lua\n"})
	one := run(t, "", "run", "-config", config, "-inputs", filepath.Join(dir, "one-inputs.txt"),
		"-trace", filepath.Join(dir, "one.jsonl"), "-save", filepath.Join(dir, "one.sav"))
	if one.code != 0 || !strings.Contains(one.stdout, reloadLine) {
		t.Fatalf("one process: exit %d, no reload of the new script: %s%s", one.code, one.stdout, one.stderr)
	}
	trace, _ := os.ReadFile(filepath.Join(dir, "one.jsonl"))
	save, _ := os.ReadFile(filepath.Join(dir, "one.sav"))

	dir, config = replayGame(t, map[string]string{})
	args := []string{"run", "-shards", "2", "-watch", "-name", "addedscript", "-config", config,
		"-trace", filepath.Join(dir, "run.jsonl"), "-save", filepath.Join(dir, "run.sav")}
	if r := runFault(t, "conductor:step:30", args...); r.code == 0 {
		t.Fatal("the conductor was not killed")
	}
	if err := os.WriteFile(filepath.Join(dir, "ai", "extra.lua"), []byte(script), 0o644); err != nil { // while no conductor runs
		t.Fatal(err)
	}
	r := run(t, "", append(args, "-resume")...)
	if r.code != 0 {
		t.Fatalf("resumed: exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, reloadLine); n != 1 {
		t.Errorf("the resumed run reloaded the new script %d times, not once:\n%s", n, r.stdout)
	}
	sameFiles(t, "run", dir, trace, save)
}

// TestCluster_pageReloadDuringAResumedReplayWaits: a conductor killed at
// step 25, after the page's jump after step 12 (journaled), is resumed
// with -debug: its page shows the replay from the checkpoint of step 0 on.
// The developer saves an edit and presses Reload at step 0, while the run
// replays the journal: the reload is not applied among the lost run's
// inputs (journaled before the jump it would come after a later replay
// would meet the two out of order); the page is told that it waits for
// the replay's end, after step 12, where it is applied once, after the
// jump. The trace and the save are one process's whose page jumps and
// reloads after step 12.
func TestCluster_pageReloadDuringAResumedReplayWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := t.TempDir()
	out := t.TempDir()
	config := filepath.Join(dir, "config.toml")
	args := func(tag string) []string {
		return []string{"run", "-config", config, "-steps", "40", "-debug", "127.0.0.1:0", "-paused",
			"-trace", filepath.Join(out, tag+".jsonl"), "-save", filepath.Join(out, tag+".sav")}
	}
	editAim := func() {
		if err := os.WriteFile(filepath.Join(dir, "ai", "aim.lua"), []byte(reloadEdits["edits/aim-v2.lua"]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const reloadLine = "reload: 9 agents kept their place"
	ok := func(r *liveRun, method, path, body string) {
		t.Helper()
		if code, b := r.call(method, path, body); code != http.StatusOK {
			t.Fatalf("%s %s: %d %s\n%s", method, path, code, b, r.all.String())
		}
	}
	writeReloadGame(t, dir)
	one := startLiveRun(t, args("one")...)
	ok(one, "POST", "/api/step", `{"steps":12}`)
	ok(one, "POST", "/api/agents/g-2/jump", `{"rule":"idle"}`)
	editAim()
	ok(one, "POST", "/api/reload", "")
	ok(one, "POST", "/api/step", `{"steps":28}`)
	one.quit()
	if !strings.Contains(one.all.String(), reloadLine) || !strings.Contains(one.all.String(), "v2 ") {
		t.Fatalf("one process did not reload aim.lua: the test shows nothing\n%s", one.all.String())
	}
	trace, _ := os.ReadFile(filepath.Join(out, "one.jsonl"))
	save, _ := os.ReadFile(filepath.Join(out, "one.sav"))

	writeReloadGame(t, dir) // the files as they were
	a := append(args("held"), "-shards", "2", "-name", "page-held")
	first := startLiveRunEnv(t, []string{"BTRUN_TEST_FAULT=conductor:step:25"}, a...)
	ok(first, "POST", "/api/step", `{"steps":12}`)
	ok(first, "POST", "/api/agents/g-2/jump", `{"rule":"idle"}`)
	first.try("POST", "/api/step", `{"steps":20}`) // the conductor is killed before step 25
	select {
	case <-first.done:
	case <-time.After(2 * time.Minute): // a hang guard only
		t.Fatal("the conductor was not killed")
	}
	res := startLiveRun(t, append(a, "-resume")...)
	if at := res.backAt(); at != 0 {
		t.Fatalf("the resumed run's live view is at step %d, want 0", at)
	}
	editAim()
	code, b := res.call("POST", "/api/reload", "")
	if code == http.StatusOK || !strings.Contains(string(b), "the reload waits, and applies after that step") || !strings.Contains(string(b), "up to step 12") {
		t.Fatalf("the page's reload during the replay: %d %s, want that it waits for step 12", code, b)
	}
	ok(res, "POST", "/api/step", `{"steps":40}`)
	res.quit()
	if n := strings.Count(res.all.String(), reloadLine); n != 1 {
		t.Errorf("the resumed run reloaded %d times, not once:\n%s", n, res.all.String())
	}
	sameFiles(t, "held", out, trace, save)
}

// TestCluster_inputsFileGoesOnAfterAPageInputOverAResume: `-inputs`
// reloads aim.lua after step 20; the page jumps an agent after step 12
// (journaled), and the conductor is killed at step 15. Resumed with the
// same inputs file, the run replays the jump from the journal and applies
// the file's reload once, after step 20: the page's input is no line of
// the file (before, the resumed run took it for one and passed every line
// after it by: the reload was never applied). The trace and the save are
// one process's given the same jump and reload.
func TestCluster_inputsFileGoesOnAfterAPageInputOverAResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := t.TempDir()
	out := t.TempDir()
	config := filepath.Join(dir, "config.toml")
	inputs := filepath.Join(dir, "page-inputs.txt")
	args := func(tag string) []string {
		return []string{"run", "-config", config, "-steps", "40", "-inputs", inputs, "-debug", "127.0.0.1:0", "-paused",
			"-trace", filepath.Join(out, tag+".jsonl"), "-save", filepath.Join(out, tag+".sav")}
	}
	write := func() {
		writeReloadGame(t, dir)
		if err := os.WriteFile(inputs, []byte("20 reload ai/aim.lua edits/aim-v2.lua\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const reloadLine = "reload: ai/aim.lua: 9 agents kept their place"
	ok := func(r *liveRun, method, path, body string) {
		t.Helper()
		if code, b := r.call(method, path, body); code != http.StatusOK {
			t.Fatalf("%s %s: %d %s\n%s", method, path, code, b, r.all.String())
		}
	}
	write()
	one := startLiveRun(t, args("one")...)
	ok(one, "POST", "/api/step", `{"steps":12}`)
	ok(one, "POST", "/api/agents/g-2/var", `{"name":"Seen","value":true}`)
	ok(one, "POST", "/api/step", `{"steps":28}`)
	one.quit()
	if !strings.Contains(one.all.String(), reloadLine) {
		t.Fatalf("one process did not reload aim.lua: the test shows nothing\n%s", one.all.String())
	}
	trace, _ := os.ReadFile(filepath.Join(out, "one.jsonl"))
	save, _ := os.ReadFile(filepath.Join(out, "one.sav"))

	write()
	a := append(args("pagefile"), "-shards", "2", "-name", "page-file")
	first := startLiveRunEnv(t, []string{"BTRUN_TEST_FAULT=conductor:step:15"}, a...)
	ok(first, "POST", "/api/step", `{"steps":12}`)
	ok(first, "POST", "/api/agents/g-2/var", `{"name":"Seen","value":true}`)
	first.try("POST", "/api/step", `{"steps":20}`) // the conductor is killed before step 15
	select {
	case <-first.done:
	case <-time.After(2 * time.Minute): // a hang guard only
		t.Fatal("the conductor was not killed")
	}
	res := startLiveRun(t, append(a, "-resume")...)
	if at := res.backAt(); at != 0 {
		t.Fatalf("the resumed run's live view is at step %d, want 0", at)
	}
	ok(res, "POST", "/api/step", `{"steps":40}`)
	res.quit()
	if n := strings.Count(res.all.String(), reloadLine); n != 1 {
		t.Errorf("the resumed run applied the file's reload %d times, not once:\n%s", n, res.all.String())
	}
	sameFiles(t, "pagefile", out, trace, save)
}

// TestCluster_watchRebuildsAPluginEditedWhileNoConductorRan: `btrun run
// -shards 2 -watch` of a game whose plugin is Go sources in the game's
// folder (run on the conductor); the conductor is killed at step 30, the
// plugin's source edited while no conductor runs, then `-resume -watch`.
// The checkpoint names the program the plugin ran, not its sources, and
// no watcher saw the edit: once the replay is over (after the checkpoint's
// step 20) the resumed run finds that the plugin's build from the run's
// folder is another program, rebuilds and restarts it, once, and the
// shards take what the new build declares.
func TestCluster_watchRebuildsAPluginEditedWhileNoConductorRan(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes and builds a plugin")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "plugins", "reloady", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"reloady/go.mod": "module example.com/reloady\n\ngo 1.26\n\nrequire github.com/btrun/btrun v0.0.0\n\nreplace github.com/btrun/btrun => " +
			filepath.ToSlash(repo) + "\n",
		"reloady/main.go": string(src),
		"config.toml": "[run]\nsteps = 40\ndt = 0.05\n[[trees]]\nname = \"w\"\nfile = \"ai/w.xml\"\n" +
			"[[plugins]]\nname = \"reloady\"\npath = \"reloady\"\n[[agents]]\ntree = \"w\"\ncount = 3\n" +
			"[cluster]\ncheckpoint_every = 20\ndeadline = \"2s\"\nstore = \"store\"\n",
		"ai/w.xml": `<behaviorTree><sequence id="root"><action id=".work" name="reloady.work"/></sequence></behaviorTree>`,
	})
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = filepath.Join(dir, "reloady")
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	args := []string{"run", "-shards", "2", "-watch", "-name", "editedplugin", "-config", filepath.Join(dir, "config.toml"),
		"-trace", filepath.Join(dir, "run.jsonl")}
	if r := runFault(t, "conductor:step:30", args...); r.code == 0 {
		t.Fatalf("the conductor was not killed: %s", r.stderr)
	}
	edited := strings.Replace(string(src), "const version = 1", "const version = 2", 1)
	if err := os.WriteFile(filepath.Join(dir, "reloady", "main.go"), []byte(edited), 0o644); err != nil { // while no conductor runs
		t.Fatal(err)
	}
	r := run(t, "", append(args, "-resume")...)
	if r.code != 0 {
		t.Fatalf("resumed: exit %d: %s", r.code, r.stderr)
	}
	const restarted = "plugin reloady restarted with its new build"
	if n := strings.Count(r.stdout, restarted); n != 1 {
		t.Fatalf("the resumed run restarted the edited plugin %d times, not once:\n%s", n, r.stdout)
	}
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasSuffix(l, restarted) && !strings.HasPrefix(l, "t=1.00 reload: ") {
			t.Errorf("the plugin was rebuilt at %q, not after step 20 (the replay's end)", l)
		}
	}
}
