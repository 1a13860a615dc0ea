package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The live view's Reload button in a cluster: `btrun run -shards 2 -debug`
// reloads the whole cluster from the page, journaled, and a run that loses
// a shard after the page's reloads, or whose conductor dies after one and
// is resumed, applies them again at their steps: the trace and the save
// are one process's given the same clicks at the same steps.

// pageAct is a step of a page's session: a request, or a file of the game
// written over with one of reloadEdits (edit: the edit's name, over file).
type pageAct struct {
	method, path, body string
	file, edit         string
}

// pageReloads: the aim rule renamed and reloaded after step 12 (its holders
// restart, the old cancel hook logs: the page's moment holds only the
// reload), then a jump and the Lua action edited and reloaded after step
// 17 (a moment with another input, whose checkpoint holds the jump too),
// then steps to the end.
var pageReloads = []pageAct{
	{method: "POST", path: "/api/step", body: `{"steps":12}`},
	{file: "ai/g.xml", edit: "edits/g-renamed.xml"},
	{method: "POST", path: "/api/reload"},
	{method: "POST", path: "/api/step", body: `{"steps":5}`},
	{method: "POST", path: "/api/agents/g-2/jump", body: `{"rule":"idle"}`},
	{file: "ai/aim.lua", edit: "edits/aim-v2.lua"},
	{method: "POST", path: "/api/reload"},
	{method: "POST", path: "/api/step", body: `{"steps":23}`},
}

