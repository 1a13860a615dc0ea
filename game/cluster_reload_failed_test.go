package game

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestConductorReload_failedAfterExitsIsOneProcesss: a reload that fails
// after the exits of rules edited out above kept places ran (the new
// world's spawn fails) changes the agents as one process's does (the exit
// ran, once, with reset, and what it sent is delivered at the next step):
// the shards' agents are given the copies' state, and the run goes on as one process's, the trace, output and save alike.
func TestConductorReload_failedAfterExitsIsOneProcesss(t *testing.T) {
	rc := failedAfterExits()
	config := writeGame(t, rc.files)
	dir := filepath.Dir(config)
	wantTrace, wantOut, wantSave := soloReload(t, config, rc)
	for _, want := range []string{"wrap out reset", "v2 spawn breaks", "wrap out success"} {
		if !strings.Contains(wantOut, want) {
			t.Fatalf("one process's output has no %q:\n%s", want, wantOut)
		}
	}
	if !strings.Contains(wantTrace, "Ping") {
		t.Fatalf("one process's trace has no signal Ping:\n%s", wantTrace)
	}
	for _, copies := range []bool{false, true} {
		label := fmt.Sprintf("copies %v", copies)
		tc := openCluster(t, clusterSetup{name: config, shards: 2, workers: 2, copies: copies})
		c := tc.conductor()
		if err := c.Run(rc.at); err != nil {
			t.Fatal(err)
		}
		changed := rc.apply(t, dir)
		if _, err := c.Reload(ReloadOptions{Changed: changed}); !errors.Is(err, ErrReload) {
			t.Fatalf("%s: %v, want ErrReload", label, err)
		}
		if err := c.Run(rc.steps - rc.at); err != nil {
			t.Fatal(err)
		}
		tc.wantSolo(label, wantTrace, wantOut, wantSave)
		tc.stop()
		rc.undo(t, dir)
	}
}

// failedAfterExits is a reload that fails after the exits of rules edited
// out above kept places ran.
func failedAfterExits() reloadCase {
	// wrap's exit logs, and sends a signal when reset (its receiver's
	// variable changes at the next step's deliveries).
	signals := `<variables><variable name="Pinged"/></variables><signals><signal name="Ping" variable="Pinged" value="true"/></signals>`
	v1 := `<behaviorTree>` + signals + `<sequence id="root"><sequence id="wrap" exit="bt.lua">` +
		`<parameter name="lua.exit">ctx:log("wrap out " .. how); if how == "reset" then ctx:send("a-2", "Ping", {}) end</parameter>` +
		`<action id="aim" name="aim"/></sequence></sequence></behaviorTree>`
	return reloadCase{name: "failed after exits", at: 2, steps: 10, files: map[string]string{
		"config.toml": `[run]
steps = 100
dt = 0.5
[scripts]
paths = ["ai"]
world = "ai/world.lua"
[[trees]]
name = "a"
file = "ai/a.xml"
[[agents]]
tree = "a"
count = 3
`,
		"ai/a.xml": v1,
		"ai/aim.lua": `local bt = require("bt")
bt.action("aim", {run = function(ctx)
  ctx.memory.n = (ctx.memory.n or 0) + 1
  if ctx.memory.n % 4 ~= 0 then return bt.RUNNING end
  return bt.SUCCESS
end})`,
		"ai/world.lua": `local world = {}
function world.spawn(ctx) end
return world`,
	}, edit: map[string]func(string) string{
		"ai/a.xml": func(string) string {
			return `<behaviorTree>` + signals + `<sequence id="root"><action id="aim" name="aim"/></sequence></behaviorTree>`
		},
		"ai/world.lua": func(s string) string {
			return strings.Replace(s, "function world.spawn(ctx) end", `function world.spawn(ctx) error("v2 spawn breaks") end`, 1)
		},
	}}
}
