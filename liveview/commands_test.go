package liveview

import (
	"fmt"
	"testing"
	"time"
)

// TestAPI_pauseStopsAStepRequest: a pause that comes while a request runs
// many steps stops them: the step request is answered at once with the
// step reached, and the game stays there.
func TestAPI_pauseStopsAStepRequest(t *testing.T) {
	h := start(t, guards, 1<<40, Options{Paused: true, Fast: true})
	stepped := make(chan map[string]any, 1)
	go func() {
		_, v := h.do("POST", "/api/step", `{"steps":1000000}`)
		stepped <- v
	}()
	// Wait until the game runs the request's steps (a hang guard, no verdict).
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Millisecond) {
		running := false
		h.onGame(func() { running = h.d.stepsLeft > 0 })
		if running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the step request did not start")
		}
	}
	p := h.ok("POST", "/api/pause", "")
	if p["paused"] != true || p["reason"].(map[string]any)["kind"] != "pause" {
		t.Fatalf("pause: %v", p)
	}
	var s map[string]any
	select {
	case s = <-stepped:
	case <-time.After(2 * time.Minute): // a hang guard: the request ran on
		t.Fatal("the step request was not answered when the game paused")
	}
	at := p["step"].(float64)
	if s["step"] != at || s["paused"] != true || s["reason"].(map[string]any)["kind"] != "pause" || at >= 1000000 {
		t.Errorf("the step request's answer %v; the pause's: step %v", s, at)
	}
	if st := h.ok("GET", "/api/status", ""); st["step"] != at {
		t.Errorf("after the pause at step %v the game went on to step %v", at, st["step"])
	}
}

// TestPacer_slowSpeedsWait: the slowest speeds pace a step hours later,
// and speeds below them (a tiny number the API refuses) saturate instead of
// overflowing into "due long ago", which ran the game as fast as possible.
func TestPacer_slowSpeedsWait(t *testing.T) {
	clk := newFakeClock()
	p := pacer{clock: clk}
	p.reset(0)
	for _, c := range []struct {
		dt, speed float64
		least     time.Duration
	}{
		{0.1, 1, 100 * time.Millisecond},
		{3600, minSpeed, 100 * time.Hour},
		{0.1, 1e-300, 100 * 365 * 24 * time.Hour},
		{3600, 5e-324, 100 * 365 * 24 * time.Hour},
	} {
		due, wait := p.due(0, c.dt, c.speed)
		if !wait || due.Sub(clk.now()) < c.least {
			t.Errorf("dt %v at speed %v: due in %v (wait %v), want at least %v", c.dt, c.speed, due.Sub(clk.now()), wait, c.least)
		}
	}
	if _, wait := p.due(0, 0.1, 0); wait {
		t.Error("fast (speed 0) waits")
	}
}

// TestAPI_reloadAnswers: travelling to a step before a reload says so (not
// that the budget dropped it), and a reload's answer carries "discarded"
// only when it discarded steps, failed or not.
func TestAPI_reloadAnswers(t *testing.T) {
	fail := false
	var h *harness
	h = start(t, guards, 200, Options{Paused: true, Reload: func() (string, error) {
		if fail {
			return "", fmt.Errorf("ai/guard.xml:3:1: unknown tag <actoin>")
		}
		return h.g.ReloadAll()
	}})
	h.ok("POST", "/api/step", `{"steps":30}`)
	v := h.ok("POST", "/api/reload", "")
	if _, ok := v["status"].(map[string]any)["discarded"]; ok {
		t.Errorf("a reload that discarded nothing: %v", v)
	}
	h.ok("POST", "/api/step", `{"steps":10}`)
	code, v := h.do("POST", "/api/travel", `{"step":10}`)
	msg, _ := v["error"].(string)
	if code != 422 || v["oldest"] != 30.0 || msg != "step 10 is before the reload at step 30: time travel starts again at each reload (the earlier steps ran the old trees and scripts); the earliest step the live view can show is 30" {
		t.Errorf("travel to before the reload: %d %v", code, v)
	}
	fail = true
	if code, v := h.do("POST", "/api/reload", ""); code != 422 || v["discarded"] != nil {
		t.Errorf("a failed reload that discarded nothing: %d %v", code, v)
	}
	h.ok("POST", "/api/travel", `{"step":35}`)
	code, v = h.do("POST", "/api/reload", "")
	if d, _ := v["discarded"].([]any); code != 422 || len(d) != 2 || d[0] != 36.0 || d[1] != 40.0 {
		t.Errorf("a failed reload from step 35 of 40: %d %v", code, v)
	}
	fail = false
	h.ok("POST", "/api/step", `{"steps":5}`)
	h.ok("POST", "/api/travel", `{"step":37}`)
	v = h.ok("POST", "/api/reload", "")
	if d, _ := v["status"].(map[string]any)["discarded"].([]any); len(d) != 2 || d[0] != 38.0 || d[1] != 40.0 {
		t.Errorf("a reload from step 37 of 40: %v", v)
	}
}
