package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestParallel_pausesInALaneAndResumesThere: a call that answers later in a
// lane pauses the agent's whole step; the answer resumes that lane, then
// the lanes after it run. Each lane's first run, state bytes and rule word
// are its own.
func TestParallel_pausesInALaneAndResumesThere(t *testing.T) {
	var calls []string
	reg := NewRegistry()
	reg.RegisterAction("remote", ActionFunc(func(a *Agent, p Params) (Status, error) {
		calls = append(calls, fmt.Sprintf("remote %s first=%t bytes=%q lane=%d", a.Label(), a.FirstRun(), a.RuleBytes(), a.Lane()))
		return 0, ErrPending
	}))
	reg.RegisterAction("local", ActionFunc(func(a *Agent, p Params) (Status, error) {
		calls = append(calls, fmt.Sprintf("local %s first=%t bytes=%q lane=%d", a.Label(), a.FirstRun(), a.RuleBytes(), a.Lane()))
		a.SetRuleBytes([]byte(a.Label()))
		return Running, nil
	}))
	a := mustAgent(t, bt(`<sequence id="root"><parallel id="p">
  <action id="x" name="remote"/>
  <action id="y" name="local"/>
  <action id="z" name="bt.wait"><parameter name="wait.seconds">1.5</parameter></action>
</parallel></sequence>`), reg)
	if st, err := a.Step(1); st != Paused || err != nil {
		t.Fatalf("step 1: %v %v", st, err)
	}
	if len(calls) != 1 || a.Lane() != 0 {
		t.Fatalf("paused in lane %d after %v; want lane 0 after x's call only", a.Lane(), calls)
	}
	a.SetRuleBytes([]byte("x-state")) // as a plugin's reply does
	if st, err := a.CompleteAction(Running, nil); st != Running || err != nil {
		t.Fatalf("resumed: %v %v", st, err)
	}
	if a.Lane() != -1 || a.CursorLabel() != "p" {
		t.Fatalf("after the step: lane %d, cursor %s", a.Lane(), a.CursorLabel())
	}
	if st, _ := a.Step(1); st != Paused {
		t.Fatalf("step 2: %v", st)
	}
	a.CompleteAction(Running, nil)
	want := []string{
		`remote x first=true bytes="" lane=0`,
		`local y first=true bytes="" lane=1`,
		`remote x first=false bytes="x-state" lane=0`,
		`local y first=false bytes="y" lane=1`,
	}
	if got := strings.Join(calls, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	// z's bt.wait keeps its start time in its lane's rule word: started at
	// t=1, it is done at t=2.5, so at the third step.
	var lanes []Lane
	if lanes = a.Lanes(lanes); len(lanes) != 3 || lanes[2].Status != Running {
		t.Fatalf("lanes after step 2: %+v", lanes)
	}
	a.Step(1)
	a.CompleteAction(Running, nil)
	if lanes = a.Lanes(lanes[:0]); lanes[2].Status != Success {
		t.Errorf("z after 2 s: %+v, want done", lanes[2])
	}
}

// TestParallel_checksSeeTheLane: a watched condition of a rule in a lane is
// called with that lane being run (its rule, its state), and a pause in the
// checks resumes there.
func TestParallel_checksSeeTheLane(t *testing.T) {
	var seen []string
	reg := NewRegistry()
	reg.RegisterAction("act", ActionFunc(func(a *Agent, p Params) (Status, error) {
		if a.RuleValue() == nil {
			a.SetRuleValue(a.Label() + "'s state")
		}
		return Running, nil
	}))
	pending := true
	reg.RegisterCondition("watch", ConditionFunc(func(a *Agent, p Params) (bool, error) {
		seen = append(seen, fmt.Sprintf("%s lane=%d cursor=%s state=%v", a.Label(), a.Lane(), a.CursorLabel(), a.RuleValue()))
		if pending {
			return false, ErrPending
		}
		return true, nil
	}))
	a := mustAgent(t, bt(`<sequence id="root"><parallel id="p">
  <action id="x" name="act"/>
  <sequence id="guard" abort="self"><condition>watch</condition><action id="y" name="act"/></sequence>
</parallel></sequence>`), reg)
	pending = false
	a.Step(1)
	pending = true
	if st, _ := a.Step(1); st != Paused || a.Lane() != 1 {
		t.Fatalf("step 2: %v in lane %d, want paused in lane 1", st, a.Lane())
	}
	if st, err := a.CompleteCondition(false, nil); st != Failure || err != nil {
		t.Fatalf("after the answer: %v %v (guard aborted: its lane fails, and so does p)", st, err)
	}
	want := []string{
		"guard lane=1 cursor=guard state=<nil>", // entered: its conditions, before y ran
		"guard lane=1 cursor=y state=y's state", // watched at the start of step 2
	}
	if got := strings.Join(seen, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("the condition saw:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if in, ok := a.LastInterrupt(); !ok || in.Kind != InterruptAbort || a.bound.Tree.Rules[in.Rule].Label != "guard" {
		t.Errorf("interrupt %+v %v", in, ok)
	}
}

// TestParallel_jumpFromAWatchedConditionInALane: a condition the checks
// call in a lane may jump; the walk ends and the step goes on.
func TestParallel_jumpFromAWatchedConditionInALane(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root"><parallel id="p">
  <sequence id="s" abort="self"><condition>c</condition><action id="a" name="act"/><action id="a2" name="act"/></sequence>
  <action id="b" name="act"/>
</parallel></sequence>`), map[string]bool{"c": true})
	h.script["a"], h.script["a2"], h.script["b"] = []Status{R}, []Status{R}, []Status{R}
	n := 0
	h.hook["?c"] = func(a *Agent) error {
		if n++; n == 2 {
			return a.Jump("a2")
		}
		return nil
	}
	expectSteps(t, h.steps(3), []string{
		"running p{a b}: ?c a:start a b:start b",
		"running p{a2 b}: ?c a:cancel a2:start a2 b", // the jump: no interrupt reported
		"running p{a2 b}: ?c a2 b",
	})
}

// TestParallel_runawayCountsEveryLane: rules run in lanes count against the
// agent's one run-away limit; the parallel's own run counts when it begins,
// before its lanes, so the error lists exactly the runs it counted. The
// error resets the agent and cancels its lanes.
func TestParallel_runawayCountsEveryLane(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root"><parallel id="p">
  <action id="w" name="act"/>
  <sequence id="spin" loop="true"><action id="tick" name="ok"/></sequence>
</parallel></sequence>`), nil)
	h.script["w"] = []Status{R}
	h.env.RunawayLimit = 20
	got := h.step()
	if !strings.HasPrefix(got, "error root: w:start w tick") || !strings.Contains(got, "w:cancel | run-away step: 20 rules run") ||
		!strings.Contains(got, "limit 20): root, p, w, spin, (tick, spin) x 8") {
		t.Errorf("got %s", got)
	}
	if lanes := h.agent.Lanes(nil); len(lanes) != 0 {
		t.Errorf("lanes after the error: %+v", lanes)
	}
}

