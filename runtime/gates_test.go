package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// usersTree: every agent tries to hold gate g while it runs "use"; the
// others idle.
const usersTree = `<behaviorTree>
  <gates><gate name="g" users="%d"/></gates>
  <choice id="root">
    <action id="use" name="run" gate="g"/>
    <running id="idle"/>
  </choice>
</behaviorTree>`

// TestGates_usersLetThatManyAgentsInAndRefuseTheRest: with users N and
// five agents asking in the same round, the first N in config order hold
// the gate and the others are refused (and go on with the next child).
func TestGates_usersLetThatManyAgentsInAndRefuseTheRest(t *testing.T) {
	for users := 1; users <= 3; users++ {
		t.Run(fmt.Sprintf("users=%d", users), func(t *testing.T) {
			w := newGateWorld(t, fmt.Sprintf(usersTree, users), "a1", "a2", "a3", "a4", "a5")
			var want []string
			for i := 1; i <= 5; i++ {
				if i <= users {
					want = append(want, fmt.Sprintf("a%d running use: use=running [gates g+]", i))
				} else {
					want = append(want, fmt.Sprintf("a%d running idle: use=failure idle=running", i))
				}
			}
			expectLines(t, 1, w.stepAll(), want)
			holders := []string{"g:"}
			for i := 1; i <= users; i++ {
				holders = append(holders, fmt.Sprintf("a%d", i))
			}
			if got := w.holders("g"); got != strings.Join(holders, " ") {
				t.Errorf("holders %q, want %q", got, strings.Join(holders, " "))
			}
			for i, line := range w.stepAll() { // holding goes on; nobody asks again
				if strings.Contains(line, "[gates") {
					t.Errorf("step 2, agent %d: %s", i+1, line)
				}
			}
			if s := w.gates.List()[0]; s.Takes != uint64(users) || s.Refusals != uint64(5-users) {
				t.Errorf("takes %d, refusals %d; want %d, %d", s.Takes, s.Refusals, users, 5-users)
			}
		})
	}
}

// TestGates_takesOfARoundAreGrantedInConfigOrder: in one round, the agent
// first in config order gets the gate, whatever its id; a take asked in an
// earlier round goes first (the first agent paused at another call first).
func TestGates_takesOfARoundAreGrantedInConfigOrder(t *testing.T) {
	w := newGateWorld(t, fmt.Sprintf(usersTree, 1), "zed", "amy", "max")
	expectLines(t, 1, w.stepAll(), []string{
		"zed running use: use=running [gates g+]",
		"amy running idle: use=failure idle=running",
		"max running idle: use=failure idle=running",
	})

	const pendFirst = `<behaviorTree>
  <gates><gate name="g" users="1"/></gates>
  <choice id="root">
    <sequence id="first">
      <condition>on</condition>
      <action id=".call" name="pend"/>
      <action id=".use" name="run" gate="g"/>
    </sequence>
    <action id="use" name="run" gate="g"/>
    <running id="idle"/>
  </choice>
</behaviorTree>`
	w = newGateWorld(t, pendFirst, "a1", "a2")
	w.conds["on.a1"] = true // a1 waits for a call in round 1 and asks in round 2: too late
	expectLines(t, 1, w.stepAll(), []string{
		"a1 running idle: first.call=success first.use=failure use=failure idle=running",
		"a2 running use: use=running [gates g+]",
	})
	if w.pend.ended != 4 {
		t.Errorf("%d rounds, want 4 (a1: the call, then two refused takes)", w.pend.ended)
	}
}

