package liveview

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The fixtures of the end-to-end tests: scouts whose patrol is a parallel
// with a nested parallel (lanes), and grunts and pairs sharing gates.
const (
	parallelGame = "../tests/testdata/fixtures/parallel/config.toml"
	gatesGame    = "../tests/testdata/fixtures/gates/config.toml"
)

// traceLanes decodes a trace line's "lanes" (nested arrays of labels) into
// the running lanes' cursors, depth first.
func traceLanes(raw json.RawMessage) []string {
	if raw == nil {
		return nil
	}
	var v any
	json.Unmarshal(raw, &v)
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return out
}

// fullLine is a trace line with the keys of lanes and gates.
type fullLine struct {
	Step   uint64          `json:"step"`
	Agent  string          `json:"agent"`
	Runs   [][]string      `json:"runs"`
	Result string          `json:"result"`
	Cursor string          `json:"cursor"`
	Lanes  json.RawMessage `json:"lanes"`
	Gates  [][]string      `json:"gates"`
}

func readFullTrace(t *testing.T, data []byte) []fullLine {
	t.Helper()
	var out []fullLine
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var f fullLine
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("trace line %q: %v", l, err)
		}
		out = append(out, f)
	}
	return out
}

// agentJSON fetches an agent's view as raw JSON.
func (h *harness) agentJSON(id string) string {
	h.t.Helper()
	code, raw := h.raw("GET", "/api/agents/"+id, "", nil)
	if code != 200 {
		h.t.Fatalf("GET agent %s: %d %s", id, code, raw)
	}
	return string(raw)
}

// TestAPI_lanesShowEveryLaneCursorAndResult: at every step of the parallel
// fixture, each scout's view has its own cursor and one per running lane
// (each with its path from the root through its parallel), as the trace's
// "cursor" and "lanes" say; the parallels it entered show their thresholds
// and each lane's state, a parallel that finished showing how each lane
// ended, cancelled ones included; and time travel to any earlier step shows
// the same views as the step showed live.
func TestAPI_lanesShowEveryLaneCursorAndResult(t *testing.T) {
	const steps = 48
	data, _ := straight(t, parallelGame, steps)
	lines := readFullTrace(t, data)
	h := start(t, parallelGame, steps, Options{Paused: true, Fast: true, SnapshotEvery: 10})
	var tree treeView
	h.getJSON("/api/trees/scout", &tree)
	if p := tree.Rules[ruleIndex(t, tree, "patrol")]; p.Attrs["success"] != "1" || p.Attrs["failure"] != "all" {
		t.Errorf("patrol's attributes %v", p.Attrs)
	}
	ids := []string{"scout-1", "scout-2", "scout-3"}
	live := map[string]string{}
	cancelled := 0
	prev := map[string]agentView{}
	for s := uint64(1); s <= steps; s++ {
		h.ok("POST", "/api/step", "")
		for _, id := range ids {
			raw := h.agentJSON(id)
			live[fmt.Sprint(s, id)] = raw
			var a agentView
			if err := json.Unmarshal([]byte(raw), &a); err != nil {
				t.Fatal(err)
			}
			var line *fullLine
			for i := range lines {
				if lines[i].Step == s && lines[i].Agent == id && lines[i].Runs != nil {
					line = &lines[i]
				}
			}
			if line == nil {
				t.Fatalf("no trace line of %s at step %d", id, s)
			}
			var got []string
			for k, c := range a.Cursors {
				if k == 0 {
					if c.Label != line.Cursor || c.Lane != nil {
						t.Errorf("step %d %s: own cursor %+v; the trace says %s", s, id, c, line.Cursor)
					}
					continue
				}
				got = append(got, c.Label)
				if c.Lane == nil || !slices.Contains(c.Path, c.Lane.Parallel) || c.Path[len(c.Path)-1] != c.Rule || c.Path[0] != 0 {
					t.Errorf("step %d %s: lane cursor %+v", s, id, c)
				}
			}
			if want := traceLanes(line.Lanes); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("step %d %s: lane cursors %q; the trace says %q", s, id, got, want)
			}
			for _, p := range a.Parallels {
				var running, succeeded, failed int
				for _, l := range p.Lanes {
					switch l.Status {
					case "running":
						running++
					case "success":
						succeeded++
					case "failure":
						failed++
					case "cancelled":
						if p.Active {
							t.Errorf("step %d %s: a cancelled lane in active parallel %+v", s, id, p)
						}
						// A lane is cancelled when it was running the step before.
						was := slices.IndexFunc(prev[id].Parallels, func(q parallelView) bool { return q.Rule == p.Rule })
						if was >= 0 && prev[id].Parallels[was].Active && p.Result != nil && p.Result.Step == s && !slices.ContainsFunc(prev[id].Parallels[was].Lanes, func(q laneView) bool {
							return q.Child == l.Child && q.Status == "running"
						}) {
							t.Errorf("step %d %s: lane %s cancelled, though it was not running before the step", s, id, l.Label)
						}
						cancelled++
					}
				}
				if p.Active != (running > 0) || p.Succeeded != succeeded || p.Failed != failed {
					t.Errorf("step %d %s: parallel %+v", s, id, p)
				}
				if !p.Active && p.Result != nil && p.Result.Result == "success" && succeeded < p.Success {
					t.Errorf("step %d %s: parallel succeeded with %d lanes done with success, of %d needed: %+v", s, id, succeeded, p.Success, p)
				}
			}
			prev[id] = a
		}
	}
	if cancelled == 0 {
		t.Error("no lane was ever shown cancelled")
	}
	for _, s := range []uint64{47, 3, 9, 10, 11, 30, 1, 22} {
		h.ok("POST", "/api/travel", fmt.Sprintf(`{"step":%d}`, s))
		for _, id := range ids {
			if got, want := h.agentJSON(id), live[fmt.Sprint(s, id)]; got != want {
				t.Errorf("step %d %s: travelled to, the view differs from the live one:\n got  %s\n want %s", s, id, got, want)
			}
		}
	}
}

