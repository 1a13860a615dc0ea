package liveview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/game"
)

// The live view on a cluster's conductor, tested in one process
// (cluster.NewLocal): every answer is held to the same requests' answers
// on one process's live view, and the traces and outputs to its bytes.

// session is a live view's run, on one process or on a cluster, with its
// trace and output kept for the end.
type session struct {
	*harness
	trace, out func() []byte // valid once ended
	ended      bool
}

// openFor opens config for a run whose output goes to out, on workers
// workers.
func openFor(t testing.TB, config string, out io.Writer, workers int, shard *game.ShardOf) *game.Game {
	t.Helper()
	cfg, err := game.LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	g, err := game.Open(cfg, game.Options{Stdout: out, Stderr: io.Discard, SaveEvery: -1, Workers: &workers, Shard: shard})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// single runs config on one process under a live view started paused.
// opts, when given, gives the live view's options for the game (it
// starts paused and fast).
func single(t *testing.T, config string, steps int, opts ...func(*game.Game) Options) *session {
	t.Helper()
	var out bytes.Buffer
	h := &harness{t: t, trace: filepath.Join(t.TempDir(), "trace.jsonl"), done: make(chan error, 1)}
	cfg, err := game.LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	g, err := game.Open(cfg, game.Options{Stdout: &out, Stderr: io.Discard, SaveEvery: -1, Trace: h.trace})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	h.g = g
	h.d = New(g, sessionOptions(g, opts))
	h.srv = httptest.NewServer(h.d.Handler())
	go func() { h.done <- g.Run(steps) }()
	s := &session{harness: h, out: out.Bytes}
	s.trace = func() []byte {
		b, err := os.ReadFile(h.trace)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Cleanup(func() { s.end(); g.Close() })
	return s
}

// onShards runs config on shards shards of a cluster in this process, its
// conductor under a live view started paused; each shard steps its
// agents on workers workers.
func onShards(t *testing.T, config string, shards, workers, steps int, opts ...func(*game.Game) Options) *session {
	t.Helper()
	var trace, out bytes.Buffer
	h := &harness{t: t, done: make(chan error, 1)}
	cg := openFor(t, config, io.Discard, 1, nil)
	link, ends := cluster.NewLocal(shards)
	c, err := cg.Conduct(link, &trace, &out)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, shards)
	for k := range shards {
		sg := openFor(t, config, io.Discard, workers, &game.ShardOf{K: k, N: shards})
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = errors.Join(sg.ServeShard(ends[k], k, shards, game.ShardOptions{Trace: true}), sg.Close())
		}()
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	h.g = cg
	h.d = New(cg, sessionOptions(cg, opts))
	h.srv = httptest.NewServer(h.d.Handler())
	go func() {
		end := c.Step() + uint64(steps)
		var err error
		for err == nil && c.Between(end) && c.Step() < end {
			err = c.Run(1)
		}
		if err == nil {
			err = c.Finish()
		}
		err = errors.Join(err, c.Stop())
		wg.Wait()
		h.done <- errors.Join(append(errs, err)...)
	}()
	s := &session{harness: h, trace: trace.Bytes, out: out.Bytes}
	t.Cleanup(func() { s.end(); cg.Close() })
	return s
}

// sessionOptions are a session's live view options for g: opts[0]'s if
// given, started paused and fast.
func sessionOptions(g *game.Game, opts []func(*game.Game) Options) Options {
	var o Options
	if len(opts) > 0 {
		o = opts[0](g)
	}
	o.Paused, o.Fast = true, true
	return o
}

// end quits the run and waits for it.
func (s *session) end() {
	if s.ended {
		return
	}
	s.ended = true
	if !s.d.ended.Load() {
		s.do("POST", "/api/quit", "")
	}
	select {
	case err := <-s.done:
		if err != nil {
			s.t.Error(err)
		}
	case <-time.After(2 * time.Minute): // a hang guard
		s.t.Fatal("the run did not end after quit")
	}
	s.d.Close()
	s.srv.Close()
	s.g.Close()
}

// both sends a request to both sessions and wants the same status code.
func both(t *testing.T, a, b *session, method, path, body string) {
	t.Helper()
	ca, ra := a.raw(method, path, body, nil)
	cb, rb := b.raw(method, path, body, nil)
	if ca != cb {
		t.Fatalf("%s %s %s: one process answers %d %s, the cluster %d %s", method, path, body, ca, ra, cb, rb)
	}
	if ca != http.StatusOK {
		t.Fatalf("%s %s %s: %d %s", method, path, body, ca, ra)
	}
}

// drawing is an agent's view as JSON, without its shard: what the page
// draws of it.
func drawing(t *testing.T, s *session, id string) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(s.agentJSON(id)), &v); err != nil {
		t.Fatal(err)
	}
	delete(v, "shard")
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

