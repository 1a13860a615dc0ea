package runtime

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

// State machines (machine.go): transitions on results and signals, where
// they compose with the other features, saves and reloads.

// machineXML is a guard's three states: Idle succeeds into Patrol, Patrol
// fails back to Idle, and a signal moves either to Combat, from which Lost
// returns to Idle.
const machineXML = `<behaviorTree>
<signals><signal name="Seen"/><signal name="Lost"/><signal name="Other"/></signals>
<stateMachine id="root" initial="Idle" exit="h">
  <state name="Idle">
    <transition signal="Seen" to="Combat"/>
    <transition result="success" to="Patrol"/>
    <action id="idle" name="act" exit="h"/>
  </state>
  <state name="Patrol">
    <transition result="failure" to="Idle"/>
    <transition signal="Seen" to="Combat"/>
    <sequence id="patrol" exit="h"><action id=".walk" name="act" exit="h"/></sequence>
  </state>
  <state name="Combat">
    <transition signal="Lost" to="Idle"/>
    <transition signal="Seen" to="Combat"/>
    <action id="fight" name="act" enter="h" exit="h"/>
  </state>
</stateMachine>
</behaviorTree>`

// stateName is the name of the state machine rule id is in, or "-".
func stateName(h *harness, id string) string {
	r, _ := h.tree.Tree.RuleIndex(id)
	k, ok := h.agent.CurrentState(r)
	if !ok {
		return "-"
	}
	m, _ := h.tree.Tree.MachineOf(r)
	return m.States[k].Name
}

// signal delivers a signal between steps and returns what it called.
func (h *harness) signal(name string) string {
	h.log = h.log[:0]
	h.must(h.agent.Signal(name))
	return strings.Join(h.log, " ")
}

// TestMachine_resultTransitions: a state's rule that finishes moves the
// machine on in the same step, by the first transition on its result; a
// result without one finishes the machine with it.
func TestMachine_resultTransitions(t *testing.T) {
	h := newHarness(t, machineXML, nil)
	h.script["idle"] = []Status{S}
	h.script["patrol.walk"] = []Status{R, F, R}
	expectSteps(t, h.steps(2), []string{
		"running patrol.walk: idle:start idle -idle(success) patrol.walk:start patrol.walk",
		"running patrol.walk: patrol.walk -patrol.walk(failure) -patrol(failure) idle:start idle -idle(success) patrol.walk:start patrol.walk",
	})
	if got := stateName(h, "root"); got != "Patrol" {
		t.Errorf("state %s, want Patrol", got)
	}

	// No transition on the result: the machine finishes with it.
	h = newHarness(t, bt(`<stateMachine id="root"><state name="A"><transition result="failure" to="B"/><action id="a" name="ok"/></state>
<state name="B"><action id="b" name="fail"/></state></stateMachine>`), nil)
	expectSteps(t, h.steps(1), []string{"success root: a"})
	h = newHarness(t, bt(`<stateMachine id="root" initial="B"><state name="A"><action id="a" name="ok"/></state>
<state name="B"><transition result="success" to="A"/><action id="b" name="fail"/></state></stateMachine>`), nil)
	expectSteps(t, h.steps(1), []string{"failure root: b"})

	// A transition to its own state starts its rule afresh, and the
	// machine checks its conditions before it moves on.
	h = newHarness(t, bt(`<stateMachine id="root"><condition>c</condition>
<state name="A"><transition result="success" to="A"/><action id="a" name="act" enter="h" exit="h"/></state></stateMachine>`), map[string]bool{"c": true})
	h.script["a"] = []Status{S}
	h.hook["a"] = func(a *Agent) error {
		if h.calls["a"] == 1 {
			h.conds["c"] = false
		}
		return nil
	}
	expectSteps(t, h.steps(1), []string{"failure root: ?c +a a:start a -a(success) ?c +a a:start a -a(success) ?c"})
}

