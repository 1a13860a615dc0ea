package liveview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestTimeTravel_showsWhatTheStraightRunHad: travelling to an earlier step
// shows exactly the game a straight run had at that step: the whole state
// (SaveState, byte for byte) and, in the agent views, what the straight
// run's trace says of each agent up to that step (cursor, variables,
// timestamps, each leaf rule's last result and step).
func TestTimeTravel_showsWhatTheStraightRunHad(t *testing.T) {
	const steps = 120
	data, states := straight(t, guards, steps)
	lines := readTrace(t, data)
	h := start(t, guards, steps, Options{Paused: true, SnapshotEvery: 20})
	h.ok("POST", "/api/step", fmt.Sprintf(`{"steps":%d}`, steps))
	var tree treeView
	h.getJSON("/api/trees/guard", &tree)
	for _, s := range []uint64{0, 1, 7, 19, 20, 21, 55, 99, 120, 64, 3, 64, 65, 119} {
		st := h.ok("POST", "/api/travel", fmt.Sprintf(`{"step":%d}`, s))
		if uint64(st["step"].(float64)) != s || st["head"].(float64) != steps || st["live"] != (s == steps) {
			t.Fatalf("travel to %d: %v", s, st)
		}
		var got []byte
		h.onGame(func() {
			var err error
			if got, err = h.g.SaveState(); err != nil {
				t.Error(err)
			}
		})
		if !bytes.Equal(got, states[s]) {
			t.Errorf("step %d: the game's state differs from the straight run's at that step", s)
		}
		for _, id := range []string{"guard-1", "guard-2", "guard-3"} {
			checkAgainstTrace(t, h.agent(id), tree, lines, s)
		}
	}
}

// checkAgainstTrace compares an agent's view at step s with what the
// trace's lines up to s say.
func checkAgainstTrace(t *testing.T, a agentView, tree treeView, lines []traceLine, s uint64) {
	t.Helper()
	cursor := "guard"
	vars := map[string]bool{"Alarm": false}
	stamps := map[string]*float64{}
	results := map[string]resultView{}
	for _, l := range lines {
		if l.Step > s || l.Agent != a.ID {
			continue
		}
		switch {
		case l.Runs != nil:
			cursor = l.Cursor
			for _, r := range l.Runs {
				results[r[0]] = resultView{Result: r[1], Step: l.Step}
			}
		case l.Var != "":
			vars[l.Var] = *l.Value
		case l.Stamp != "":
			if *l.Set {
				at := l.Time
				stamps[l.Stamp] = &at
			} else {
				stamps[l.Stamp] = nil
			}
		}
	}
	if a.Step != s || a.Rule != cursor {
		t.Errorf("step %d: %s is at %q (view of step %d); the trace says %q", s, a.ID, a.Rule, a.Step, cursor)
	}
	for _, v := range a.Vars {
		if vars[v.Name] != v.Value {
			t.Errorf("step %d: %s: %s = %v; the trace says %v", s, a.ID, v.Name, v.Value, vars[v.Name])
		}
	}
	for _, st := range a.Stamps {
		want := stamps[st.Name]
		if st.Set != (want != nil) || want != nil && *st.Time != *want {
			t.Errorf("step %d: %s: timestamp %s %+v; the trace says %v", s, a.ID, st.Name, st, want)
		}
	}
	checkResults(t, a, tree, results)
}

func (h *harness) getJSON(path string, v any) {
	h.t.Helper()
	code, raw := h.raw("GET", path, "", nil)
	if code != 200 {
		h.t.Fatalf("GET %s: %d %s", path, code, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		h.t.Fatal(err)
	}
}

// TestTimeTravel_resumeDiscardsLaterSteps: resuming from an earlier step
// discards the steps after it, and the trace file is cut back to it: the
// debugged run's trace is the straight run's.
func TestTimeTravel_resumeDiscardsLaterSteps(t *testing.T) {
	const steps = 150
	want, _ := straight(t, guards, steps)
	h := start(t, guards, steps, Options{Paused: true, Fast: true})
	h.ok("POST", "/api/step", `{"steps":90}`)
	h.ok("POST", "/api/travel", `{"step":35}`)
	h.ok("POST", "/api/travel", `{"step":47}`) // forward, from where it is
	h.ok("POST", "/api/travel", `{"step":35}`)
	if a := h.agent("guard-1"); len(a.Events) == 0 || a.Events[len(a.Events)-1].Step > 35 {
		t.Errorf("events shown at step 35 go beyond it: %+v", a.Events)
	}
	st := h.ok("POST", "/api/resume", "")
	if d := st["discarded"].([]any); d[0].(float64) != 36 || d[1].(float64) != 90 {
		t.Errorf("discarded %v", d)
	}
	h.waitPaused("end")
	h.ok("POST", "/api/quit", "")
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
	h.done <- nil
	got, err := os.ReadFile(h.trace)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the debugged run's trace (%d bytes) differs from the straight run's (%d bytes)", len(got), len(want))
	}
}

