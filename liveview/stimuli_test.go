package liveview

import (
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