// TestMachine_signalTransitions: a signal the state has a transition on
// leaves the state's rule at once (its action cancelled, exit hooks with
// preempt) and the next step runs the target state's rule; other signals,
// and signals while the machine is not active, change nothing.
func TestMachine_signalTransitions(t *testing.T) {
	h := newHarness(t, machineXML, nil)
	h.script["idle"] = []Status{R}
	h.script["fight"] = []Status{R}
	expectSteps(t, h.steps(1), []string{"running idle: idle:start idle"})
	if got := h.signal("Other"); got != "" {
		t.Errorf("a signal without a transition called %q", got)
	}
	if got, want := h.signal("Seen"), "idle:cancel -idle(preempt)"; got != want {
		t.Errorf("Seen in Idle: %q, want %q", got, want)
	}
	if h.agent.CursorLabel() != "fight" || stateName(h, "root") != "Combat" {
		t.Fatalf("after Seen: cursor %s, state %s", h.agent.CursorLabel(), stateName(h, "root"))
	}
	expectSteps(t, h.steps(1), []string{"running fight: +fight fight:start fight"})
	// A transition to the state it is in starts its rule afresh.
	if got, want := h.signal("Seen"), "fight:cancel -fight(preempt)"; got != want {
		t.Errorf("Seen in Combat: %q, want %q", got, want)
	}
	expectSteps(t, h.steps(1), []string{"running fight: +fight fight:start fight"})
	if got, want := h.signal("Lost"), "fight:cancel -fight(preempt)"; got != want {
		t.Errorf("Lost: %q, want %q", got, want)
	}
	expectSteps(t, h.steps(1), []string{"running idle: idle:start idle"})

	// The machine finished: a signal finds it in no state.
	h = newHarness(t, machineXML, nil)
	h.script["idle"] = []Status{F}
	expectSteps(t, h.steps(1), []string{"failure root: idle:start idle -idle(failure) -root(failure)"})
	if got := h.signal("Seen"); got != "" || h.agent.CursorLabel() != "root" {
		t.Errorf("Seen after the machine finished: %q, cursor %s", got, h.agent.CursorLabel())
	}
}

// TestMachine_signalDuringItsOwnStep: a signal the agent sends itself
// during a step is taken once the step has ended (RunHandlers), so the
// step is never cut in the middle of a call.
func TestMachine_signalDuringItsOwnStep(t *testing.T) {
	h := newHarness(t, machineXML, nil)
	h.script["idle"] = []Status{R}
	h.hook["idle"] = func(a *Agent) error { return a.Send("self", "Seen", Value{}) }
	if !h.tree.HasHandlers() {
		t.Fatal("HasHandlers is false for a tree with signal transitions: a game would not call RunHandlers")
	}
	expectSteps(t, h.steps(1), []string{"running idle: idle:start idle"})
	if !h.agent.HandlersOwed() {
		t.Fatal("the transition is not owed after the step")
	}
	h.log = h.log[:0]
	h.must(h.agent.RunHandlers())
	if got, want := strings.Join(h.log, " "), "idle:cancel -idle(preempt)"; got != want || h.agent.CursorLabel() != "fight" {
		t.Errorf("RunHandlers: %q, cursor %s; want %q at fight", got, h.agent.CursorLabel(), want)
	}
}

// TestMachine_nested: of the machines the agent is in, the outermost with
// a transition on the signal takes it, leaving the inner ones.
func TestMachine_nested(t *testing.T) {
	xml := bt(`<signals><signal name="Go"/></signals>
<stateMachine id="outer"><state name="A"><transition signal="Go" to="B"/>
  <stateMachine id="inner"><state name="X"><transition signal="Go" to="Y"/><action id="x" name="act" exit="h"/></state>
    <state name="Y"><action id="y" name="act"/></state></stateMachine></state>
<state name="B"><action id="b" name="act"/></state></stateMachine>`)
	h := newHarness(t, xml, nil)
	h.script["x"] = []Status{R}
	h.script["b"] = []Status{R}
	h.step()
	if stateName(h, "outer") != "A" || stateName(h, "inner") != "X" {
		t.Fatalf("states %s/%s", stateName(h, "outer"), stateName(h, "inner"))
	}
	if got, want := h.signal("Go"), "x:cancel -x(preempt)"; got != want || h.agent.CursorLabel() != "b" {
		t.Errorf("Go: %q, cursor %s; want %q at b", got, h.agent.CursorLabel(), want)
	}
	if stateName(h, "inner") != "-" {
		t.Errorf("inner machine still in state %s", stateName(h, "inner"))
	}
}