// TestParallel_runawayListsExactlyTheRunsItCounted: with parallels nested k
// deep around a looping lane, the run-away error fires when the count
// reaches the limit, whatever k: each parallel's run counts when it begins,
// so a loop runs no extra rule per parallel, and the labels the message
// lists are as many as the runs it counts.
func TestParallel_runawayListsExactlyTheRunsItCounted(t *testing.T) {
	for k := 1; k <= 4; k++ {
		for _, limit := range []int{5, 6, 13, 20} {
			body := `<action id="w" name="run"/><sequence id="spin" loop="true"><action id="tick" name="ok"/></sequence>`
			for i := k; i >= 1; i-- {
				body = fmt.Sprintf(`<parallel id="p%d">%s</parallel>`, i, body)
			}
			h := newHarness(t, bt(`<sequence id="root">`+body+`</sequence>`), nil)
			h.env.RunawayLimit = limit
			got := h.step()
			m := regexp.MustCompile(`run-away step: (\d+) rules run without one returning running \(limit (\d+)\): (.*)$`).FindStringSubmatch(got)
			if m == nil {
				t.Fatalf("k=%d limit=%d: no run-away error: %s", k, limit, got)
			}
			labels := expandRuns(m[3])
			// root, the k parallels, w (which returns running), then spin
			// and tick in turn: the error fires at the first run that
			// reaches the limit and does not return running.
			want := []string{"root"}
			for i := 1; i <= k; i++ {
				want = append(want, fmt.Sprintf("p%d", i))
			}
			want = append(want, "w")
			for i := 0; len(want) < limit || want[len(want)-1] == "w"; i++ {
				want = append(want, [2]string{"spin", "tick"}[i%2])
			}
			if m[1] != strconv.Itoa(len(want)) || strings.Join(labels, ", ") != strings.Join(want, ", ") {
				t.Errorf("k=%d limit=%d: %s rules run, listed %d: %s\nwant %d: %s", k, limit, m[1], len(labels), strings.Join(labels, ", "), len(want), strings.Join(want, ", "))
			}
			ticks := strings.Count(strings.Join(h.log, " "), "tick")
			if wantTicks := strings.Count(strings.Join(want, " "), "tick"); ticks != wantTicks {
				t.Errorf("k=%d limit=%d: tick ran %d times, want %d", k, limit, ticks, wantTicks)
			}
		}
	}
}

