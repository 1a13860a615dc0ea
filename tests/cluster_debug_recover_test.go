package tests

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The page's commands of a -debug run are journaled inputs: a run that
// loses a shard, or a conductor resumed with -resume, applies them again
// at the same steps, and ends with the trace and the save of one process
// given the same commands at the same steps.

// pageSteps are the page's commands of the tests below, after step 20
// (the checkpoint the runs go back to): a jump, signals with data and a
// variable's edit, to agents of both shards, then steps to 40.
var pageSteps = []struct{ method, path, body string }{
	{"POST", "/api/step", `{"steps":25}`},
	{"POST", "/api/agents/lookout-1/jump", `{"rule":"lookout.search"}`},
	{"POST", "/api/agents/medic-2/signal", `{"signal":"OnHurt","data":{"who":"grunt-1","x":3,"y":4}}`},
	{"POST", "/api/step", `{"steps":5}`},
	{"POST", "/api/agents/grunt-2/var", `{"name":"Ammo","value":3}`},
	{"POST", "/api/agents/medic-1/signal", `{"signal":"OnHurt","data":{"who":"grunt-3","x":-2,"y":8}}`},
	{"POST", "/api/step", `{"steps":10}`},
}

// debugRecoverConfig is the example game with a checkpoint every 20 steps.
func debugRecoverConfig(t *testing.T) string {
	t.Helper()
	return exampleClusterConfig(t, "debug-recover-*.toml", "checkpoint_every = 20\ndeadline = \"2s\"\n")
}

// onePaged is one process's run of config for 60 steps with pageSteps
// sent from its page: its trace and save.
func onePaged(t *testing.T, config, dir string) (trace, save []byte) {
	t.Helper()
	one := startLiveRun(t, "run", "-config", config, "-steps", "60", "-debug", "127.0.0.1:0", "-paused",
		"-trace", filepath.Join(dir, "one.jsonl"), "-save", filepath.Join(dir, "one.sav"))
	for _, c := range pageSteps {
		if code, b := one.call(c.method, c.path, c.body); code != http.StatusOK {
			t.Fatalf("one process: %s %s: %d %s", c.method, c.path, code, b)
		}
	}
	one.call("POST", "/api/step", `{"steps":20}`)
	one.quit()
	trace, _ = os.ReadFile(filepath.Join(dir, "one.jsonl"))
	save, _ = os.ReadFile(filepath.Join(dir, "one.sav"))
	if !bytes.Contains(trace, []byte(`"from":"debugger"`)) || !bytes.Contains(trace, []byte(`"lookout.search`)) {
		t.Fatal("one process's trace shows no signal or jump from the page: the test shows nothing")
	}
	return trace, save
}

// try sends a request and returns its status, 0 if it got no answer (the
// process, or its live view, went away).
func (r *liveRun) try(method, path, body string) (int, []byte) {
	req, err := http.NewRequest(method, r.url+strings.TrimPrefix(path, "/"), strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.Bytes()
}

// backAt waits until the live view answers again, and returns the step
// it shows; it fails the test if btrun ended first.
func (r *liveRun) backAt() uint64 {
	r.t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a hang guard only
	for time.Now().Before(deadline) {
		select {
		case err := <-r.done:
			r.t.Fatalf("btrun ended (%v):\n%s", err, r.all.String())
		default:
		}
		if code, b := r.try("GET", "/api/status", ""); code == http.StatusOK {
			var st struct {
				Step   uint64 `json:"step"`
				Paused bool   `json:"paused"`
			}
			json.Unmarshal(b, &st)
			if st.Paused {
				return st.Step
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.t.Fatalf("the live view did not come back:\n%s", r.all.String())
	return 0
}

// TestCluster_debugRecovers: a `btrun run -shards 2 -debug` run whose
// shard 1 is killed (as step 37 starts, while the page's steps run) after
// a jump, signals and a variable's edit from the page goes back to the
// checkpoint of step 20, applies the page's commands again from the
// journal at their steps, and its live view comes back, at the same
// address, paused at the step the run had reached; stepped to its end,
// the run's trace and save are one process's given the same commands.
func TestCluster_debugRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := debugRecoverConfig(t)
	dir := t.TempDir()
	trace, save := onePaged(t, config, dir)

	two := startLiveRunEnv(t, []string{"BTRUN_TEST_FAULT=shard1:step start:37"}, "run", "-config", config, "-steps", "60",
		"-shards", "2", "-name", "dbgrec", "-debug", "127.0.0.1:0", "-paused",
		"-trace", filepath.Join(dir, "two.jsonl"), "-save", filepath.Join(dir, "two.sav"))
	for i, c := range pageSteps {
		code, b := two.try(c.method, c.path, c.body)
		if i < len(pageSteps)-1 && code != http.StatusOK {
			t.Fatalf("the cluster: %s %s: %d %s", c.method, c.path, code, b)
		}
	}
	// The last steps were cut short by the loss: the page says so, then
	// comes back where the run was.
	at := two.backAt()
	if at != 36 {
		t.Errorf("the live view came back at step %d, want 36", at)
	}
	if code, b := two.call("POST", "/api/step", `{"steps":`+itoa(int(60-at))+`}`); code != http.StatusOK {
		t.Fatalf("step: %d %s", code, b)
	}
	two.quit()
	for _, want := range []string{"going back to the checkpoint of step 20", "live view: the run is back at step 36"} {
		if !strings.Contains(two.all.String(), want) {
			t.Errorf("btrun did not say %q:\n%s", want, two.all.String())
		}
	}
	sameFiles(t, "two", dir, trace, save)
}

// TestCluster_debugResumes: a -debug run whose conductor is killed (before
// step 37) after the page's commands is resumed with -resume -debug: the
// new live view shows the run from the checkpoint of step 20, the page's
// commands applied again from the journal as its steps pass theirs, and
// the run's trace and save are one process's given the same commands.
func TestCluster_debugResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := debugRecoverConfig(t)
	dir := t.TempDir()
	trace, save := onePaged(t, config, dir)

	args := []string{"run", "-config", config, "-steps", "60", "-shards", "2", "-name", "dbgres", "-debug", "127.0.0.1:0", "-paused",
		"-trace", filepath.Join(dir, "two.jsonl"), "-save", filepath.Join(dir, "two.sav")}
	two := startLiveRunEnv(t, []string{"BTRUN_TEST_FAULT=conductor:step:37"}, args...)
	for i, c := range pageSteps {
		code, b := two.try(c.method, c.path, c.body)
		if i < len(pageSteps)-1 && code != http.StatusOK {
			t.Fatalf("the cluster: %s %s: %d %s", c.method, c.path, code, b)
		}
	}
	select {
	case <-two.done:
	case <-time.After(2 * time.Minute): // a hang guard only
		t.Fatal("the conductor was not killed")
	}
	res := startLiveRun(t, append(args, "-resume")...)
	if at := res.backAt(); at != 20 {
		t.Errorf("the resumed run's live view is at step %d, want 20", at)
	}
	if code, b := res.call("POST", "/api/step", `{"steps":40}`); code != http.StatusOK {
		t.Fatalf("step: %d %s", code, b)
	}
	res.quit()
	if !strings.Contains(res.all.String(), "resuming run dbgres from its checkpoint at step 20") {
		t.Errorf("btrun did not say it resumed:\n%s", res.all.String())
	}
	sameFiles(t, "two", dir, trace, save)
}
