package liveview

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btrun/btrun/game"
)

// guards is the test game (testdata/guards): Lua tables, signals,
// interruption, a random order, a rule without an id.
const guards = "testdata/guards/config.toml"

// harness runs a game with a debugger behind an httptest server; the game
// runs on its own goroutine, as in btrun.
type harness struct {
	t     testing.TB
	g     *game.Game
	d     *Debugger
	srv   *httptest.Server
	trace string
	done  chan error
}

// openGame opens a config quietly, with a trace file when trace is set.
func openGame(t testing.TB, config, trace string) *game.Game {
	t.Helper()
	cfg, err := game.LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	g, err := game.Open(cfg, game.Options{Quiet: true, Stdout: io.Discard, Stderr: io.Discard, Trace: trace, SaveEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	return g
}

// start runs config for steps steps under a debugger with opts.
func start(t testing.TB, config string, steps int, opts Options) *harness {
	t.Helper()
	return startWith(t, config, steps, opts, nil)
}

// startWith is start, with setup called on the debugger before the game
// runs (to give it a clock of the test's own, for instance).
func startWith(t testing.TB, config string, steps int, opts Options, setup func(*Debugger)) *harness {
	t.Helper()
	h := &harness{t: t, trace: filepath.Join(t.TempDir(), "trace.jsonl"), done: make(chan error, 1)}
	h.g = openGame(t, config, h.trace)
	h.d = New(h.g, opts)
	if setup != nil {
		setup(h.d)
	}
	h.srv = httptest.NewServer(h.d.Handler())
	go func() { h.done <- h.g.Run(steps) }()
	t.Cleanup(func() {
		if !h.d.ended.Load() {
			h.do("POST", "/api/quit", "")
		}
		select {
		case err := <-h.done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(2 * time.Minute): // a hang guard
			t.Error("the run did not end after quit")
		}
		h.d.Close()
		h.srv.Close()
		h.g.Close()
	})
	return h
}

// do sends a request and returns the status and the decoded JSON body.
func (h *harness) do(method, path, body string) (int, map[string]any) {
	h.t.Helper()
	code, raw := h.raw(method, path, body, nil)
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		h.t.Fatalf("%s %s: %d: the answer is not a JSON object: %v: %s", method, path, code, err, raw)
	}
	return code, v
}

func (h *harness) raw(method, path, body string, header http.Header) (int, []byte) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// ok sends a request that must succeed.
func (h *harness) ok(method, path, body string) map[string]any {
	h.t.Helper()
	code, v := h.do(method, path, body)
	if code != http.StatusOK {
		h.t.Fatalf("%s %s %s: %d %v", method, path, body, code, v)
	}
	return v
}

// agent fetches an agent's view, decoded into the view type.
func (h *harness) agent(id string) agentView {
	h.t.Helper()
	code, raw := h.raw("GET", "/api/agents/"+id, "", nil)
	if code != 200 {
		h.t.Fatalf("GET agent %s: %d %s", id, code, raw)
	}
	var v agentView
	if err := json.Unmarshal(raw, &v); err != nil {
		h.t.Fatal(err)
	}
	return v
}

// waitPaused polls until the game is paused (for the given reason, if
// set) and returns the status.
func (h *harness) waitPaused(reason string) map[string]any {
	h.t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a hang guard
	for time.Now().Before(deadline) {
		st := h.ok("GET", "/api/status", "")
		if st["paused"] == true {
			r, _ := st["reason"].(map[string]any)
			if reason == "" || r != nil && r["kind"] == reason {
				return st
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.t.Fatalf("the game did not pause (%s)", reason)
	return nil
}

// onGame runs f on the game's goroutine between steps.
func (h *harness) onGame(f func()) {
	h.t.Helper()
	req := &request{fn: func(*request) (any, error) { f(); return nil, nil }, reply: make(chan result, 1)}
	h.d.queue <- req
	select {
	case <-req.reply:
	case <-time.After(2 * time.Minute): // a hang guard
		h.t.Fatal("the game did not run the function")
	}
}

// traceLine is a line of a trace, decoded.
type traceLine struct {
	Step      uint64     `json:"step"`
	Agent     string     `json:"agent"`
	Runs      [][]string `json:"runs"`
	Result    string     `json:"result"`
	Cursor    string     `json:"cursor"`
	Interrupt []string   `json:"interrupt"`
	Signal    string     `json:"signal"`
	From      string     `json:"from"`
	Var       string     `json:"var"`
	Value     *bool      `json:"value"`
	Stamp     string     `json:"stamp"`
	Set       *bool      `json:"set"`
	Time      float64    `json:"time"`
}

func readTrace(t testing.TB, data []byte) []traceLine {
	t.Helper()
	var out []traceLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l traceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

// straight runs config for steps steps without a debugger and returns its
// trace, and the game's SaveState after each step (index = step).
func straight(t testing.TB, config string, steps int) ([]byte, [][]byte) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "straight.jsonl")
	g := openGame(t, config, trace)
	defer g.Close()
	var states [][]byte
	save := func() {
		s, err := g.SaveState()
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, s)
	}
	save()
	for range steps {
		if _, err := g.Advance(); err != nil {
			t.Fatal(err)
		}
		save()
	}
	if err := g.FlushTrace(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	return data, states
}

// fakeClock is a clock that moves only when the test says (Advance): real-
// time pacing then runs the steps it lets through and no other, however
// busy the machine is.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	timers map[*fakeTimer]bool
}

type fakeTimer struct {
	at time.Time
	c  chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), timers: map[*fakeTimer]bool{}}
}

func (f *fakeClock) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) until(at time.Time) (<-chan time.Time, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ft := &fakeTimer{at: at, c: make(chan time.Time, 1)}
	if !at.After(f.t) {
		ft.c <- f.t
	} else {
		f.timers[ft] = true
	}
	return ft.c, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.timers, ft)
	}
}

// Advance moves the clock on by d and fires the timers then due.
func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
	for ft := range f.timers {
		if !ft.at.After(f.t) {
			ft.c <- f.t
			delete(f.timers, ft)
		}
	}
}

// waitStep polls the status until the game is at step want (a wait with a
// hang guard, not a verdict on time) and fails if it went past it.
func (h *harness) waitStep(want uint64) map[string]any {
	h.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st := h.ok("GET", "/api/status", "")
		switch s := uint64(st["step"].(float64)); {
		case s == want:
			return st
		case s > want:
			h.t.Fatalf("the game is at step %d, past %d", s, want)
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the game did not reach step %d: %v", want, st)
		}
		time.Sleep(time.Millisecond)
	}
}