func ruleIndex(t *testing.T, tree treeView, label string) int {
	t.Helper()
	for i, r := range tree.Rules {
		if r.Label == label {
			return i
		}
	}
	t.Fatalf("no rule %s in tree %s", label, tree.Name)
	return -1
}

// TestAPI_breakpointInsideALaneHits: breakpoints on rules inside lanes,
// on a lane's first rule, on a rule a lane moves to, and on a nested
// parallel, pause the game at the first step at which an agent's lane
// arrives there, as the straight run's trace says.
func TestAPI_breakpointInsideALaneHits(t *testing.T) {
	data, _ := straight(t, parallelGame, 48)
	lines := readFullTrace(t, data)
	for _, rule := range []string{"patrol.scan.right", "patrol.walk", "hide.watch.report", "patrol.scan"} {
		t.Run(rule, func(t *testing.T) {
			// The first arrival the trace shows: the first step at which
			// the rule (or, for the nested parallel, a rule of its lanes)
			// runs for an agent that was not running it the step before.
			var agent string
			var step uint64
			last := map[string]*fullLine{}
			for i := range lines {
				l := &lines[i]
				if l.Runs == nil {
					continue
				}
				before := last[l.Agent]
				last[l.Agent] = l
				ran := slices.ContainsFunc(l.Runs, func(r []string) bool { return r[0] == rule || strings.HasPrefix(r[0], rule+".") })
				was := before != nil && slices.ContainsFunc(traceLanes(before.Lanes), func(c string) bool { return c == rule || strings.HasPrefix(c, rule+".") })
				if ran && !was {
					agent, step = l.Agent, l.Step
					break
				}
			}
			if step == 0 {
				t.Fatalf("the trace never arrives at %s", rule)
			}
			h := start(t, parallelGame, 48, Options{Paused: true, Fast: true})
			h.ok("POST", "/api/breakpoints", fmt.Sprintf(`{"tree":"scout","rule":%q}`, rule))
			h.ok("POST", "/api/resume", "")
			st := h.waitPaused("breakpoint")
			hit := st["reason"].(map[string]any)["hits"].([]any)[0].(map[string]any)
			if hit["agent"] != agent || uint64(hit["step"].(float64)) != step || hit["label"] != rule {
				t.Errorf("hit %v; the trace says %s arrives at %s at step %d", hit, agent, rule, step)
			}
		})
	}
}

