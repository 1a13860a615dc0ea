package liveview

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/game"
)

// TestAPI_agentsTreeAndAgentState: the agent list, a tree's rules with
// their attributes, and an agent's state after some steps, checked against
// the trace of a straight run of the same steps.
func TestAPI_agentsTreeAndAgentState(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true})
	agents := h.ok("GET", "/api/agents", "")["agents"].([]any)
	if len(agents) != 3 {
		t.Fatalf("agents: %v", agents)
	}
	first := agents[0].(map[string]any)
	if first["id"] != "guard-1" || first["tree"] != "guard" || first["state"] != "new" || first["rule"] != "guard" {
		t.Errorf("first agent before any step: %v", first)
	}

	var tree treeView
	_, raw := h.raw("GET", "/api/trees/guard", "", nil)
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	byLabel := map[string]ruleView{}
	for _, r := range tree.Rules {
		byLabel[r.Label] = r
	}
	if fight := byLabel["guard.fight"]; fight.Attrs["abort"] != "both" || fight.Kind != "sequence" || len(fight.Children) != 2 || fight.Conditions[0].Name != "Alarm" {
		t.Errorf("guard.fight: %+v", fight)
	}
	if chase := byLabel["guard.fight.chase"]; chase.Attrs["timeout"] != 3.0 || chase.Action != "walk" || chase.Parent != byLabel["guard.fight"].Index {
		t.Errorf("guard.fight.chase: %+v", chase)
	}
	if byLabel["guard.idle"].Attrs["order"] != "random" || byLabel["guard.idle.patrol"].Attrs["cooldown"] != 1.0 {
		t.Errorf("guard.idle: %+v, patrol %+v", byLabel["guard.idle"], byLabel["guard.idle.patrol"])
	}
	if _, ok := byLabel["success@ai/guard.xml:22:7"]; !ok {
		t.Errorf("the rule without an id is not labelled by its position: %v", tree.Rules)
	}
	if len(tree.Agents) != 3 || tree.Vars[0].Name != "Alarm" || tree.Stamps[0].SetOnSignal != "Alarm" || len(tree.Signals) != 2 {
		t.Errorf("tree declarations: %+v %+v %+v %+v", tree.Agents, tree.Vars, tree.Stamps, tree.Signals)
	}

	const steps = 24 // past the Alarm at step 20
	h.ok("POST", "/api/step", fmt.Sprintf(`{"steps":%d}`, steps))
	data, _ := straight(t, guards, steps)
	lines := readTrace(t, data)
	a := h.agent("guard-1")
	var last traceLine
	for _, l := range lines {
		if l.Agent == "guard-1" && l.Runs != nil {
			last = l
		}
	}
	if a.Step != steps || a.Rule != last.Cursor || a.State != "running" {
		t.Errorf("guard-1 at step %d: step %d, rule %q, state %q; the trace says cursor %q", steps, a.Step, a.Rule, a.State, last.Cursor)
	}
	if p := a.Cursors[0].Path; len(p) != 3 || p[0] != 0 || p[2] != a.Cursor {
		t.Errorf("active path %v", p)
	}
	if !slices.Equal(varsOf(a), []string{"Alarm=true"}) {
		t.Errorf("vars %v", a.Vars)
	}
	if s := a.Stamps[0]; !s.Set || *s.Time != 5 || *s.Since != 1 {
		t.Errorf("stamp Alerted: %+v", s)
	}
	if len(a.Clocks) != 1 || a.Clocks[0].Label != "guard.fight.chase" || a.Clocks[0].Timeout != 3 {
		t.Errorf("timeout clocks %+v", a.Clocks)
	}
	if !strings.Contains(fmt.Sprint(a.Ctx.Agent), "x") || !strings.Contains(fmt.Sprint(a.Ctx.Memory), "walks") || !strings.Contains(fmt.Sprint(a.Ctx.State), "left") {
		t.Errorf("ctx tables: agent %v memory %v state %v", a.Ctx.Agent, a.Ctx.Memory, a.Ctx.State)
	}
	// Each leaf rule's last result and step is the trace's.
	want := map[string]resultView{}
	for _, l := range lines {
		if l.Agent == "guard-1" {
			for _, r := range l.Runs {
				want[r[0]] = resultView{Result: r[1], Step: l.Step}
			}
		}
	}
	checkResults(t, a, tree, want)
	kinds := map[string]bool{}
	for _, e := range a.Events {
		kinds[e.Kind] = true
	}
	for _, k := range []string{"transition", "signal", "var", "stamp", "log", "interrupt", "finished"} {
		if !kinds[k] {
			t.Errorf("no %s event among %+v", k, a.Events)
		}
	}
}