// TestGates_cooldownRunsInGameTime: after a release the gate refuses takes
// for its cooldown, in seconds of game time whatever the step's dt.
func TestGates_cooldownRunsInGameTime(t *testing.T) {
	const tree = `<behaviorTree>
  <gates><gate name="g" users="1" cooldown="2"/></gates>
  <choice id="root">
    <sequence id="use" gate="g">
      <action id=".hold" name="bt.wait"><parameter name="wait.seconds">1</parameter></action>
    </sequence>
  </choice>
</behaviorTree>`
	for _, dt := range []float64{1, 0.5, 0.25} {
		t.Run(fmt.Sprint("dt=", dt), func(t *testing.T) {
			w := newGateWorld(t, tree, "a1")
			w.dt = dt
			var took []string
			for range int(8 / dt) {
				line := w.stepAll()[0]
				now := float64(w.step) * dt
				switch {
				case strings.Contains(line, "g+"):
					took = append(took, fmt.Sprint("take@", now))
				case strings.Contains(line, " failure root"): // refused: the root choice fails
					took = append(took, fmt.Sprint("refused@", now))
				}
				if strings.Contains(line, "g-") {
					took = append(took, fmt.Sprint("release@", now))
				}
			}
			// Taken at dt, held for 1 s, released, shut for 2 s, taken again.
			var want []string
			at := dt
			for at <= 8 {
				want = append(want, fmt.Sprint("take@", at))
				rel := at + 1
				if rel > 8 {
					break
				}
				want = append(want, fmt.Sprint("release@", rel))
				for x := rel + dt; x < rel+2 && x <= 8; x += dt {
					want = append(want, fmt.Sprint("refused@", x))
				}
				at = rel + 2
			}
			if got := strings.Join(took, " "); got != strings.Join(want, " ") {
				t.Errorf("\n got  %s\n want %s", got, strings.Join(want, " "))
			}
		})
	}
}

// TestGates_releaseOnEveryWayOfLeaving: a1 holds g (users 1) from step 1
// and leaves the rule holding it at step 3, in each way a rule can be left.
// a2 asks at every step; the release is applied at the end of the round in
// which it happened (between steps: at once), before the round's takes, so
// a2 gets g in step 3.
func TestGates_releaseOnEveryWayOfLeaving(t *testing.T) {
	wrap := func(use string) string {
		return `<behaviorTree>
  <gates><gate name="g" users="1"/></gates>
  <choice id="root">
    ` + use + `
    <failure id="idle"/>
    <running id="out"><condition>on</condition></running>
  </choice>
</behaviorTree>`
	}
	hold := `<sequence id="use" gate="g"><action id=".hold" name="hop"/></sequence>`
	a2Takes := "a2 running use.hold: use.hold=running [gates g+]"
	cases := []struct {
		name   string
		tree   string
		before func(w *gateWorld) // between steps 2 and 3
		a1, a2 string             // their lines at step 3; a1 "" when it is gone
		atOnce bool               // released between steps: nobody holds g before step 3
	}{
		{name: "finished", tree: wrap(`<sequence id="use" gate="g"><action id=".hold" name="bt.wait"><parameter name="wait.seconds">2</parameter></action></sequence>`),
			a1: "a1 success root: use.hold=success [gates g-]"},
		{name: "aborted", tree: wrap(`<sequence id="use" gate="g" abort="self"><condition>!on</condition><action id=".hold" name="hop"/></sequence>`),
			before: func(w *gateWorld) { w.conds["on.a1"] = true },
			a1:     "a1 running out: idle=failure out=running [gates g-] [abort use]"},
		{name: "timeout", tree: wrap(`<sequence id="use" gate="g" timeout="2"><action id=".hold" name="hop"/></sequence>`),
			a1: "a1 failure root: idle=failure out=failure [gates g-] [timeout use]"},
		{name: "preempted", tree: wrap(`<running id="alarm" abort="lower"><condition>on</condition></running>` + hold),
			before: func(w *gateWorld) { w.conds["on.a1"] = true },
			a1:     "a1 running alarm: alarm=running [gates g-] [preempt alarm]",
			a2:     "a2 running use.hold: alarm=failure use.hold=running [gates g+]"},
		{name: "jumped away in a step", tree: wrap(`<sequence id="use" gate="g"><action id=".hold" name="hop"><parameter name="to">out</parameter></action></sequence>`),
			before: func(w *gateWorld) { w.conds["on.a1"] = true },
			a1:     "a1 running out: use.hold=success out=running [gates g-]"},
		{name: "jumped away between steps", tree: wrap(hold),
			before: func(w *gateWorld) {
				w.conds["on.a1"] = true
				w.must(w.agents[0].Jump("out"))
			},
			a1: "a1 running out: out=running", atOnce: true},
		{name: "error reset", tree: wrap(hold),
			before: func(w *gateWorld) { w.conds["on.a1"] = true },
			a1:     `a1 error root: [gates g-] | action "hop": boom`},
		{name: "Reset", tree: wrap(hold), // a1, first in config order, takes g again
			before: func(w *gateWorld) { w.must(w.agents[0].Reset()) },
			a1:     "a1 running use.hold: use.hold=running [gates g+]", a2: "a2 failure root: idle=failure out=failure", atOnce: true},
		{name: "restored over", tree: wrap(hold),
			before: func(w *gateWorld) {
				fresh := w.tree.NewAgent("a1", nil) // a state that holds nothing
				s, err := fresh.Snapshot()
				w.must(err)
				_, err = w.agents[0].Restore(&s)
				w.must(err)
			},
			a1: "a1 running use.hold: use.hold=running [gates g+]", a2: "a2 failure root: idle=failure out=failure", atOnce: true},
		{name: "closed", tree: wrap(hold), atOnce: true,
			before: func(w *gateWorld) {
				w.must(w.agents[0].Close())
				w.agents = w.agents[1:]
			}},
		{name: "cancelled lane", tree: wrap(`<parallel id="use" success="any">
      <sequence id=".lane" gate="g"><action id=".hold" name="hop"/></sequence>
      <action id=".end" name="bt.wait"><parameter name="wait.seconds">2</parameter></action>
    </parallel>`),
			a1: "a1 success root: use.lane.hold=running use.end=success [gates g-]",
			a2: "a2 running use: use.lane.hold=running use.end=running [gates g+]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newGateWorld(t, c.tree, "a1", "a2")
			first := w.stepAll()
			if !strings.Contains(first[0], "[gates g+]") || strings.Contains(first[1], "[gates") {
				t.Fatalf("step 1: a1 should hold g, a2 be refused:\n%s", strings.Join(first, "\n"))
			}
			w.stepAll()
			if c.before != nil {
				c.before(w)
			}
			if got := w.holders("g"); c.atOnce != (got == "g:") {
				t.Errorf("holders between steps 2 and 3: %q (released at once: %t)", got, c.atOnce)
			}
			if c.a2 == "" {
				c.a2 = a2Takes
			}
			want := []string{c.a1, c.a2}
			if c.a1 == "" {
				want = want[1:]
			}
			expectLines(t, 3, w.stepAll(), want)
			if want := strings.Contains(c.a2, "g+"); want != (w.holders("g") == "g: a2") {
				t.Errorf("holders after step 3: %q", w.holders("g"))
			}
		})
	}
}