// TestTimeTravel_replaysCommands: signals and jumps the debugger applied
// are part of the timeline: travelling back over them shows them again.
func TestTimeTravel_replaysCommands(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true, SnapshotEvery: 4})
	state := func() []byte {
		var s []byte
		h.onGame(func() { s, _ = h.g.SaveState() })
		return s
	}
	h.ok("POST", "/api/step", `{"steps":10}`)
	h.ok("POST", "/api/agents/guard-3/signal", `{"signal":"Alarm"}`)
	h.ok("POST", "/api/agents/guard-2/jump", `{"rule":"guard.idle.patrol"}`)
	at10 := state()
	h.ok("POST", "/api/step", `{"steps":5}`)
	h.ok("POST", "/api/agents/guard-1/jump", `{"rule":"guard.idle.rest"}`)
	at15 := state()
	h.ok("POST", "/api/step", `{"steps":25}`)
	at40 := state()
	for _, c := range []struct {
		step uint64
		want []byte
	}{{10, at10}, {40, at40}, {15, at15}, {12, nil}, {10, at10}, {40, at40}} {
		h.ok("POST", "/api/travel", fmt.Sprintf(`{"step":%d}`, c.step))
		if c.want != nil && !bytes.Equal(state(), c.want) {
			t.Errorf("travel to %d: the state differs from the one the game had there", c.step)
		}
	}
	// A command at an earlier step discards the later steps first.
	h.ok("POST", "/api/travel", `{"step":12}`)
	st := h.ok("POST", "/api/agents/guard-1/signal", `{"signal":"AllClear"}`)
	if d := st["discarded"].([]any); d[0].(float64) != 13 || d[1].(float64) != 40 || st["head"].(float64) != 12 {
		t.Errorf("a signal at step 12: %v", st)
	}
	h.ok("POST", "/api/travel", `{"step":10}`)
	if !bytes.Equal(state(), at10) {
		t.Error("step 10 changed after a branch at step 12")
	}
}

// TestTimeTravel_limits: travelling is for a paused game, to a step that
// ran and is still kept; a small budget thins and drops old snapshots.
func TestTimeTravel_limits(t *testing.T) {
	h := start(t, guards, 1000, Options{Paused: true, SnapshotEvery: 2, Budget: 6000})
	if code, v := h.do("POST", "/api/travel", `{"step":5}`); code != http.StatusUnprocessableEntity || v["head"] != 0.0 {
		t.Errorf("travel ahead of the run: %d %v", code, v)
	}
	h.ok("POST", "/api/step", `{"steps":999}`)
	st := h.ok("GET", "/api/status", "")
	tt := st["timeTravel"].(map[string]any)
	oldest := tt["oldest"].(float64)
	if oldest == 0 || tt["bytes"].(float64) > 6000 {
		t.Fatalf("a 6 kB budget over 1000 steps: %v", tt)
	}
	code, v := h.do("POST", "/api/travel", `{"step":0}`)
	if code != http.StatusUnprocessableEntity || v["oldest"] != oldest {
		t.Errorf("travel before the oldest kept step: %d %v", code, v)
	}
	_, states := straight(t, guards, 999)
	for _, s := range []uint64{uint64(oldest), uint64(oldest) + 1, 998, 950} {
		h.ok("POST", "/api/travel", fmt.Sprintf(`{"step":%d}`, s))
		var got []byte
		h.onGame(func() { got, _ = h.g.SaveState() })
		if !bytes.Equal(got, states[s]) {
			t.Errorf("step %d (budget-thinned snapshots) differs from the straight run", s)
		}
	}
	h.ok("POST", "/api/resume", "")
	if code, v := h.do("POST", "/api/travel", `{"step":10}`); code != http.StatusConflict {
		t.Errorf("travel while running: %d %v", code, v)
	}
}