// varsOf lists an agent's variables as name=value.
func varsOf(a agentView) []string {
	var out []string
	for _, v := range a.Vars {
		out = append(out, fmt.Sprintf("%s=%v", v.Name, v.Value))
	}
	return out
}

// checkResults compares the leaf rules' last results with the trace's.
func checkResults(t *testing.T, a agentView, tree treeView, want map[string]resultView) {
	t.Helper()
	got := map[string]resultView{}
	for _, r := range a.Results {
		rule := tree.Rules[r.Rule]
		if len(rule.Children) == 0 {
			got[rule.Label] = resultView{Result: r.Result, Step: r.Step}
		}
	}
	for label, w := range want {
		if got[label] != w {
			t.Errorf("%s: %s rule %s: last result %+v, the trace says %+v", a.ID, "leaf", label, got[label], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: results of %d leaf rules, the trace has %d", a.ID, len(got), len(want))
	}
}

// TestAPI_pauseStepResume: a running game pauses between steps, steps one
// step or several, resumes, and pauses at the run's end, where resume and
// step are refused.
func TestAPI_pauseStepResume(t *testing.T) {
	// A run too long to end while the test runs: the pause lands first.
	h := start(t, guards, 1<<40, Options{Fast: true})
	st := h.ok("POST", "/api/pause", "")
	if st["paused"] != true || st["reason"].(map[string]any)["kind"] != "pause" {
		t.Fatalf("pause: %v", st)
	}
	at := uint64(st["step"].(float64))
	if st2 := h.ok("GET", "/api/status", ""); uint64(st2["step"].(float64)) != at {
		t.Fatalf("the game went on while paused: %v then %v", at, st2["step"])
	}
	st = h.ok("POST", "/api/step", "")
	if got := uint64(st["step"].(float64)); got != at+1 || st["paused"] != true || st["reason"].(map[string]any)["kind"] != "step" {
		t.Fatalf("step from %d: %v", at, st)
	}
	st = h.ok("POST", "/api/step", `{"steps":5}`)
	if got := uint64(st["step"].(float64)); got != at+6 {
		t.Fatalf("5 steps from %d: at %d", at+1, got)
	}

	// The end of a run: resumed 20 steps before it, the game pauses there.
	e := start(t, guards, 120, Options{Paused: true, Fast: true})
	e.ok("POST", "/api/step", `{"steps":100}`)
	e.ok("POST", "/api/resume", "{}")
	st = e.waitPaused("end")
	if st["step"].(float64) != 120 || st["atEnd"] != true {
		t.Fatalf("at the end: %v", st)
	}
	if code, v := e.do("POST", "/api/resume", ""); code != http.StatusConflict {
		t.Errorf("resume at the end: %d %v", code, v)
	}
	if code, v := e.do("POST", "/api/step", ""); code != http.StatusConflict {
		t.Errorf("step at the end: %d %v", code, v)
	}
	e.ok("POST", "/api/quit", "")
	if err := <-e.done; err != nil {
		t.Fatal(err)
	}
	e.done <- nil
	if e.g.Step() != 120 {
		t.Errorf("the run ended at step %d", e.g.Step())
	}
}

// TestAPI_speed: at real time the steps are paced by dt on the wall clock
// (here a clock of the test's own), a multiple of real time paces them
// that much faster, the slowest speed too; fast does not pace at all.
func TestAPI_speed(t *testing.T) {
	clk := newFakeClock()
	h := startWith(t, guards, 100000, Options{Paused: true}, func(d *Debugger) { d.pace.clock = clk })
	h.ok("POST", "/api/speed", `{"speed": 4}`) // dt 0.25 s: a step every 62.5 ms
	h.ok("POST", "/api/resume", "")
	if st := h.ok("GET", "/api/status", ""); st["step"] != 0.0 || st["paused"] != false {
		t.Fatalf("no time has passed: %v", st)
	}
	for i := range 8 {
		clk.Advance(62500 * time.Microsecond)
		h.waitStep(uint64(i + 1)) // and not beyond
	}
	clk.Advance(62 * time.Millisecond) // not quite the next step's time
	if st := h.ok("POST", "/api/pause", ""); st["step"] != 8.0 || st["speed"] != 4.0 {
		t.Fatalf("at 4 × real time with dt 0.25 s, 0.562 s ran %v steps (speed %v); want 8", st["step"], st["speed"])
	}

	h.ok("POST", "/api/speed", `{"speed": 0.01}`) // the slowest: a step every 25 s
	h.ok("POST", "/api/resume", "")
	clk.Advance(24900 * time.Millisecond)
	if st := h.ok("GET", "/api/status", ""); st["step"] != 8.0 {
		t.Fatalf("at 0.01 × real time, 24.9 s ran a step: %v", st["step"])
	}
	clk.Advance(100 * time.Millisecond)
	h.waitStep(9)
	h.ok("POST", "/api/pause", "")

	h.ok("POST", "/api/speed", `{"speed": "fast"}`)
	h.ok("POST", "/api/resume", "")
	deadline := time.Now().Add(2 * time.Minute) // a hang guard: the clock stands still
	for h.ok("GET", "/api/status", "")["step"].(float64) < 200 {
		if time.Now().After(deadline) {
			t.Fatal("fast: the game does not run without the clock moving")
		}
		time.Sleep(time.Millisecond)
	}
	if st := h.ok("POST", "/api/pause", ""); st["speed"] != "fast" {
		t.Errorf("speed %v", st["speed"])
	}
}

// expectedHit finds, in a straight run's trace, the first step at which an
// agent (one of agents, or any when nil) arrives at a leaf rule: it runs
// it, and either another leaf ran before it in the step or the agent was
// not on it after its previous step.
func expectedHit(lines []traceLine, label string, agents []string) (string, uint64) {
	cursor := map[string]string{}
	for _, l := range lines {
		if l.Runs == nil {
			continue
		}
		for k, r := range l.Runs {
			if r[0] == label && (k > 0 || cursor[l.Agent] != label) && (agents == nil || slices.Contains(agents, l.Agent)) {
				return l.Agent, l.Step
			}
		}
		cursor[l.Agent] = l.Cursor
	}
	return "", 0
}

// TestAPI_breakpoints: a breakpoint on a rule pauses the game at the end
// of the step in which an agent arrives at it: any agent of the tree, or
// only the one chosen; rules are named by id, by label (a rule without an
// id) or by index.
func TestAPI_breakpoints(t *testing.T) {
	data, _ := straight(t, guards, 200)
	lines := readTrace(t, data)
	tests := []struct {
		name, body string
		label      string
		agents     []string
	}{
		{"anyAgent", `{"tree":"guard","rule":"guard.fight.chase"}`, "guard.fight.chase", nil},
		{"oneAgent", `{"agent":"guard-3","rule":"guard.idle.patrol"}`, "guard.idle.patrol", []string{"guard-3"}},
		{"byLabel", `{"tree":"guard","rule":"success@ai/guard.xml:22:7","agent":"guard-2"}`, "success@ai/guard.xml:22:7", []string{"guard-2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, guards, 200, Options{Paused: true, Fast: true})
			bp := h.ok("POST", "/api/breakpoints", tc.body)
			if bp["label"] != tc.label {
				t.Fatalf("breakpoint %v", bp)
			}
			agent, step := expectedHit(lines, tc.label, tc.agents)
			if step == 0 {
				t.Fatalf("the straight run never arrives at %s", tc.label)
			}
			h.ok("POST", "/api/resume", "")
			st := h.waitPaused("breakpoint")
			hits := st["reason"].(map[string]any)["hits"].([]any)
			hit := hits[0].(map[string]any)
			if hit["agent"] != agent || uint64(hit["step"].(float64)) != step || uint64(st["step"].(float64)) != step || hit["label"] != tc.label {
				t.Errorf("hit %v at step %v; the trace says %s arrives at step %d", hit, st["step"], agent, step)
			}
			a := h.agent(agent)
			if !slices.ContainsFunc(a.Results, func(r resultView) bool { return r.Step == step && r.Rule == uint32ToRule(bp["rule"]) }) {
				t.Errorf("%s's results show no run of %s at step %d: %+v", agent, tc.label, step, a.Results)
			}
			// Deleting it lets the run go on to its end.
			h.ok("DELETE", fmt.Sprintf("/api/breakpoints/%v", bp["id"]), "")
			h.ok("POST", "/api/resume", "")
			h.waitPaused("end")
		})
	}
}

func uint32ToRule(v any) int32 { return int32(v.(float64)) }

// TestAPI_signal: a signal sent between steps reaches the agent at once,
// at the current step's time, and the trace shows it from "debugger".
func TestAPI_signal(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true})
	h.ok("POST", "/api/step", `{"steps":3}`)
	h.ok("POST", "/api/agents/guard-2/signal", `{"signal":"Alarm"}`)
	a := h.agent("guard-2")
	if !slices.Equal(varsOf(a), []string{"Alarm=true"}) || !a.Stamps[0].Set || *a.Stamps[0].Time != 0.75 {
		t.Fatalf("after the signal: vars %v stamps %+v", a.Vars, a.Stamps)
	}
	h.ok("POST", "/api/step", "")
	if a := h.agent("guard-2"); !strings.HasPrefix(a.Rule, "guard.fight") {
		t.Errorf("after the Alarm, guard-2 runs %s", a.Rule)
	}
	h.ok("POST", "/api/quit", "")
	<-h.done
	h.done <- nil
	data, err := os.ReadFile(h.trace)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `{"step":3,"time":0.75,"agent":"guard-2","signal":"Alarm","from":"debugger"}`) {
		t.Errorf("the trace has no line of the signal:\n%s", data)
	}
	if code, v := h.do("POST", "/api/agents/nobody/signal", `{"signal":"Alarm"}`); code != 503 && code != 404 {
		t.Errorf("after the end: %d %v", code, v)
	}
}

