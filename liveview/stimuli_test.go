package liveview

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// jsonText is v as JSON.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAPI_agentStimuli: an agent's view lists the stimuli it holds, with
// their data (as ctx's Lua tables are shown), age and, for a signal with expires,
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
	if got == nil || jsonText(got.Data) != `{"table":[["by","sniper"],["damage",12.5],["from",{"table":[[1,10],[2,-3]]}]]}` || got.At != 5 || got.Age != 0.25 || got.Left == nil || *got.Left != 1.25 {
		t.Fatalf("medic-1's Attacked: %+v", got)
	}
	h.ok("POST", "/api/agents/grunt-3/signal", `{"signal":"Poke"}`)
	found := false
	for _, s := range h.agent("grunt-3").Stimuli {
		if s.Signal == "Poke" {
			found = s.Data == nil && s.Age == 0 && s.Left == nil
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
				return jsonText(s.Data)
			}
		}
		return "(none)"
	}
	const want = `{"table":[["at",{"table":[[1,1.5],[2,-2]]}],["hp",10],["who","medic-1"]]}`
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

// TestAPI_stimulusDataIsCutAsLuaTablesAre: an agent holding many big
// stimuli is shown within the budget of ctx's tables: strings cut at 1,000
// bytes and 64 KiB together ({"string", "length"}), tables at 2,000
// values together ("more"), so the agent's state stays small.
func TestAPI_stimulusDataIsCutAsLuaTablesAre(t *testing.T) {
	h := start(t, "../tests/testdata/fixtures/signals/config.toml", 80, Options{Paused: true})
	big := strings.Repeat("é", 20000) // 40,000 bytes
	for i := range 70 {
		h.ok("POST", "/api/agents/grunt-3/signal", fmt.Sprintf(`{"signal":"Big%02d","data":%q}`, i, big))
	}
	list := make([]string, 5000)
	for i := range list {
		list[i] = fmt.Sprint(i)
	}
	h.ok("POST", "/api/agents/grunt-3/signal", `{"signal":"List","data":[`+strings.Join(list, ",")+`]}`)
	code, raw := h.raw("GET", "/api/agents/grunt-3", "", nil)
	if code != 200 || len(raw) > 200<<10 {
		t.Fatalf("GET the agent: %d, %d bytes", code, len(raw))
	}
	var v agentView
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	held := map[string]map[string]any{}
	for _, s := range v.Stimuli {
		if m, ok := s.Data.(map[string]any); ok {
			held[s.Signal] = m
		}
	}
	first := held["Big00"]
	if len(held) != 71 || first == nil || first["length"] != 40000.0 || first["string"] != strings.Repeat("é", 500) {
		t.Fatalf("Big00 shown as %.200v (%d stimuli with data)", first, len(held))
	}
	// 64 KiB of strings: the first 65 show 1,000 bytes (the 66th what is left), the last none.
	if last := held["Big69"]; last["string"] != "" || last["length"] != 40000.0 {
		t.Errorf("Big69 shown as %.200v", last)
	}
	l := held["List"]
	if entries, _ := l["table"].([]any); l["more"] != float64(5000-len(entries)) || len(entries) == 0 || len(entries) > 1000 {
		t.Errorf("List shows %d entries and %v more", len(entries), l["more"])
	}
}

// TestAPI_signalTheAgentCannotHoldIs409: a signal from the page whose
// stimulus would take the agent past its bound (run.stimulus_memory) is
// refused with the runtime's reason, and nothing is delivered.
func TestAPI_signalTheAgentCannotHoldIs409(t *testing.T) {
	h := start(t, "../tests/testdata/fixtures/signals/config.toml", 80, Options{Paused: true})
	big := strings.Repeat("x", 60000)
	for i := range 200 {
		code, v := h.do("POST", "/api/agents/grunt-3/signal", fmt.Sprintf(`{"signal":"Big%03d","data":%q}`, i, big))
		if code == 200 {
			continue
		}
		if code != 409 || !strings.Contains(fmt.Sprint(v), fmt.Sprintf(`cannot hold signal "Big%03d"`, i)) {
			t.Fatalf("signal %d: %d %.300v", i, code, v)
		}
		for _, s := range h.agent("grunt-3").Stimuli {
			if s.Signal == fmt.Sprintf("Big%03d", i) {
				t.Errorf("the refused Big%03d was delivered", i)
			}
		}
		return
	}
	t.Fatal("200 signals of 60,000 bytes each were all held")
}