// TestTimeline_trimKeepsTheBudget: thinning keeps the snapshots within the
// budget, the newest always, gaps within maxGapFactor intervals, and drops
// the oldest only when thinning cannot.
func TestTimeline_trimKeepsTheBudget(t *testing.T) {
	tl := timeline{every: 1, budget: 1000}
	for s := uint64(0); s < 5000; s++ {
		tl.snaps = append(tl.snaps, snapshot{step: s, size: 100})
		tl.bytes += 100
		tl.trim()
		if tl.bytes > tl.budget {
			t.Fatalf("step %d: %d bytes over a budget of %d", s, tl.bytes, tl.budget)
		}
		if last := tl.snaps[len(tl.snaps)-1].step; last != s {
			t.Fatalf("step %d: the newest snapshot is %d", s, last)
		}
		for i := 1; i < len(tl.snaps); i++ {
			if gap := tl.snaps[i].step - tl.snaps[i-1].step; gap > maxGapFactor {
				t.Fatalf("step %d: a gap of %d steps", s, gap)
			}
		}
	}
	if tl.snaps[0].step == 0 {
		t.Errorf("after 5000 steps with room for 10 snapshots the first is still kept: %v", tl.snaps)
	}
}

// TestTimeTravel_exampleGame: the example game, whose grunts call the nav
// plugin (state bytes per rule) and whose world script moves a player,
// is shown exactly at earlier steps too.
func TestTimeTravel_exampleGame(t *testing.T) {
	const steps = 150
	_, states := straight(t, "../config.toml", steps)
	h := start(t, "../config.toml", steps, Options{Paused: true})
	h.ok("POST", "/api/step", fmt.Sprintf(`{"steps":%d}`, steps))
	for _, s := range []uint64{71, 0, 33, 149, 100, 150} {
		h.ok("POST", "/api/travel", fmt.Sprintf(`{"step":%d}`, s))
		var got []byte
		h.onGame(func() { got, _ = h.g.SaveState() })
		if !bytes.Equal(got, states[s]) {
			t.Errorf("step %d: the example game's state differs from the straight run's", s)
		}
	}
}

// TestTimeTravel_keepsTheOrderOfPairs: in a game whose ctx.memory and
// ctx.agent keys come, go and come back, and whose variable follows the
// order pairs() walks ctx.memory in, going back in time and changing the
// game there (a signal that makes it use other keys) gives the trace of a
// run that was changed at that step without going forward first: the keys
// of the discarded steps, restored over, leave no place behind in the
// tables.
func TestTimeTravel_keepsTheOrderOfPairs(t *testing.T) {
	const steps, config, at = 80, "testdata/churn/config.toml", 13
	changed := func(travel bool) []byte {
		h := start(t, config, steps, Options{Paused: true, Fast: true, SnapshotEvery: 5})
		if travel {
			h.ok("POST", "/api/step", `{"steps":60}`)
			for _, s := range []int{41, 22, at} {
				h.ok("POST", "/api/travel", fmt.Sprintf(`{"step":%d}`, s))
			}
		} else {
			h.ok("POST", "/api/step", fmt.Sprintf(`{"steps":%d}`, at))
		}
		for _, id := range []string{"c-1", "c-2", "c-3"} {
			h.ok("POST", "/api/agents/"+id+"/signal", `{"signal":"Other"}`)
		}
		h.ok("POST", "/api/resume", "")
		h.waitPaused("end")
		h.ok("POST", "/api/quit", "")
		if err := <-h.done; err != nil {
			t.Fatal(err)
		}
		h.done <- nil
		data, err := os.ReadFile(h.trace)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	want, got := changed(false), changed(true)
	if !bytes.Equal(got, want) {
		t.Errorf("the trace differs from the run changed without going forward first:\n%s", firstLineDiff(string(got), string(want)))
	}
}

// firstLineDiff shows the first line where two texts differ.
func firstLineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, a, b)
		}
	}
	return "(none)"
}