// TestAPI_jump: a jump moves the cursor between steps; the rule runs at the
// next step; unknown ids and rules without an id are refused.
func TestAPI_jump(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true})
	h.ok("POST", "/api/step", `{"steps":2}`)
	h.ok("POST", "/api/agents/guard-3/jump", `{"rule":"guard.idle.patrol"}`)
	if a := h.agent("guard-3"); a.Rule != "guard.idle.patrol" || !a.FirstRun {
		t.Fatalf("after the jump: %s (firstRun %v)", a.Rule, a.FirstRun)
	}
	h.ok("POST", "/api/step", "")
	a := h.agent("guard-3")
	if a.Rule != "guard.idle.patrol" || a.State != "running" || a.Ctx.State == nil {
		t.Errorf("after a step: %s %s %v", a.Rule, a.State, a.Ctx.State)
	}
	if !slices.ContainsFunc(a.Events, func(e eventView) bool { return e.Kind == "jump" }) {
		t.Errorf("no jump event: %+v", a.Events)
	}
	code, v := h.do("POST", "/api/agents/guard-3/jump", `{"rule":"guard.nowhere"}`)
	if code != 404 || !strings.Contains(v["error"].(string), `no rule with id "guard.nowhere"`) || v["ids"] == nil {
		t.Errorf("unknown id: %d %v", code, v)
	}
	code, v = h.do("POST", "/api/agents/guard-3/jump", `{"rule":"success@ai/guard.xml:22:7"}`)
	if code != 404 || !strings.Contains(v["error"].(string), "has no id") {
		t.Errorf("a rule without an id: %d %v", code, v)
	}
}