// TestGates_nestedRulesNamingAHeldGatePassWithoutTakingIt: a rule inside a
// rule that holds g passes without asking again (one take, one holder
// place), and leaving it releases nothing while the outer rule holds g; so
// does a rule of another lane of the same agent. Leaving the last rule
// that holds g releases it.
func TestGates_nestedRulesNamingAHeldGatePassWithoutTakingIt(t *testing.T) {
	const tree = `<behaviorTree>
  <gates><gate name="g" users="1"/></gates>
  <sequence id="root">
    <sequence id="outer" gate="g">
      <sequence id=".inner" gate="g">
        <action id=".nap" name="bt.wait"><parameter name="wait.seconds">1</parameter></action>
      </sequence>
      <parallel id=".both">
        <sequence id=".left" gate="g"><action id=".nap" name="bt.wait"><parameter name="wait.seconds">1</parameter></action></sequence>
        <sequence id=".right" gate="g"><action id=".nap" name="bt.wait"><parameter name="wait.seconds">2</parameter></action></sequence>
      </parallel>
    </sequence>
    <running id="done"/>
  </sequence>
</behaviorTree>`
	w := newGateWorld(t, tree, "a1", "a2")
	want := [][]string{
		{"a1 running outer.inner.nap: outer.inner.nap=running [gates g+]", "a2 failure root:"},
		{"a1 running outer.both: outer.inner.nap=success outer.both.left.nap=running outer.both.right.nap=running", "a2 failure root:"},
		{"a1 running outer.both: outer.both.left.nap=success outer.both.right.nap=running", "a2 failure root:"},
		{"a1 running done: outer.both.right.nap=success done=running [gates g-]", "a2 running outer.inner.nap: outer.inner.nap=running [gates g+]"},
	}
	for s, lines := range want {
		expectLines(t, s+1, w.stepAll(), lines)
		if s < 3 && w.holders("g") != "g: a1" {
			t.Errorf("step %d: holders %q, want a1 once", s+1, w.holders("g"))
		}
	}
}