// TestAPI_gatesShowHoldersWaitersAndEvents: at every step of the gates
// fixture, the game's gate panel lists each gate's holders in the order
// the trace's takes and releases give, and the agents waiting at a
// bt.gate.wait for it; each agent's view lists the gates it holds with its
// slot, and its events the takes and releases of its steps; travelling back
// shows each step's panel again.
func TestAPI_gatesShowHoldersWaitersAndEvents(t *testing.T) {
	const steps = 60
	data, _ := straight(t, gatesGame, steps)
	lines := readFullTrace(t, data)
	h := start(t, gatesGame, steps, Options{Paused: true, Fast: true, SnapshotEvery: 7})
	var tree treeView
	h.getJSON("/api/trees/pair", &tree)
	if r := tree.Rules[ruleIndex(t, tree, "meet")]; r.Attrs["gate"] != "meet" {
		t.Errorf("meet's attributes %v", r.Attrs)
	}
	if fmt.Sprint(tree.Gates) != "[{meet 2 0} {grenade 1 2}]" {
		t.Errorf("pair's gates %v", tree.Gates)
	}
	holders := map[string][]string{} // gate -> holders in take order, from the trace
	panels := map[uint64]string{}
	sawWaiter, sawHolder := false, false
	for s := uint64(1); s <= steps; s++ {
		h.ok("POST", "/api/step", "")
		waiters := map[string][]string{}
		var releases [][2]string
		for _, l := range lines {
			if l.Step != s || l.Runs == nil {
				continue
			}
			for _, g := range l.Gates {
				if g[1] == "take" {
					holders[g[0]] = append(holders[g[0]], l.Agent)
				} else {
					releases = append(releases, [2]string{g[0], l.Agent})
				}
			}
			if l.Cursor == "meet.wait" && l.Result == "running" {
				waiters["meet"] = append(waiters["meet"], l.Agent)
			}
		}
		for _, r := range releases { // applied at the round's end
			holders[r[0]] = slices.DeleteFunc(holders[r[0]], func(id string) bool { return id == r[1] })
		}
		var got struct {
			Step  uint64     `json:"step"`
			Gates []gateView `json:"gates"`
		}
		h.getJSON("/api/gates", &got)
		raw, _ := json.Marshal(got.Gates)
		panels[s] = string(raw)
		for _, g := range got.Gates {
			var ids []string
			for k, hv := range g.Holders {
				ids = append(ids, hv.Agent)
				if hv.Slot != k+1 {
					t.Errorf("step %d: gate %s: holder %+v at place %d", s, g.Name, hv, k+1)
				}
				a := h.agent(hv.Agent)
				if !slices.ContainsFunc(a.Gates, func(x heldGateView) bool { return x.Name == g.Name && x.Slot == hv.Slot && len(x.Rules) > 0 }) {
					t.Errorf("step %d: %s holds %s in slot %d; its view says %+v", s, hv.Agent, g.Name, hv.Slot, a.Gates)
				}
				sawHolder = true
			}
			if strings.Join(ids, " ") != strings.Join(holders[g.Name], " ") {
				t.Errorf("step %d: gate %s held by %q; the trace says %q", s, g.Name, ids, holders[g.Name])
			}
			if strings.Join(g.Waiters, " ") != strings.Join(waiters[g.Name], " ") {
				t.Errorf("step %d: gate %s waited for by %q; the trace says %q", s, g.Name, g.Waiters, waiters[g.Name])
			}
			sawWaiter = sawWaiter || len(g.Waiters) > 0
			if g.Open != (len(g.Holders) < g.Users && g.CoolingLeft == 0) {
				t.Errorf("step %d: gate %+v", s, g)
			}
		}
		// The agents' events show their takes and releases of this step.
		for _, l := range lines {
			if l.Step != s || len(l.Gates) == 0 {
				continue
			}
			a := h.agent(l.Agent)
			var evs []string
			for _, e := range a.Events {
				if e.Kind == "gate" && e.Step == s {
					evs = append(evs, e.Text)
				}
			}
			var want []string
			for _, g := range l.Gates {
				want = append(want, map[string]string{"take": "took ", "release": "released "}[g[1]]+g[0])
			}
			if strings.Join(evs, ", ") != strings.Join(want, ", ") {
				t.Errorf("step %d %s: gate events %q; the trace says %q", s, l.Agent, evs, want)
			}
		}
	}
	if !sawWaiter || !sawHolder {
		t.Errorf("never a waiter (%v) or a holder (%v)", sawWaiter, sawHolder)
	}
	for _, s := range []uint64{59, 2, 13, 14, 40, 1} {
		st := h.ok("POST", "/api/travel", fmt.Sprintf(`{"step":%d}`, s))
		raw, _ := json.Marshal(st["gates"])
		var a, b any
		json.Unmarshal(raw, &a)
		json.Unmarshal([]byte(panels[s]), &b)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("step %d: travelled to, the gates are\n %v\nlive they were\n %v", s, a, b)
		}
	}
}
