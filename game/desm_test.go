package game

import (
	"strings"
	"testing"
)

// desmGame: a Drag[en]gine state machine file as a [[trees]] entry, its
// actions Lua's, its events the schedule's signals.
func desmGame(workers string) map[string]string {
	return map[string]string{
		"config.toml": `[run]
steps = 6
dt = 1
workers = ` + workers + `
[scripts]
paths = ["ai"]
[[trees]]
name = "lamp"
file = "ai/lamp.desm"
[[agents]]
tree = "lamp"
count = 3
[[signals]]
at = 2
signal = "switch"
to = ["all"]
[[signals]]
at = 4
signal = "switch"
to = ["lamp-2"]
`,
		"ai/lamp.desm": `<?xml version="1.0"?>
<stateMachine>
  <initialState>off</initialState>
  <state id="off">
    <enterAction name="setLight"><parameter name="level">0</parameter></enterAction>
    <transition event="switch" state="on"/>
  </state>
  <state id="on">
    <enterAction name="setLight"><parameter name="level">1</parameter></enterAction>
    <exitAction name="click"/>
    <transition event="switch" state="off"/>
  </state>
</stateMachine>`,
		"ai/lamp.lua": `local bt = require("bt")
bt.action("setLight", function(ctx, params) ctx:log("light " .. params.level) return bt.SUCCESS end)
bt.action("click", function(ctx) ctx:log("click") return bt.SUCCESS end)
`,
	}
}

// TestDesm_aStateMachineFileRunsAsAGamesTree: the file loads as a tree of
// the game, its events are the schedule's signals, and the trace is the
// same on one worker and on several.
func TestDesm_aStateMachineFileRunsAsAGamesTree(t *testing.T) {
	one := runTrace(t, writeGame(t, desmGame("1")), 6)
	for _, want := range []string{
		`{"step":2,"time":2,"agent":"lamp-3","runs":[["stateMachine.on__enter_1_.enterAction","success"],["stateMachine.on.state","running"]],"result":"running","cursor":"stateMachine.on.state"}`,
		`{"step":4,"time":4,"agent":"lamp-2","runs":[["stateMachine.on__switch_1_.exitAction","success"],["stateMachine.off__enter_1_.enterAction","success"],["stateMachine.off.state","running"]],"result":"running","cursor":"stateMachine.off.state"}`,
		`{"step":4,"time":4,"agent":"lamp-3","runs":[["stateMachine.on.state","running"]],"result":"running","cursor":"stateMachine.on.state"}`,
	} {
		if !strings.Contains(one, want) {
			t.Errorf("no %s in\n%s", want, one)
		}
	}
	if three := runTrace(t, writeGame(t, desmGame("3")), 6); three != one {
		t.Errorf("3 workers: the trace differs from 1 worker's:\n%s\nwant\n%s", three, one)
	}
}
