package tests

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `btrun run -debug -edit` without a browser: the flag's rules, a run
// without -edit that writes nothing, and POST /api/quit ending the run.

func TestEdit_needsDebug(t *testing.T) {
	r := run(t, "", "run", "-edit", "-steps", "1")
	if r.code != 2 || !strings.Contains(r.stderr, "-edit needs -debug ADDR") {
		t.Errorf("%d %s", r.code, r.stderr)
	}
}

// TestEdit_withoutEditNothingIsWritten: a live view started without -edit
// refuses every editor request, and the tree file stays as it was.
func TestEdit_withoutEditNothingIsWritten(t *testing.T) {
	dir := exampleCopy(t)
	url := liveView(t, "-config", filepath.Join(dir, "config.toml"), "-paused")
	grunt := filepath.Join(dir, "scripts", "ai", "grunt.xml")
	before, err := os.ReadFile(grunt)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ method, path, body string }{
		{"GET", "api/palette", ""},
		{"GET", "api/trees/grunt/source", ""},
		{"POST", "api/check", `{"tree":"grunt","source":"<behaviorTree/>"}`},
		{"PUT", "api/trees/grunt/source", `{"source":"<behaviorTree/>","version":"x"}`},
	} {
		req, err := http.NewRequest(r.method, url+r.path, strings.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || !strings.Contains(string(body), "start it with btrun run -debug ADDR -edit") {
			t.Errorf("%s %s: %d %s", r.method, r.path, resp.StatusCode, body)
		}
	}
	if after, _ := os.ReadFile(grunt); !bytes.Equal(after, before) {
		t.Error("the tree file changed")
	}
}

// TestEdit_quitEndsTheRun: POST /api/quit ends a running game (real time,
// an event stream open, as the page has) and btrun exits.
func TestEdit_quitEndsTheRun(t *testing.T) {
	g := startEdited(t)
	events, err := http.Get(g.url + "api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	exited := make(chan time.Time, 1)
	go func() { g.cmd.Wait(); exited <- time.Now() }()
	asked := time.Now()
	resp, err := http.Post(g.url+"api/quit", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	g.waitExit(t, exited, asked, "POST /api/quit")
}