// TestAPI_events: the live update stream starts with the whole picture.
func TestAPI_events(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true})
	resp, err := h.srv.Client().Get(h.srv.URL + "/api/events?agent=guard-1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	next := func() map[string]any {
		event := ""
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "event: ") {
				event = line[7:]
			}
			if strings.HasPrefix(line, "data: ") && event == "update" {
				var v map[string]any
				if err := json.Unmarshal([]byte(line[6:]), &v); err != nil {
					t.Fatal(err)
				}
				return v
			}
		}
		t.Fatal("the stream ended")
		return nil
	}
	v := next()
	if v["status"].(map[string]any)["paused"] != true || len(v["agents"].([]any)) != 3 || v["agent"].(map[string]any)["id"] != "guard-1" {
		t.Fatalf("first update: %v", v)
	}
	go h.do("POST", "/api/step", "")
	for range 10 {
		if v = next(); v["status"].(map[string]any)["step"].(float64) == 1 {
			return
		}
	}
	t.Errorf("no update shows step 1: %v", v["status"])
}

// TestAPI_reload: with a reload function the page's button works: it is
// called between steps, breakpoints follow their rules, time travel starts
// afresh; its error is a 422; without one, reload is 501.
func TestAPI_reload(t *testing.T) {
	calls := 0
	fail := false
	var g *game.Game
	h := start(t, guards, 200, Options{Paused: true, Reload: func() (string, error) {
		calls++
		if fail {
			return "", fmt.Errorf("ai/guard.xml:3:1: unknown tag <actoin>")
		}
		if _, err := g.Reload(game.ReloadOptions{}); err != nil { // calls the debugger's Reloaded
			return "", err
		}
		return "reloaded 3 files", nil
	}})
	g = h.g
	if st := h.ok("GET", "/api/status", ""); st["reload"] != true {
		t.Fatalf("status says no reload: %v", st)
	}
	h.ok("POST", "/api/step", `{"steps":30}`)
	h.ok("POST", "/api/breakpoints", `{"tree":"guard","rule":"guard.idle.patrol"}`)
	v := h.ok("POST", "/api/reload", "")
	st := v["status"].(map[string]any)
	if v["summary"] != "reloaded 3 files" || calls != 1 || st["first"] != 30.0 || st["timeTravel"].(map[string]any)["oldest"] != 30.0 {
		t.Errorf("reload: %v", v)
	}
	if bps := st["breakpoints"].([]any); len(bps) != 1 || bps[0].(map[string]any)["label"] != "guard.idle.patrol" {
		t.Errorf("breakpoints after the reload: %v", bps)
	}
	if code, v := h.do("POST", "/api/travel", `{"step":10}`); code != 422 {
		t.Errorf("travel to before the reload: %d %v", code, v)
	}
	fail = true
	if code, v := h.do("POST", "/api/reload", ""); code != 422 || !strings.Contains(v["error"].(string), "actoin") {
		t.Errorf("a reload that fails: %d %v", code, v)
	}
	h.ok("POST", "/api/step", "")
}

