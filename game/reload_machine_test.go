package game

import (
	"strings"
	"testing"
)

// machineGame: an agent in a state machine whose state B it reaches by a
// result transition and stays in.
var machineGame = map[string]string{
	"config.toml": `[run]
steps = 10
dt = 0.5
[scripts]
paths = ["ai"]
[[trees]]
name = "m"
file = "ai/m.xml"
[[agents]]
tree = "m"
count = 1
`,
	"ai/m.xml": `<behaviorTree>
  <sequence id="root">
    <parameter name="log.start">started</parameter>
    <stateMachine id=".mode" initial="A">
      <state name="A"><transition result="success" to="B"/><action id=".a" name="step"/></state>
      <state name="B"><action id=".b" name="hold"/></state>
    </stateMachine>
  </sequence>
</behaviorTree>`,
	"ai/m.lua": `local bt = require("bt")
bt.action("step", function(ctx) ctx:log("A") return bt.SUCCESS end)
bt.action("hold", {
  run = function(ctx) return bt.RUNNING end,
  cancel = function(ctx) ctx:log("B cancelled") end,
})`,
}

// TestReload_removedStateRestartsItsMachineAtTheInitialState: a reload
// that removes the state an agent is in starts that machine again at its
// initial state (not the tree at its root), with the old cancel; a reload
// that adds a state keeps the agent in its state.
func TestReload_removedStateRestartsItsMachineAtTheInitialState(t *testing.T) {
	s := openSession(t, writeGame(t, machineGame), 0)
	s.run(2)
	added := strings.Replace(machineGame["ai/m.xml"], `<state name="B">`, `<state name="C"><action id=".c" name="hold"/></state><state name="B">`, 1)
	s.write("ai/m.xml", added)
	if rep := s.reload("ai/m.xml"); rep.Kept != 1 {
		t.Fatalf("adding a state: %+v", rep)
	}
	removed := strings.Replace(added, `<state name="B"><action id=".b" name="hold"/></state>`, ``, 1)
	removed = strings.Replace(removed, `to="B"`, `to="C"`, 1)
	s.write("ai/m.xml", removed)
	rep := s.reload("ai/m.xml")
	if rep.Kept != 0 || len(rep.Restarted) != 1 || rep.Restarted[0].At != "root.mode" {
		t.Fatalf("removing the agent's state: %+v", rep)
	}
	s.run(1)
	wantLines(t, "output", s.people.String(),
		"t=1.00 m-1 log root.mode.b: B cancelled",
		"t=1.00 reload: ai/m.xml: 0 agents kept their place, 1 restarted (m-1: rule root.mode.b is gone; state machine root.mode starts again at its initial state)",
		"t=1.50 m-1 log root.mode.a: A",
	)
	if strings.Contains(s.people.String(), "t=1.50 m-1 log root: started") {
		t.Errorf("the agent restarted at the root:\n%s", s.people.String())
	}
	wantLines(t, "trace", s.trace.String(),
		`{"step":3,"time":1.5,"agent":"m-1","runs":[["root.mode.a","success"],["root.mode.c","running"]],"result":"running","cursor":"root.mode.c"}`,
	)
}

// TestMachine_scheduledSignalSwitchesTheStateInItsStep: a signal the
// config schedules for a step's time arrives before that step, which runs
// the new state's rule (the old one's action cancelled first); a signal an
// agent sends itself during a step switches it at its next step.
func TestMachine_scheduledSignalSwitchesTheStateInItsStep(t *testing.T) {
	files := map[string]string{
		"config.toml": `[run]
steps = 4
dt = 0.5
[scripts]
paths = ["ai"]
[[trees]]
name = "m"
file = "ai/m.xml"
[[agents]]
tree = "m"
count = 1
[[signals]]
at = 1.0
signal = "Go"
to = ["m-1"]
`,
		"ai/m.xml": `<behaviorTree>
  <signals><signal name="Go"/><signal name="Back"/></signals>
  <stateMachine id="mode">
    <state name="A"><transition signal="Go" to="B"/><action id=".a" name="hold"/></state>
    <state name="B"><transition signal="Back" to="A"/><action id=".b" name="back"/></state>
  </stateMachine>
</behaviorTree>`,
		"ai/m.lua": `local bt = require("bt")
bt.action("hold", { run = function(ctx) return bt.RUNNING end, cancel = function(ctx) ctx:log("cancelled") end })
bt.action("back", function(ctx) ctx:signal("Back") return bt.RUNNING end)
`,
	}
	trace := runTrace(t, writeGame(t, files), 4)
	wantLines(t, "trace", trace,
		`{"step":1,"time":0.5,"agent":"m-1","runs":[["mode.a","running"]],"result":"running","cursor":"mode.a"}`,
		`{"step":2,"time":1,"agent":"m-1","runs":[["mode.b","running"]],"result":"running","cursor":"mode.b"}`,
		`{"step":3,"time":1.5,"agent":"m-1","runs":[["mode.a","running"]],"result":"running","cursor":"mode.a"}`,
	)
}
