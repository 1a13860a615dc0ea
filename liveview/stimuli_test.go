package liveview

import (
	"fmt"
	"strings"
	"testing"
)

// TestAPI_agentStimuli: an agent's view lists the stimuli it holds, with
// their data (as the trace writes it), age and, for a signal with expires,
// the time left; a signal sent from the page records one without data.
func TestAPI_agentStimuli(t *testing.T) {
	h := start(t, "../tests/testdata/fixtures/signals/config.toml", 80, Options{Paused: true})
	h.ok("POST", "/api/step", `{"steps":21}`) // Attacked (expires 1.5) arrived at step 20, t = 5
	var got *stimulusView
	for _, s := range h.agent("medic-1").Stimuli {
		if s.Signal == "Attacked" {
			got = &s
		}
	}
	if got == nil || string(got.Data) != `{"by":"sniper","damage":12.5,"from":[10,-3]}` || got.At != 5 || got.Age != 0.25 || got.Left == nil || *got.Left != 1.25 {
		t.Fatalf("medic-1's Attacked: %+v", got)
	}
	h.ok("POST", "/api/agents/grunt-3/signal", `{"signal":"Poke"}`)
	found := false
	for _, s := range h.agent("grunt-3").Stimuli {
		if s.Signal == "Poke" {
			found = string(s.Data) == "null" && s.Age == 0 && s.Left == nil
		}
	}
	if !found {
		t.Errorf("grunt-3's stimuli after a signal from the page: %+v", h.agent("grunt-3").Stimuli)
	}
	if code, raw := h.raw("GET", "/api/trees/medic", "", nil); code != 200 || !strings.Contains(string(raw), `{"name":"Attacked","sets":[],"stamps":[],"expires":1.5}`) {
		t.Errorf("the tree's signals: %d %s", code, raw)
	}
}

// TestAPI_signalCarriesData: the page's signal may carry JSON data, which
// the agent holds as its stimulus (objects are tables, arrays lists); time
// travel back over the signal and forward again sends it again, data and
// all; data a signal cannot carry is a 422 and nothing is sent.
func TestAPI_signalCarriesData(t *testing.T) {
	h := start(t, "../tests/testdata/fixtures/signals/config.toml", 80, Options{Paused: true})
	h.ok("POST", "/api/step", `{"steps":4}`)
	h.ok("POST", "/api/agents/grunt-3/signal", `{"signal":"Poke","data":{"who":"medic-1","hp":10,"at":[1.5,-2],"none":null}}`)
	poke := func() string {
		for _, s := range h.agent("grunt-3").Stimuli {
			if s.Signal == "Poke" {
				return string(s.Data)
			}
		}
		return "(none)"
	}
	const want = `{"at":[1.5,-2],"hp":10,"who":"medic-1"}`
	if got := poke(); got != want {
		t.Fatalf("grunt-3's Poke after a signal with data: %s, want %s", got, want)
	}
	h.ok("POST", "/api/step", `{"steps":2}`)
	h.ok("POST", "/api/travel", `{"step":2}`)
	if got := poke(); got != "(none)" {
		t.Errorf("travelled back before the signal: Poke holds %s", got)
	}
	h.ok("POST", "/api/travel", `{"step":6}`)
	if got := poke(); got != want {
		t.Errorf("travelled forward over the signal: Poke holds %s, want %s", got, want)
	}
	deep := strings.Repeat("[", 17) + "1" + strings.Repeat("]", 17)
	for _, body := range []string{`{"signal":"Poke2","data":` + deep + `}`, `{"signal":"Poke2","data":1e999}`} {
		if code, v := h.do("POST", "/api/agents/grunt-3/signal", body); code != 422 || !strings.Contains(fmt.Sprint(v), `"data"`) {
			t.Errorf("%.60s: %d %v, want 422 naming \"data\"", body, code, v)
		}
	}
	for _, s := range h.agent("grunt-3").Stimuli {
		if s.Signal == "Poke2" {
			t.Errorf("refused data was sent: %+v", s)
		}
	}
}