// TestGates_aTakeInALanePausesTheWholeStep: the lanes after a lane that
// asks for a gate run when the step resumes, after the round's end: a
// plugin-like call of a later lane joins the next round.
func TestGates_aTakeInALanePausesTheWholeStep(t *testing.T) {
	const tree = `<behaviorTree>
  <gates><gate name="g" users="1"/></gates>
  <parallel id="root">
    <action id="take" name="run" gate="g"/>
    <action id="call" name="pend"/>
  </parallel>
</behaviorTree>`
	w := newGateWorld(t, tree, "a1")
	expectLines(t, 1, w.stepAll(), []string{"a1 running root: take=running call=success [gates g+]"})
	if w.pend.ended != 3 { // round 1: the take; round 2: the call; round 3: its answer
		t.Errorf("%d rounds, want 3", w.pend.ended)
	}
}

// TestGates_rendezvous: a gate of users N and bt.gate.wait: agents that
// took it wait until N hold it, then go on in the same step when they
// took it in the same round; an agent that arrives later lets the others
// go on at the next step (they read the holders as of the last round's
// end, before its take).
func TestGates_rendezvous(t *testing.T) {
	const tree = `<behaviorTree>
  <gates><gate name="meet" users="%d"/></gates>
  <sequence id="root">
    <success id="ready"><condition>on</condition></success>
    <sequence id="meet" gate="meet">
      <action id=".wait" name="bt.gate.wait"><parameter name="gate.name">meet</parameter></action>
      <action id=".hand" name="ok"/>
    </sequence>
    <running id="done"/>
  </sequence>
</behaviorTree>`
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprint(n, " agents"), func(t *testing.T) {
			ids := []string{"a1", "a2", "a3"}[:n]
			w := newGateWorld(t, fmt.Sprintf(tree, n), ids...)
			// All arrive at step 1 but the last, at step 3.
			for _, id := range ids[:n-1] {
				w.conds["on."+id] = true
			}
			waits := "running meet.wait: ready=success meet.wait=running [gates meet+]"
			step1 := []string{}
			for _, id := range ids[:n-1] {
				step1 = append(step1, id+" "+waits)
			}
			expectLines(t, 1, w.stepAll(), append(step1, ids[n-1]+" failure root: ready=failure"))
			for _, l := range w.stepAll()[:n-1] {
				if !strings.Contains(l, "running meet.wait: meet.wait=running") {
					t.Errorf("step 2: %s", l)
				}
			}
			w.conds["on."+ids[n-1]] = true
			step3 := w.stepAll()
			if got, want := step3[n-1], ids[n-1]+" running done: ready=success meet.wait=success meet.hand=success done=running [gates meet+ meet-]"; got != want {
				t.Errorf("step 3, the last to arrive:\n got  %s\n want %s", got, want)
			}
			for _, l := range step3[:n-1] {
				if !strings.Contains(l, "running meet.wait: meet.wait=running") {
					t.Errorf("step 3, one that waited: %s", l)
				}
			}
			for _, l := range w.stepAll()[:n-1] {
				if !strings.Contains(l, "running done: meet.wait=success meet.hand=success done=running [gates meet-]") {
					t.Errorf("step 4: %s", l)
				}
			}
			// Arriving together, they all go on in the step they arrive.
			w = newGateWorld(t, fmt.Sprintf(tree, n), ids...)
			for _, id := range ids {
				w.conds["on."+id] = true
			}
			for _, l := range w.stepAll() {
				if !strings.HasSuffix(l, "running done: ready=success meet.wait=success meet.hand=success done=running [gates meet+ meet-]") {
					t.Errorf("together, step 1: %s", l)
				}
			}
		})
	}
}