// TestMachine_composes: in a parallel's lane, under an abort, with a
// timeout, a cooldown and hooks on it, and jumps into a state's rules.
func TestMachine_composes(t *testing.T) {
	const states = `<state name="A"><transition signal="Go" to="B"/><action id="a" name="act" exit="h"/></state>
<state name="B"><transition result="success" to="A"/><action id="b" name="act" exit="h"/></state>`
	t.Run("in a lane", func(t *testing.T) {
		h := newHarness(t, bt(`<signals><signal name="Go"/></signals><parallel id="root" success="any">
<stateMachine id="m">`+states+`</stateMachine><action id="other" name="act"/></parallel>`), nil)
		h.script["a"] = []Status{R}
		h.script["b"] = []Status{R, S}
		h.script["other"] = []Status{R}
		expectSteps(t, h.steps(1), []string{"running root{a other}: a:start a other:start other"})
		if got, want := h.signal("Go"), "a:cancel -a(preempt)"; got != want {
			t.Errorf("Go: %q, want %q", got, want)
		}
		if stateName(h, "m") != "B" {
			t.Errorf("state %s, want B", stateName(h, "m"))
		}
		expectSteps(t, h.steps(2), []string{
			"running root{b other}: b:start b other",
			"running root{a other}: b -b(success) a:start a other",
		})
	})
	t.Run("under abort", func(t *testing.T) {
		h := newHarness(t, bt(`<signals><signal name="Go"/></signals><choice id="root">
<stateMachine id="m" abort="self" exit="h"><condition>c</condition>`+states+`</stateMachine><action id="z" name="ok"/></choice>`), map[string]bool{"c": true})
		h.script["a"] = []Status{R}
		h.step()
		h.conds["c"] = false
		expectSteps(t, h.steps(1), []string{"success root: ?c a:cancel -a(abort) -m(abort) z [abort m]"})
	})
	t.Run("timeout and cooldown on it", func(t *testing.T) {
		h := newHarness(t, bt(`<signals><signal name="Go"/></signals><choice id="root">
<stateMachine id="m" timeout="2" cooldown="5">`+states+`</stateMachine><action id="z" name="act"/></choice>`), nil)
		h.script["a"] = []Status{R}
		h.script["z"] = []Status{S}
		expectSteps(t, h.steps(3), []string{
			"running a: a:start a",
			"running a: a",
			"success root: a:cancel -a(timeout) z:start z [timeout m]",
		})
		expectSteps(t, h.steps(1), []string{"success root: z:start z"}) // m cools down
	})
	t.Run("a jump into a state's rule", func(t *testing.T) {
		h := newHarness(t, bt(`<signals><signal name="Go"/></signals><sequence id="root"><action id="pre" name="act"/>
<stateMachine id="m" enter="h">`+states+`</stateMachine></sequence>`), nil)
		h.script["pre"] = []Status{R}
		h.script["b"] = []Status{R}
		h.step()
		h.log = h.log[:0]
		h.must(h.agent.Jump("b"))
		if stateName(h, "m") != "B" || strings.Join(h.log, " ") != "pre:cancel +m" {
			t.Fatalf("after the jump: state %s, calls %q", stateName(h, "m"), h.log)
		}
		expectSteps(t, h.steps(1), []string{"running b: b:start b"})
	})
}

// TestMachine_saveRestoreInEveryState: an agent saved in each state and
// restored into a new agent goes on exactly as the one that was not.
func TestMachine_saveRestoreInEveryState(t *testing.T) {
	for _, at := range []string{"Idle", "Patrol", "Combat"} {
		t.Run(at, func(t *testing.T) {
			run := func(restore bool) []string {
				h := newHarness(t, machineXML, nil)
				h.script["idle"] = []Status{R, R, S}
				h.script["patrol.walk"] = []Status{R, F}
				h.script["fight"] = []Status{R, R, F}
				var out []string
				for i := 0; i < 12; i++ {
					if i == 4 {
						h.signal("Seen")
					}
					if i == 7 {
						h.signal("Lost")
					}
					out = append(out, h.step()+" in "+stateName(h, "root"))
					if restore && stateName(h, "root") == at {
						restore = false
						s, err := h.agent.Snapshot()
						h.must(err)
						e := savecodec.NewEncoder()
						EncodeSnapshot(e, &s)
						d := savecodec.NewDecoder(e.Bytes(), e.Strings())
						back := DecodeSnapshot(d)
						h.must(d.Err())
						h.agent = h.tree.NewAgent("a1", h.env)
						_, err = h.agent.Restore(&back)
						h.must(err)
						if got := stateName(h, "root"); got != at {
							t.Fatalf("restored in state %s, want %s", got, at)
						}
					}
				}
				return out
			}
			expectSteps(t, run(true), run(false))
		})
	}
}