// expandRuns undoes describeRuns' folding of a repeated cycle.
func expandRuns(s string) []string {
	var out []string
	if i := strings.Index(s, "("); i >= 0 {
		head := strings.TrimSuffix(strings.TrimSpace(s[:i]), ",")
		if head != "" {
			out = strings.Split(head, ", ")
		}
		j := strings.Index(s, ") x ")
		cycle := strings.Split(s[i+1:j], ", ")
		n, _ := strconv.Atoi(s[j+4:])
		for range n {
			out = append(out, cycle...)
		}
		return out
	}
	return strings.Split(s, ", ")
}

// TestParallel_saveNeedsIDsOfRunningLanes: a lane that can keep running
// needs an id on its cursor, as the agent's cursor does; lanes that are
// done do not.
func TestParallel_saveNeedsIDsOfRunningLanes(t *testing.T) {
	reg := NewRegistry()
	reg.RegisterAction("run", ActionFunc(func(a *Agent, p Params) (Status, error) { return Running, nil }))
	reg.RegisterAction("ok", ActionFunc(func(a *Agent, p Params) (Status, error) { return Success, nil }))
	a := mustAgent(t, bt(`<sequence id="root"><parallel id="p">
  <action name="ok"/>
  <action name="run"/>
</parallel></sequence>`), reg)
	a.Step(1)
	_, err := a.Snapshot()
	var e *Error
	if !errors.As(err, &e) || e.Label != "action@test.xml:3:3" || !strings.Contains(e.Msg, "add an id") {
		t.Fatalf("got %v", err)
	}
}