// TestGates_conditionsReadTheStateAsOfTheLastRoundsEnd: G.open and G.full
// see the holders and cooldown as the last round left them: a take granted
// to an earlier agent in the same round is not seen by a later agent's
// condition in that round, only from the next.
func TestGates_conditionsReadTheStateAsOfTheLastRoundsEnd(t *testing.T) {
	const tree = `<behaviorTree>
  <gates><gate name="g" users="1" cooldown="1.5"/></gates>
  <choice id="root">
    <sequence id="want"><condition>on</condition><action id="use" name="run" gate="g"/></sequence>
    <success id="open"><condition>g.open</condition></success>
    <success id="full"><condition>g.full</condition></success>
    <success id="cooling"><condition>!g.open</condition><condition>!g.full</condition></success>
  </choice>
</behaviorTree>`
	w := newGateWorld(t, tree, "a1", "a2")
	w.conds["on.a1"] = true
	expectLines(t, 1, w.stepAll(), []string{
		"a1 running use: use=running [gates g+]",
		"a2 success root: open=success", // a1's take is decided after a2's step
	})
	expectLines(t, 2, w.stepAll(), []string{
		"a1 running use: use=running",
		"a2 success root: open=failure full=success",
	})
	w.conds["on.a1"] = false
	w.must(w.agents[0].Reset()) // released at once, at t=2: cooling until t=3.5
	expectLines(t, 3, w.stepAll(), []string{
		"a1 success root: open=failure full=failure cooling=success",
		"a2 success root: open=failure full=failure cooling=success",
	})
	expectLines(t, 4, w.stepAll(), []string{
		"a1 success root: open=success",
		"a2 success root: open=success",
	})
}

// TestGates_slotsNumberHoldersInTheOrderTheyTookTheGate: GateSlot is 1, 2,
// ... in take order, 0 for an agent that does not hold the gate; a holder
// that leaves moves the later ones up.
func TestGates_slotsNumberHoldersInTheOrderTheyTookTheGate(t *testing.T) {
	w := newGateWorld(t, fmt.Sprintf(usersTree, 2), "a1", "a2", "a3")
	w.stepAll()
	slots := func() string {
		var out []string
		for _, a := range w.agents {
			n, err := a.GateSlot("g")
			w.must(err)
			out = append(out, fmt.Sprint(n))
		}
		return strings.Join(out, " ")
	}
	if got := slots(); got != "1 2 0" {
		t.Errorf("slots %s, want 1 2 0", got)
	}
	w.must(w.agents[0].Reset())
	if got := slots(); got != "0 1 0" {
		t.Errorf("after a1 left: slots %s, want 0 1 0", got)
	}
	w.stepAll() // a1 asks again and is last
	if got := slots(); got != "2 1 0" {
		t.Errorf("after a1 took it again: slots %s, want 2 1 0", got)
	}
	if _, err := w.agents[0].GateSlot("nope"); err == nil || !strings.Contains(err.Error(), `no gate "nope" is declared`) {
		t.Errorf("an undeclared gate: %v", err)
	}
}

// TestGates_watchedChildWhoseGateIsShutIsSkipped: the start-of-step
// checks skip a preempting child whose gate could not be taken now, without
// evaluating its conditions; a child whose gate the agent holds already is
// checked (it would pass).
func TestGates_watchedChildWhoseGateIsShutIsSkipped(t *testing.T) {
	const tree = `<behaviorTree>
  <gates><gate name="g" users="1"/></gates>
  <choice id="root">
    <action id="grab" name="run" gate="g" abort="lower"><condition>on</condition></action>
    <action id="wander" name="run"/>
  </choice>
</behaviorTree>`
	w := newGateWorld(t, tree, "a1", "a2")
	w.conds["on.a1"] = true
	expectLines(t, 1, w.stepAll(), []string{
		"a1 running grab: grab=running [gates g+]",
		"a2 running wander: grab=failure wander=running",
	})
	w.conds["on.a2"] = true
	expectLines(t, 2, w.stepAll(), []string{ // a2's grab is skipped: g is full
		"a1 running grab: grab=running",
		"a2 running wander: wander=running",
	})
	w.must(w.agents[0].Close()) // a1 leaves the game
	w.agents = w.agents[1:]
	expectLines(t, 3, w.stepAll(), []string{
		"a2 running grab: grab=running [gates g+] [preempt grab]",
	})
}

// TestGates_aJumpBelowAGatedRuleTakesNothing: rules that become active
// because a jump lands below them take no gate (and release none when
// left); the jump's target takes its own.
func TestGates_aJumpBelowAGatedRuleTakesNothing(t *testing.T) {
	const tree = `<behaviorTree>
  <gates><gate name="g" users="1"/><gate name="h" users="1"/></gates>
  <choice id="root">
    <sequence id="use" gate="g">
      <action id=".first" name="run"/>
      <action id=".target" name="run" gate="h"/>
    </sequence>
  </choice>
</behaviorTree>`
	w := newGateWorld(t, tree, "a1")
	w.must(w.agents[0].Jump("use.target"))
	expectLines(t, 1, w.stepAll(), []string{"a1 running use.target: use.target=running [gates h+]"})
	w.must(w.agents[0].Reset())
	if got := w.holders("g") + " " + w.holders("h"); got != "g: h:" {
		t.Errorf("holders after the reset: %s", got)
	}
	if s := w.gates.List()[0]; s.Takes != 0 {
		t.Errorf("g was taken %d times", s.Takes)
	}
}

