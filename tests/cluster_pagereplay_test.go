package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCluster_pageInputsDuringAResumedReplayAreRefused: `btrun run
// -shards 2 -debug -paused`; the page sets an agent's variable after step 12
// (journaled) and the conductor is killed at step 25. Resumed with
// -resume -debug, the run replays from the checkpoint of step 0 up to
// the edit: the page's signal, jump and variable edit then are refused
// (409, naming the step to wait for), applied nowhere and journaled
// nowhere (before, they were applied and journaled at once, ahead of the
// journaled edit: the run was not one process's). After the replay the
// page's signal is taken. The trace and the save are one process's
// given the same edit and signal.
func TestCluster_pageInputsDuringAResumedReplayAreRefused(t *testing.T) {
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
	ok := func(r *liveRun, method, path, body string) {
		t.Helper()
		if code, b := r.call(method, path, body); code != http.StatusOK {
			t.Fatalf("%s %s: %d %s\n%s", method, path, code, b, r.all.String())
		}
	}
	const signal = `{"signal":"Ping"}`
	writeReloadGame(t, dir)
	one := startLiveRun(t, args("one")...)
	ok(one, "POST", "/api/step", `{"steps":12}`)
	ok(one, "POST", "/api/agents/g-2/var", `{"name":"Seen","value":true}`)
	ok(one, "POST", "/api/step", `{"steps":2}`)
	ok(one, "POST", "/api/agents/g-1/signal", signal)
	ok(one, "POST", "/api/step", `{"steps":26}`)
	one.quit()
	trace, save := readFiles(t, out, "one")

	a := append(args("refused"), "-shards", "2", "-name", "page-refused")
	first := startLiveRunEnv(t, []string{"BTRUN_TEST_FAULT=conductor:step:25"}, a...)
	ok(first, "POST", "/api/step", `{"steps":12}`)
	ok(first, "POST", "/api/agents/g-2/var", `{"name":"Seen","value":true}`)
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
	refused := func(what, path, body string) {
		t.Helper()
		code, b := res.call("POST", path, body)
		if code != http.StatusConflict || !strings.Contains(string(b), "replays its journal from a checkpoint up to step 12") ||
			!strings.Contains(string(b), "send the "+what+" again after that step") {
			t.Fatalf("the page's %s during the replay: %d %s, want a 409 naming step 12", what, code, b)
		}
	}
	refused("signal", "/api/agents/g-1/signal", signal)
	ok(res, "POST", "/api/step", `{"steps":5}`)
	refused("jump", "/api/agents/g-3/jump", `{"rule":"idle"}`)
	refused("variable edit", "/api/agents/g-4/var", `{"name":"Seen","value":true}`)
	ok(res, "POST", "/api/step", `{"steps":9}`)
	ok(res, "POST", "/api/agents/g-1/signal", signal) // the replay is over
	ok(res, "POST", "/api/step", `{"steps":26}`)
	res.quit()
	sameFiles(t, "refused", out, trace, save)
}

// readFiles is the trace and the save a run tagged tag wrote into out.
func readFiles(t *testing.T, out, tag string) ([]byte, []byte) {
	t.Helper()
	trace, err := os.ReadFile(filepath.Join(out, tag+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	save, err := os.ReadFile(filepath.Join(out, tag+".sav"))
	if err != nil {
		t.Fatal(err)
	}
	return trace, save
}