// play plays acts on r's page in the game at dir; with lossy, a request
// that gets no answer, or a 503, ends it (the run lost a process), and a
// reload may fail (a shard lost as it reached it: the next step meets the
// loss): it returns the acts played.
func play(t *testing.T, r *liveRun, dir string, acts []pageAct, lossy bool) int {
	t.Helper()
	for i, a := range acts {
		if a.file != "" {
			if err := os.WriteFile(filepath.Join(dir, a.file), []byte(reloadEdits[a.edit]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		code, b := r.try(a.method, a.path, a.body)
		if lossy && (code == 0 || code == http.StatusServiceUnavailable) {
			return i
		}
		if lossy && a.path == "/api/reload" && code != http.StatusOK {
			t.Logf("the reload: %d %s", code, b)
			continue
		}
		if code != http.StatusOK {
			t.Fatalf("%s %s: %d %s\n%s", a.method, a.path, code, b, r.all.String())
		}
		if a.path == "/api/reload" && !strings.Contains(string(b), `"summary":`) {
			t.Fatalf("the reload: %s", b)
		}
	}
	return len(acts)
}

func TestCluster_liveViewReloadsLikeOneProcess(t *testing.T) {
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
	writeReloadGame(t, dir)
	one := startLiveRun(t, args("one")...)
	play(t, one, dir, pageReloads, false)
	one.quit()
	trace, _ := os.ReadFile(filepath.Join(out, "one.jsonl"))
	save, _ := os.ReadFile(filepath.Join(out, "one.sav"))
	for _, want := range []string{"reload: 6 agents kept their place, 3 restarted", "v1 cancel at", "reload: 9 agents kept their place", "v2 idle"} {
		if !strings.Contains(one.all.String(), want) {
			t.Fatalf("one process's output lacks %q: the test shows nothing\n%s", want, one.all.String())
		}
	}

	for _, c := range []struct{ tag, fault, back string }{
		{"plain", "", ""},
		// Killed as step 18's report reaches it: the run goes back to the
		// checkpoint taken after the second reload (it holds the jump and
		// what waits for step 18).
		{"lost", "shard1:report:18", "going back to the checkpoint of step 17 and replaying"},
		// Killed as the second reload reaches it: back over that reload,
		// whose files the new shards get from the run's store.
		{"reloading", "shard1:reload:17", "going back to the checkpoint of step 12 and replaying"},
	} {
		t.Run(c.tag, func(t *testing.T) {
			writeReloadGame(t, dir) // the files as they were before the reloads
			env := []string{}
			if c.fault != "" {
				env = append(env, "BTRUN_TEST_FAULT="+c.fault)
			}
			two := startLiveRunEnv(t, env, append(args(c.tag), "-shards", "2", "-name", "page-"+c.tag)...)
			played := play(t, two, dir, pageReloads, c.fault != "")
			if played < len(pageReloads) {
				at := two.backAt()
				if code, b := two.call("POST", "/api/step", `{"steps":`+itoa(int(40-at))+`}`); code != http.StatusOK {
					t.Fatalf("step: %d %s", code, b)
				}
			}
			two.quit()
			if c.back != "" && !strings.Contains(two.all.String(), c.back) {
				t.Logf("btrun did not say %q (on a busy machine a shard may be silent past the deadline first):\n%s", c.back, two.all.String())
				if !strings.Contains(two.all.String(), "going back to the checkpoint of") && !strings.Contains(two.all.String(), "starting the run again") {
					t.Errorf("no recovery:\n%s", two.all.String())
				}
			}
			sameFiles(t, c.tag, out, trace, save)
		})
	}

	// The conductor killed after the first reload, before the checkpoint
	// that follows it; resumed with -debug, the run goes back to its
	// first checkpoint and applies the page's reload again at step 12.
	t.Run("resumed", func(t *testing.T) {
		writeReloadGame(t, dir)
		a := append(args("resumed"), "-shards", "2", "-name", "page-resumed")
		two := startLiveRunEnv(t, []string{"BTRUN_TEST_FAULT=conductor:reload:12"}, a...)
		if played := play(t, two, dir, pageReloads, true); played != 3 {
			t.Fatalf("the conductor was killed after act %d, not after the first reload", played)
		}
		select {
		case <-two.done:
		case <-time.After(2 * time.Minute): // a hang guard only
			t.Fatal("the conductor was not killed")
		}
		res := startLiveRun(t, append(a, "-resume")...)
		if at := res.backAt(); at != 0 {
			t.Fatalf("the resumed run's live view is at step %d, want 0", at)
		}
		play(t, res, dir, append([]pageAct{{method: "POST", path: "/api/step", body: `{"steps":12}`}}, pageReloads[3:]...), false)
		res.quit()
		if !strings.Contains(res.all.String(), "resuming run page-resumed from its checkpoint at step 0") {
			t.Errorf("btrun did not say it resumed:\n%s", res.all.String())
		}
		sameFiles(t, "resumed", out, trace, save)
	})
}

// exampleClusterCopy copies the example game's config and scripts to a
// temporary folder, whose files a test may edit: the nav plugin built
// there as an executable (a cluster's paths stay inside the config's
// folder). It returns the folder.
func exampleClusterCopy(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyDir(t, filepath.Join(repo, "scripts"), filepath.Join(dir, "scripts"))
	cfg, err := os.ReadFile(filepath.Join(repo, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", "nav"), "./plugins/nav")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the nav plugin: %v\n%s", err, out)
	}
	text := strings.Replace(string(cfg), `path = "plugins/nav"`, `path = "bin/nav"`, 1) + "\n[cluster]\nstore = \"store\"\n"
	writeFiles(t, dir, map[string]string{"config.toml": text})
	return dir
}

// medicEdited is the line the edited medic's script logs.
const medicEdited = "packs the medkit away, v2"

// medicLua is the example's medic script, edited or not.
func medicLua(t *testing.T, edited bool) string {
	t.Helper()
	b, err := os.ReadFile("../scripts/ai/medic.lua")
	if err != nil {
		t.Fatal(err)
	}
	if !edited {
		return string(b)
	}
	if !strings.Contains(string(b), "packs the medkit away (") {
		t.Fatal("the medic's script no longer logs what the test edits")
	}
	return strings.Replace(string(b), "packs the medkit away (", medicEdited+" (", 1)
}

// TestCluster_liveViewReloadAfterASignal: the page sends a signal whose
// handler sends another for the next step, then reloads, between the same
// two steps; a shard killed in the next step: the run goes back to the
// checkpoint taken right after the reload, which holds the signal sent for
// the next step, to one process's trace and save.
func TestCluster_liveViewReloadAfterASignal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../liveview/testdata/relay")); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "config.toml")
	cfg, _ := os.ReadFile(config)
	listen, _ := os.ReadFile(filepath.Join(dir, "ai/listen.lua"))
	reset := func() {
		writeFiles(t, dir, map[string]string{"config.toml": string(cfg) + "\n[cluster]\ncheckpoint_every = 100\ndeadline = \"2s\"\nstore = \"store\"\n",
			"ai/listen.lua": string(listen)})
	}
	edited := strings.Replace(string(listen), `"pong from "`, `"pong (v2) from "`, 1)
	out := t.TempDir()
	acts := func(r *liveRun, lossy bool) int {
		steps := []struct{ method, path, body string }{
			{"POST", "/api/step", `{"steps":5}`},
			{"POST", "/api/agents/post-2/signal", `{"signal":"Ping"}`}, // post-2 (shard 0) sends Pong to post-3 (shard 1)
			{"", "", ""}, // the edit
			{"POST", "/api/reload", ""},
			{"POST", "/api/step", `{"steps":15}`},
		}
		for i, a := range steps {
			if a.method == "" {
				writeFiles(t, dir, map[string]string{"ai/listen.lua": edited})
				continue
			}
			code, b := r.try(a.method, a.path, a.body)
			if lossy && (code == 0 || code == http.StatusServiceUnavailable) {
				return i
			}
			if code != http.StatusOK {
				t.Fatalf("%s %s: %d %s\n%s", a.method, a.path, code, b, r.all.String())
			}
		}
		return len(steps)
	}
	args := func(tag string) []string {
		return []string{"run", "-config", config, "-steps", "20", "-debug", "127.0.0.1:0", "-paused",
			"-trace", filepath.Join(out, tag+".jsonl"), "-save", filepath.Join(out, tag+".sav")}
	}
	reset()
	one := startLiveRun(t, args("one")...)
	acts(one, false)
	one.quit()
	trace, _ := os.ReadFile(filepath.Join(out, "one.jsonl"))
	save, _ := os.ReadFile(filepath.Join(out, "one.sav"))
	if !strings.Contains(one.all.String(), "pong (v2) from post-2") {
		t.Fatalf("one process's output shows no Pong after the reload: the test shows nothing\n%s", one.all.String())
	}
	reset()
	two := startLiveRunEnv(t, []string{"BTRUN_TEST_FAULT=shard1:report:6"}, append(args("two"), "-shards", "2", "-name", "page-signal")...)
	if acts(two, true) == 5 {
		t.Fatal("the shard was not killed")
	}
	at := two.backAt()
	if code, b := two.call("POST", "/api/step", `{"steps":`+itoa(int(20-at))+`}`); code != http.StatusOK {
		t.Fatalf("step: %d %s", code, b)
	}
	two.quit()
	if !recoveredAs(two.all.String(), "going back to the checkpoint of step 5 and replaying") {
		t.Errorf("btrun did not go back to the checkpoint of step 5:\n%s", two.all.String())
	}
	sameFiles(t, "two", out, trace, save)
}

// TestCluster_liveViewEditorSaves: `btrun run -shards 2 -debug -edit`:
// the editor's save writes the tree file into the conductor's folder and
// reloads the whole cluster, with one process's answer, trace and save.
func TestCluster_liveViewEditorSaves(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := t.TempDir()
	out := t.TempDir()
	config := filepath.Join(dir, "config.toml")
	answers := map[string]string{}
	for _, tag := range []string{"one", "two"} {
		writeReloadGame(t, dir)
		args := []string{"run", "-config", config, "-steps", "30", "-debug", "127.0.0.1:0", "-paused", "-edit",
			"-trace", filepath.Join(out, tag+".jsonl"), "-save", filepath.Join(out, tag+".sav")}
		if tag == "two" {
			args = append(args, "-shards", "2", "-name", "page-edit")
		}
		r := startLiveRun(t, args...)
		if code, b := r.call("POST", "/api/step", `{"steps":12}`); code != http.StatusOK {
			t.Fatalf("%s: step: %d %s", tag, code, b)
		}
		_, b := r.call("GET", "/api/trees/g/source", "")
		var src struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(b, &src); err != nil || src.Version == "" {
			t.Fatalf("%s: the source: %v %s", tag, err, b)
		}
		body, _ := json.Marshal(map[string]string{"file": "ai/g.xml", "source": reloadEdits["edits/g-renamed.xml"], "version": src.Version})
		code, b := r.call("PUT", "/api/trees/g/source", string(body))
		if code != http.StatusOK {
			t.Fatalf("%s: the save: %d %s", tag, code, b)
		}
		var saved struct {
			Reload any `json:"reload"`
		}
		json.Unmarshal(b, &saved)
		answers[tag] = mustJSON(t, saved.Reload)
		if got, _ := os.ReadFile(filepath.Join(dir, "ai/g.xml")); string(got) != reloadEdits["edits/g-renamed.xml"] {
			t.Errorf("%s: the file holds:\n%s", tag, got)
		}
		if code, b := r.call("POST", "/api/step", `{"steps":18}`); code != http.StatusOK {
			t.Fatalf("%s: step: %d %s", tag, code, b)
		}
		r.quit()
	}
	if answers["one"] != answers["two"] || !strings.Contains(answers["one"], "3 restarted") {
		t.Errorf("the save's reload: one process answers %s, the cluster %s", answers["one"], answers["two"])
	}
	trace, _ := os.ReadFile(filepath.Join(out, "one.jsonl"))
	save, _ := os.ReadFile(filepath.Join(out, "one.sav"))
	sameFiles(t, "two", out, trace, save)
}