// TestGates_aLoneAgentEndsItsOwnRounds: an agent created without Env.Gates
// has gates of its own and steps with Step alone, as one agent stepping in
// rounds would.
func TestGates_aLoneAgentEndsItsOwnRounds(t *testing.T) {
	const tree = `<behaviorTree>
  <gates><gate name="g" users="1" cooldown="2"/></gates>
  <choice id="root">
    <sequence id="use" gate="g"><action id=".hold" name="bt.wait"><parameter name="wait.seconds">1</parameter></action></sequence>
    <success id="shut"><condition>!g.open</condition></success>
  </choice>
</behaviorTree>`
	alone := newGateWorld(t, tree, "a1")
	lone := alone.tree.NewAgent("a1", &Env{Observer: alone})
	for s := 1; s <= 8; s++ {
		want := alone.stepAll()[0]
		st, err := lone.StepAt(float64(s))
		if got := alone.describe(lone, Outcome{st, err}); got != want {
			t.Errorf("step %d:\n alone %s\n in rounds %s", s, got, want)
		}
	}
	if lone.Gates() == alone.gates || lone.Gates() == nil {
		t.Errorf("the lone agent should have gates of its own")
	}
}

// TestGates_onASubtreeAndAParallel: gate on a <subtree> applies to the
// sequence it becomes, and on a <parallel> to the parallel: each holds it
// while its children run.
func TestGates_onASubtreeAndAParallel(t *testing.T) {
	files := map[string]string{
		"main.xml": `<behaviorTree>
  <gates><gate name="g" users="1"/></gates>
  <choice id="root">
    <subtree id="sub" gate="g">sub.xml</subtree>
    <parallel id="both" gate="g"><running id=".a"/><running id=".b"/></parallel>
  </choice>
</behaviorTree>`,
		"sub.xml": `<behaviorTree><running id="hold"><condition>on</condition></running></behaviorTree>`,
	}
	reg := NewRegistry()
	conds := map[string]bool{"a1": true}
	reg.RegisterCondition("on", ConditionFunc(func(a *Agent, p Params) (bool, error) { return conds[a.ID()], nil }))
	tree, err := LoadBytes("main.xml", []byte(files["main.xml"]), LoadOptions{ReadFile: func(p string) ([]byte, error) { return []byte(files[p]), nil }})
	if err != nil {
		t.Fatal(err)
	}
	if r := tree.Rules[1]; r.Tag != "subtree" || r.Kind != KindSequence || r.Gate != "g" {
		t.Fatalf("the subtree rule: %+v", r)
	}
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gates := NewGates()
	if err := gates.Add(b); err != nil {
		t.Fatal(err)
	}
	env := &Env{Gates: gates}
	agents := []*Agent{b.NewAgent("a1", env), b.NewAgent("a2", env)}
	r := Rounds{Resolvers: []Resolver{gates}}
	if _, err := r.StepAt(agents, 1); err != nil {
		t.Fatal(err)
	}
	// a1 holds g in the subtree's sequence; a2 was refused there and at the parallel.
	if got := fmt.Sprint(agents[0].CursorLabel(), " ", agents[1].CursorLabel(), " ", gates.List()[0].Holders); got != "sub.hold root [a1]" {
		t.Errorf("after step 1: %s", got)
	}
	// a1's subtree fails: a1 releases g and, in the same round, asks for it
	// at the parallel, before a2 (config order) which asks at the subtree:
	// the release is applied first, then a1 is granted, a2 refused.
	conds["a1"] = false
	if _, err := r.StepAt(agents, 2); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(agents[0].CursorLabel(), " ", agents[1].CursorLabel(), " ", gates.List()[0].Holders); got != "both root [a1]" {
		t.Errorf("after step 2: %s", got)
	}
}