// TestAPI_quitWhileShowingAnEarlierStep: the run ends at its latest step,
// not at the one shown, and the live streams get their end event.
func TestAPI_quitWhileShowingAnEarlierStep(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true})
	h.ok("POST", "/api/step", `{"steps":50}`)
	h.ok("POST", "/api/travel", `{"step":20}`)
	resp, err := h.srv.Client().Get(h.srv.URL + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	h.ok("POST", "/api/quit", "")
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
	h.done <- nil
	if h.g.Step() != 50 {
		t.Errorf("the run ended at step %d, not 50", h.g.Step())
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "event: end") || !strings.Contains(string(body), `"step":50`) {
		t.Errorf("the stream's last events: %.300s", body)
	}
}

// TestAPI_agentViewsAgreeWithTheList: at every step, each agent's own view
// says what the agent list says of it.
func TestAPI_agentViewsAgreeWithTheList(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true})
	states := map[string]bool{}
	for range 30 {
		h.ok("POST", "/api/step", "")
		for _, x := range h.ok("GET", "/api/agents", "")["agents"].([]any) {
			sum := x.(map[string]any)
			states[sum["state"].(string)] = true
			if v := h.agent(sum["id"].(string)); v.State != sum["state"] || v.Rule != sum["rule"] || float64(v.Failures) != sum["failures"] {
				t.Fatalf("%s: the list says %v, the agent's view %s %s", v.ID, sum, v.State, v.Rule)
			}
		}
	}
	if !states["running"] || !states["succeeded"] {
		t.Errorf("the agents were never both running and succeeded: %v", states)
	}
}

// TestDebugger_quitFromAnotherGoroutine: Quit ends a paused run (a signal
// handler's way out).
func TestDebugger_quitFromAnotherGoroutine(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true})
	h.ok("POST", "/api/step", `{"steps":5}`)
	h.d.Quit()
	select {
	case err := <-h.done:
		h.done <- err
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("the run did not end")
	}
	if h.g.Step() != 5 {
		t.Errorf("the run ended at step %d", h.g.Step())
	}
}