// TestAgent_lanes lists an agent's lanes: depth first, in document order,
// with their parents, cursors and results.
func TestAgent_lanes(t *testing.T) {
	h := newHarness(t, bt(`<sequence id="root"><parallel id="p">
  <parallel id="q"><action id="x" name="act"/><action id="y" name="act"/></parallel>
  <action id="w" name="act"/>
</parallel></sequence>`), nil)
	h.script["x"], h.script["y"], h.script["w"] = []Status{R}, []Status{S}, []Status{R}
	if lanes := h.agent.Lanes(nil); lanes != nil {
		t.Fatalf("a new agent has lanes: %v", lanes)
	}
	h.step()
	label := func(r int32) string { return h.tree.Tree.Rules[r].Label }
	var got []string
	for _, l := range h.agent.Lanes(nil) {
		got = append(got, fmt.Sprintf("%d<%d %s/%s at %s %s", l.Slot, l.Parent, label(l.Parallel), label(l.Child), label(l.Cursor), l.Status))
	}
	want := []string{"0<-1 p/q at q running", "2<0 q/x at x running", "3<0 q/y at y success", "1<-1 p/w at w running"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lanes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := h.tree.LaneSlots(); n != 4 {
		t.Errorf("LaneSlots %d", n)
	}
}

// TestParallel_treeWithLanesBeforeAnyEntry: an agent of a tree with
// parallels that never entered one has no lanes: preemptions, jumps,
// resets and saves work as in any tree.
func TestParallel_treeWithLanesBeforeAnyEntry(t *testing.T) {
	h := newHarness(t, bt(`<choice id="root">
  <action id="alarm" name="act" abort="lower"><condition>alarm</condition></action>
  <action id="idle" name="act"/>
  <parallel id="p"><action id="a" name="act"/><action id="b" name="act"/></parallel>
</choice>`), map[string]bool{"alarm": false})
	h.script["idle"], h.script["alarm"] = []Status{R}, []Status{R}
	h.step()
	h.conds["alarm"] = true
	if got := h.step(); got != "running alarm: ?alarm idle:cancel ?alarm alarm:start alarm [preempt alarm]" {
		t.Errorf("preempt: %s", got)
	}
	if err := h.agent.Jump("idle"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.agent.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if err := h.agent.Reset(); err != nil || h.agent.ext.lanes != nil {
		t.Errorf("reset: %v; lanes %v", err, h.agent.ext.lanes)
	}
}

// TestRestore_cursorInsideALaneNeedsItsParallel: a saved cursor inside a
// lane of a parallel whose lanes the save does not hold is refused (a tree
// edited to put the rule into a parallel), and the agent keeps its state.
func TestRestore_cursorInsideALaneNeedsItsParallel(t *testing.T) {
	reg := NewRegistry()
	reg.RegisterAction("run", ActionFunc(func(a *Agent, p Params) (Status, error) { return Running, nil }))
	before := mustAgent(t, bt(`<sequence id="root"><action id="x" name="run"/><action id="y" name="run"/></sequence>`), reg)
	before.Step(1)
	data, err := SaveAgents([]*Agent{before}, nil)
	if err != nil {
		t.Fatal(err)
	}
	after := mustAgent(t, bt(`<sequence id="root"><parallel id="p"><action id="x" name="run"/><action id="y" name="run"/></parallel></sequence>`), reg)
	after.Step(1)
	want, _ := SaveAgents([]*Agent{after}, nil)
	_, err = RestoreAgents(data, []*Agent{after}, nil)
	if !errors.Is(err, ErrUnknownID) || !strings.Contains(err.Error(), `the saved cursor "x" is inside a lane of parallel p`) {
		t.Fatalf("got %v", err)
	}
	if got, _ := SaveAgents([]*Agent{after}, nil); !bytes.Equal(got, want) {
		t.Error("the failed restore changed the agent")
	}
}

// TestLanes_codeStepsPlainTreesAsBefore: the code paths of trees with
// parallels (the checks' walk over lanes, jumps across contexts, the loop's
// lane hooks) step a tree without parallels exactly as the plain paths do,
// through interrupts, orders, jumps from outside and resets.
func TestLanes_codeStepsPlainTreesAsBefore(t *testing.T) {
	run := func(forceLanes bool) string {
		var trace strings.Builder
		r := newFeaturesRun(t, &trace)
		if forceLanes {
			r.agents[0].bound.lanes = &laneLayout{} // no slots: every lane-aware path, no lane
		}
		ids := []string{"root", "flee", "flee.run", "fight", "fight.how", "fight.how.shoot", "idle", "idle.look.up", "idle.nap"}
		for s := 1; s <= 300; s++ {
			for i, a := range r.agents {
				switch {
				case s%17 == i:
					a.Reset()
				case s%11 == i:
					a.Jump(ids[(s/11+i)%len(ids)])
				}
				a.StepAt(float64(s) * 0.1)
			}
		}
		return trace.String()
	}
	plain, lanes := run(false), run(true)
	if plain != lanes {
		t.Fatalf("the lanes' code paths step differently:\n%s", firstDiff(lanes, plain))
	}
	for _, want := range []string{"[preempt", "[abort", "[timeout"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the run never shows %s", want)
		}
	}
}
