package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster/natsnet"
)

// liveRun is a btrun run with the live view, driven over HTTP.
type liveRun struct {
	t    *testing.T
	url  string
	all  *lockedBuffer
	done chan error
}

// startLiveRun starts btrun with args (which hold -debug 127.0.0.1:0) and
// waits until it says where its live view is.
func startLiveRun(t *testing.T, args ...string) *liveRun {
	t.Helper()
	return startLiveRunEnv(t, nil, args...)
}

// startLiveRunEnv is startLiveRun with env added to btrun's environment.
func startLiveRunEnv(t *testing.T, env []string, args ...string) *liveRun {
	t.Helper()
	cmd := command(args...)
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	all := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = io.MultiWriter(pw, all), io.MultiWriter(pw, all)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	r := &liveRun{t: t, all: all, done: make(chan error, 1)}
	found := liveViewURL(pr)
	go func() { r.done <- cmd.Wait(); pw.Close() }()
	select {
	case r.url = <-found:
	case err := <-r.done:
		t.Fatalf("btrun ended before it served the live view (%v):\n%s", err, all.String())
	case <-time.After(2 * time.Minute): // a hang guard only
		t.Fatalf("btrun did not say where the live view is:\n%s", all.String())
	}
	r.ready()
	return r
}

// ready waits until the live view answers: a cluster's page is served as
// the run starts, and answers 503 ("the run is starting") until its
// shards joined and the game started.
func (r *liveRun) ready() {
	r.t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) { // a hang guard only
		if code, _ := r.try("GET", "/api/status", ""); code == http.StatusOK {
			return
		}
		select {
		case err := <-r.done:
			r.t.Fatalf("btrun ended before its live view answered (%v):\n%s", err, r.all.String())
		default:
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the live view did not answer:\n%s", r.all.String())
		}
	}
}