func TestCluster_listsEveryShardsAgentsAndDrawsThemAsOneProcess(t *testing.T) {
	one := single(t, guards, 60)
	three := onShards(t, guards, 3, 1, 60)
	for _, s := range []*session{one, three} {
		s.waitPaused("start")
	}
	both(t, one, three, "POST", "/api/step", `{"steps":30}`)

	v := three.ok("GET", "/api/agents", "")
	agents := v["agents"].([]any)
	if len(agents) != 3 {
		t.Fatalf("%d agents listed, want 3: %v", len(agents), v)
	}
	for k, a := range agents {
		a := a.(map[string]any)
		if sh, ok := a["shard"].(float64); !ok || int(sh) != k {
			t.Errorf("agent %v is listed on shard %v, want %d", a["id"], a["shard"], k)
		}
	}
	if _, ok := one.ok("GET", "/api/agents", "")["agents"].([]any)[0].(map[string]any)["shard"]; ok {
		t.Error("one process's agents are listed with a shard")
	}
	if st := three.ok("GET", "/api/status", ""); st["cluster"] != true || st["step"] != 30.0 {
		t.Errorf("the cluster's status: cluster %v, step %v", st["cluster"], st["step"])
	}
	for _, id := range []string{"guard-1", "guard-2", "guard-3"} {
		if a, b := drawing(t, one, id), drawing(t, three, id); a != b {
			t.Errorf("agent %s at step 30: one process draws\n%s\nthe cluster\n%s", id, a, b)
		}
	}
	for _, path := range []string{"/api/trees/guard", "/api/gates"} {
		_, a := one.raw("GET", path, "", nil)
		_, b := three.raw("GET", path, "", nil)
		if !bytes.Equal(a, b) {
			t.Errorf("GET %s: one process answers\n%s\nthe cluster\n%s", path, a, b)
		}
	}
}

func TestCluster_pauseStepAndBreakpointAsOneProcess(t *testing.T) {
	one := single(t, guards, 200)
	two := onShards(t, guards, 2, 1, 200)
	for _, s := range []*session{one, two} {
		s.waitPaused("start")
	}
	both(t, one, two, "POST", "/api/step", `{"steps":3}`)
	// guard-3 is on shard 1 of 2; it rests now and then (a random order).
	both(t, one, two, "POST", "/api/breakpoints", `{"tree":"guard","rule":"guard.idle.rest","agent":"guard-3"}`)
	both(t, one, two, "POST", "/api/resume", `{}`)
	a, b := one.waitPaused("breakpoint"), two.waitPaused("breakpoint")
	if a["step"] != b["step"] || !sameJSON(a["reason"], b["reason"]) {
		t.Fatalf("one process stops at step %v (%v), the cluster at step %v (%v)", a["step"], a["reason"], b["step"], b["reason"])
	}
	if a["step"] == 3.0 {
		t.Fatal("the breakpoint was hit at once: the test shows nothing")
	}
	if x, y := drawing(t, one, "guard-3"), drawing(t, two, "guard-3"); x != y {
		t.Errorf("guard-3 at its breakpoint: one process draws\n%s\nthe cluster\n%s", x, y)
	}
	both(t, one, two, "POST", "/api/step", `{}`)
	both(t, one, two, "POST", "/api/pause", `{}`)
	one.end()
	two.end()
	if a, b := one.trace(), two.trace(); !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("the traces differ (%d and %d bytes)", len(a), len(b))
	}
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestCluster_jumpSignalAndVarGiveOneProcessTrace(t *testing.T) {
	for _, c := range []struct{ shards, workers int }{{3, 1}, {2, 2}} {
		t.Run(fmt.Sprintf("%d shards of %d workers", c.shards, c.workers), func(t *testing.T) {
			commandsAsOneProcess(t, c.shards, c.workers)
		})
	}
}