// TestMachine_reloadAddsAndRemovesAState: a reload carries the state by
// the cursor's id; one that adds a state keeps the agent where it is, one
// that removes the state the agent is in leaves it unplaced, to start
// again at its machine (MachineRestart), which a jump on the old version
// enters again at its initial state.
func TestMachine_reloadAddsAndRemovesAState(t *testing.T) {
	h := newHarness(t, machineXML, nil)
	h.script["idle"] = []Status{R}
	h.script["fight"] = []Status{R}
	h.step()
	h.signal("Seen")
	h.step()
	added := strings.Replace(machineXML, `<state name="Combat">`, `<state name="Flee"><action id="flee" name="act"/></state><state name="Combat">`, 1)
	b2 := bindXML(t, h.reg, added)
	to, _ := carryAll(t, []*Agent{h.agent}, b2)
	if got := to[0].CursorLabel(); got != "fight" {
		t.Errorf("after a reload adding a state: cursor %s, want fight", got)
	}
	if k, ok := to[0].CurrentState(0); !ok || b2.Tree.Machines[0].States[k].Name != "Combat" {
		t.Errorf("after a reload adding a state: state %d %v, want Combat", k, ok)
	}
	removed := strings.Replace(machineXML, `<transition signal="Seen" to="Combat"/>`, ``, -1)
	removed = removed[:strings.Index(removed, `<state name="Combat">`)] + `</stateMachine></behaviorTree>`
	b3 := bindXML(t, h.reg, removed)
	m := MapRules(h.tree.Tree, b3.Tree)
	if gone, ok := m.Unplaced(h.agent, b3.NewAgent("a1", h.env)); !ok || gone.Label != "fight" {
		t.Errorf("an agent in a removed state is not unplaced: %v %v", gone, ok)
	}
	at, ok := m.MachineRestart(h.agent)
	if !ok || at != Root {
		t.Fatalf("MachineRestart: %d %v", at, ok)
	}
	h.must(h.agent.JumpTo(at))
	if _, ok := m.Unplaced(h.agent, b3.NewAgent("a1", h.env)); ok {
		t.Error("after the jump to its machine the agent is still unplaced")
	}
	expectSteps(t, h.steps(1), []string{"running idle: idle:start idle"})
}

// TestMachine_loadErrors: what the loader refuses, with positions.
func TestMachine_loadErrors(t *testing.T) {
	for _, c := range []struct{ xml, want string }{
		{`<stateMachine/>`, "has no states"},
		{`<stateMachine><state name="A"/></stateMachine>`, `<state name="A"> has no rule`},
		{`<stateMachine><state name="A"><success/><failure/></state></stateMachine>`, `second rule <failure> in <state name="A">`},
		{`<stateMachine><state name="A"><success/></state><state name="A"><success/></state></stateMachine>`, `duplicate state name "A"`},
		{`<stateMachine initial="B"><state name="A"><success/></state></stateMachine>`, `initial="B" names no state`},
		{`<stateMachine><state name="Attack"><transition result="success" to="Atack"/><success/></state></stateMachine>`, `to="Atack" names no state of this <stateMachine> (at test.xml:1:15); did you mean "Attack"?`},
		{`<stateMachine><state name="A"><transition signal="S" to="A"/><success/></state></stateMachine>`, `no signal "S" is declared`},
		{`<stateMachine><state name="A"><transition to="A"/><success/></state></stateMachine>`, `needs exactly one of signal= (`},
		{`<stateMachine><state name="A"><transition result="done" to="A"/><success/></state></stateMachine>`, `result="done" on <transition> is not a result; expected one of success, failure`},
		{`<stateMachine><success/></stateMachine>`, `<success> is not allowed in <stateMachine>; expected one of state, parameter, condition, conditionMode`},
		{`<stateMachine><state name="A"><success abort="lower"><condition>c</condition></success></state></stateMachine>`, `abort="lower" on <success> is only allowed on a child of a <choice>`},
		{`<stateMachine loop="true"><state name="A"><success/></state></stateMachine>`, `unknown attribute loop on <stateMachine>`},
	} {
		_, err := LoadBytes("test.xml", []byte(bt(c.xml)), LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got  %v\n want %s", c.xml, err, c.want)
		}
		if err != nil && !strings.Contains(err.Error(), "test.xml:1:") {
			t.Errorf("%s: no position in %v", c.xml, err)
		}
	}
}

// TestMachine_format: btrun tree prints each state with its transitions
// before its rule, and the machine's initial state.
func TestMachine_format(t *testing.T) {
	tree, err := LoadBytes("m.xml", []byte(machineXML), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tree.Format(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  stateMachine root  exit=h  initial=Idle  (m.xml:3:1)\n    state Idle  Seen->Combat  success->Patrol  (m.xml:4:3)\n    action idle  name=act",
		"    state Combat  Lost->Idle  Seen->Combat  (m.xml:14:3)\n    action fight",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}