// call sends a request and returns the status and the body.
func (r *liveRun) call(method, path, body string) (int, []byte) {
	r.t.Helper()
	req, err := http.NewRequest(method, r.url+strings.TrimPrefix(path, "/"), strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// quit ends the run through the page's API and waits for btrun to exit.
func (r *liveRun) quit() {
	r.t.Helper()
	if code, b := r.call("POST", "/api/quit", ""); code != http.StatusOK {
		r.t.Fatalf("quit: %d %s", code, b)
	}
	select {
	case err := <-r.done:
		if err != nil {
			r.t.Fatalf("btrun: %v\n%s", err, r.all.String())
		}
	case <-time.After(2 * time.Minute): // a hang guard only
		r.t.Fatal("btrun did not end after quit")
	}
}

// TestCluster_debugOnTheConductor: `btrun run -shards 2 -debug` serves
// the live view of the whole cluster: it lists every agent with its shard,
// draws an agent of shard 1 as one process's live view does at the same
// step, and a jump and a signal with data from the page (to agents of
// shard 1) give one process's trace and save, byte for byte.
// The same with -cluster against a NATS server, the shards started by
// hand.
func TestCluster_debugOnTheConductor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	t.Run("embedded", func(t *testing.T) {
		t.Cleanup(func() { os.RemoveAll(filepath.Join("..", "btrun-cluster")) })
		debugOnTheConductor(t, nil)
	})
	t.Run("cluster", func(t *testing.T) {
		srv, err := natsnet.StartServer(t.TempDir(), 0)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		var shards []*exec.Cmd
		for range 2 {
			cmd := command("shard", "-cluster", srv.URL(), "-name", "dbg", "-trace")
			cmd.Dir = t.TempDir()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			shards = append(shards, cmd)
		}
		debugOnTheConductor(t, []string{"-cluster", srv.URL(), "-name", "dbg"})
		for k, cmd := range shards {
			if err := cmd.Wait(); err != nil {
				t.Errorf("shard %d: %v", k, err)
			}
		}
	})
}

func debugOnTheConductor(t *testing.T, extra []string) {
	dir := t.TempDir()
	file := func(n string) string { return filepath.Join(dir, n) }
	runs := map[string]*liveRun{}
	for _, tag := range []string{"one", "two"} {
		args := []string{"run", "-config", "../config.toml", "-steps", "60", "-debug", "127.0.0.1:0", "-paused",
			"-trace", file(tag + ".jsonl"), "-save", file(tag + ".sav")}
		if tag == "two" {
			args = append(append(args, "-shards", "2"), extra...)
		}
		runs[tag] = startLiveRun(t, args...)
	}
	one, two := runs["one"], runs["two"]
	same := func(method, path, body string) []byte {
		t.Helper()
		ca, a := one.call(method, path, body)
		cb, b := two.call(method, path, body)
		if ca != cb {
			t.Fatalf("%s %s %s: one process answers %d %s, the cluster %d %s", method, path, body, ca, a, cb, b)
		}
		return a
	}
	same("POST", "/api/step", `{"steps":25}`)

	_, list := two.call("GET", "/api/agents", "")
	var agents struct {
		Agents []struct {
			ID    string `json:"id"`
			Shard *int   `json:"shard"`
		} `json:"agents"`
	}
	if err := json.Unmarshal(list, &agents); err != nil {
		t.Fatal(err)
	}
	onShard := map[int][]string{}
	for _, a := range agents.Agents {
		if a.Shard == nil {
			t.Fatalf("agent %s is listed without its shard: %s", a.ID, list)
		}
		onShard[*a.Shard] = append(onShard[*a.Shard], a.ID)
	}
	if len(agents.Agents) != 16 || len(onShard[0]) != 8 || len(onShard[1]) != 8 {
		t.Fatalf("the cluster lists %d agents, by shard %v", len(agents.Agents), onShard)
	}
	for _, id := range []string{"medic-2", "lookout-1"} {
		var a, b map[string]any
		_, ra := one.call("GET", "/api/agents/"+id, "")
		_, rb := two.call("GET", "/api/agents/"+id, "")
		json.Unmarshal(ra, &a)
		json.Unmarshal(rb, &b)
		if b["shard"] != 1.0 {
			t.Errorf("%s is on shard %v, want 1", id, b["shard"])
		}
		delete(b, "shard")
		if x, y := mustJSON(t, a), mustJSON(t, b); x != y {
			t.Errorf("%s at step 25: one process draws\n%s\nthe cluster\n%s", id, x, y)
		}
	}

	// The lookout's rule ids, from the answer to a jump to none.
	var ids struct {
		IDs []string `json:"ids"`
	}
	json.Unmarshal(same("POST", "/api/agents/lookout-1/jump", `{"rule":"none"}`), &ids)
	to := ""
	for _, id := range ids.IDs {
		if strings.HasSuffix(id, ".search") {
			to = id
		}
	}
	if to == "" {
		t.Fatalf("the lookout has no search rule: %v", ids.IDs)
	}
	same("POST", "/api/agents/lookout-1/jump", `{"rule":"`+to+`"}`)
	same("POST", "/api/agents/medic-2/signal", `{"signal":"OnHurt","data":{"who":"grunt-1","x":3,"y":4}}`)
	same("POST", "/api/step", `{"steps":35}`)
	if code, b := two.call("POST", "/api/travel", `{"step":10}`); code != http.StatusConflict || !bytes.Contains(b, []byte("not available in a cluster")) {
		t.Errorf("time travel in a cluster: %d %s", code, b)
	}
	one.quit()
	two.quit()
	for _, ext := range []string{".jsonl", ".sav"} {
		a, _ := os.ReadFile(file("one" + ext))
		b, _ := os.ReadFile(file("two" + ext))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("the %s differs from one process's (%d and %d bytes)", ext, len(b), len(a))
		}
	}
	a, _ := os.ReadFile(file("one.jsonl"))
	for _, want := range []string{`"from":"debugger"`, `{"step":26,"time":2.6,"agent":"lookout-1","runs":[["` + to} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("the trace has no %s: the test shows nothing", want)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