func commandsAsOneProcess(t *testing.T, shards, workers int) {
	one := single(t, guards, 80)
	three := onShards(t, guards, shards, workers, 80)
	for _, s := range []*session{one, three} {
		s.waitPaused("start")
	}
	both(t, one, three, "POST", "/api/step", `{"steps":7}`)
	both(t, one, three, "POST", "/api/agents/guard-2/jump", `{"rule":"guard.idle.rest"}`)
	both(t, one, three, "POST", "/api/agents/guard-3/signal", `{"signal":"Alarm"}`)
	both(t, one, three, "POST", "/api/step", `{"steps":2}`)
	both(t, one, three, "POST", "/api/agents/guard-1/var", `{"name":"Alarm","value":true}`)
	both(t, one, three, "POST", "/api/agents/guard-3/jump", `{"rule":"guard.idle.patrol"}`)
	for _, id := range []string{"guard-1", "guard-2", "guard-3"} {
		if a, b := drawing(t, one, id), drawing(t, three, id); a != b {
			t.Errorf("agent %s after the commands: one process draws\n%s\nthe cluster\n%s", id, a, b)
		}
	}
	both(t, one, three, "POST", "/api/step", `{"steps":40}`)
	one.end()
	three.end()
	a, b := one.trace(), three.trace()
	if !bytes.Equal(a, b) {
		t.Errorf("the traces differ:\n%s", firstDiff(a, b))
	}
	for _, want := range []string{`"from":"debugger"`, `"signal":"Alarm"`} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("the trace has no %s: the test shows nothing", want)
		}
	}
	if a, b := one.out(), three.out(); !bytes.Equal(a, b) {
		t.Errorf("the outputs differ:\n%s", firstDiff(a, b))
	}
}

// firstDiff is the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return "line " + string(rune('0'+i%10)) + ":\none process: " + x + "\nthe cluster: " + y
		}
	}
	return ""
}

func TestCluster_timeTravelIsNotAvailable(t *testing.T) {
	s := onShards(t, guards, 2, 1, 50)
	s.waitPaused("start")
	s.ok("POST", "/api/step", `{"steps":5}`)
	code, v := s.do("POST", "/api/travel", `{"step":2}`)
	if code != http.StatusConflict || !strings.Contains(v["error"].(string), "not available in a cluster") {
		t.Errorf("travel: %d %v", code, v)
	}
	st := s.ok("GET", "/api/status", "")
	tt := st["timeTravel"].(map[string]any)
	if tt["oldest"] != nil || !strings.Contains(tt["error"].(string), "not available in a cluster") {
		t.Errorf("the status's time travel: %v", tt)
	}
	if code, v := s.do("POST", "/api/step", `{"steps":2}`); code != 200 || v["step"] != 7.0 {
		t.Errorf("a step after the refusal: %d %v", code, v)
	}
}

// relayGame is a game whose handlers send signals between steps
// (testdata/relay): a Ping from the page makes a post send Pong to the
// next one, which one process delivers at the end of the next step.
const relayGame = "testdata/relay/config.toml"

func TestCluster_signalsHandlersSendBetweenStepsGoOutWithTheNextStep(t *testing.T) {
	one := single(t, relayGame, 20)
	three := onShards(t, relayGame, 3, 1, 20)
	for _, s := range []*session{one, three} {
		s.waitPaused("start")
	}
	both(t, one, three, "POST", "/api/agents/post-1/signal", `{"signal":"Ping"}`) // before the first step
	if a, b := drawing(t, one, "post-1"), drawing(t, three, "post-1"); a != b {
		t.Errorf("post-1 before the first step: one process draws\n%s\nthe cluster\n%s", a, b)
	}
	both(t, one, three, "POST", "/api/step", `{"steps":3}`)
	both(t, one, three, "POST", "/api/agents/post-2/signal", `{"signal":"Ping"}`) // shard 1 sends to shard 2
	both(t, one, three, "POST", "/api/agents/post-3/signal", `{"signal":"Ping"}`) // shard 2 sends to shard 0
	both(t, one, three, "POST", "/api/step", `{"steps":3}`)
	for _, id := range []string{"post-1", "post-3"} {
		if a, b := drawing(t, one, id), drawing(t, three, id); a != b {
			t.Errorf("agent %s: one process draws\n%s\nthe cluster\n%s", id, a, b)
		}
	}
	one.end()
	three.end()
	a, b := one.trace(), three.trace()
	if !bytes.Equal(a, b) {
		t.Errorf("the traces differ:\n%s", firstDiff(a, b))
	}
	if !bytes.Contains(a, []byte(`"signal":"Pong","from":"post-2"`)) {
		t.Errorf("no Pong in the trace: the test shows nothing\n%s", a)
	}
	if a, b := one.out(), three.out(); !bytes.Equal(a, b) {
		t.Errorf("the outputs differ:\n%s", firstDiff(a, b))
	}
}
