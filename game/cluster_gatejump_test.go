package game

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// gateJumpFiles is a game whose guards take a gate and aim (a Lua action
// that runs a few steps under the gate), then idle: a jump of a guard out
// of its gated sequence releases the gate between two steps.
var gateJumpFiles = map[string]string{
	"config.toml": `[run]
steps = 40
dt = 0.01
[scripts]
paths = ["ai"]
[[trees]]
name = "g"
file = "ai/g.xml"
[[agents]]
tree = "g"
count = 9
`,
	"ai/g.xml": `<behaviorTree>
  <gates><gate name="post" users="3" cooldown="0.05"/></gates>
  <variables><variable name="Seen"/></variables>
  <choice id="root">
    <sequence id="guard" gate="post">
      <action id=".look" name="bt.variable.set"><parameter name="variable.name">Seen</parameter><parameter name="variable.value">true</parameter></action>
      <action id=".aim" name="aim"/>
    </sequence>
    <action id="idle" name="idle"/>
  </choice>
</behaviorTree>`,
	"ai/aim.lua": `local bt = require("bt")
bt.action("aim", {
  start = function(ctx) ctx.state.n = 0; ctx:log("v1 start") end,
  run = function(ctx)
    ctx.state.n = ctx.state.n + 1
    if ctx.state.n > 4 then return bt.SUCCESS end
    return bt.RUNNING
  end,
  cancel = function(ctx) ctx:log("v1 cancel at " .. ctx.state.n) end,
})
bt.action("idle", function(ctx)
  ctx.memory.idle = (ctx.memory.idle or 0) + 1
  if ctx.memory.idle % 3 == 0 then ctx:log("v1 idle " .. ctx.memory.idle) end
  return bt.SUCCESS
end)`,
}

// gateJumpCase: the page jumps agent `to` to rule `rule` after step
// jumpAt; then, after step at, the test does what follows (a reload of the
// Lua file edited, a save and load, a checkpoint and a recovery).
type gateJumpCase struct {
	to, rule string
	jumpAt   int
	at       int
	steps    int
}

var gateJump = gateJumpCase{to: "g-2", rule: "idle", jumpAt: 12, at: 20, steps: 40}

// editAim is the reload's edit: the Lua action's lines say v2.
var editAim = reloadCase{
	files: gateJumpFiles,
	edit:  map[string]func(string) string{"ai/aim.lua": func(s string) string { return strings.ReplaceAll(s, "v1", "v2") }},
}

// soloGateJump is the run in one process: the page's jump, then the
// reload after step at when reload: trace, output, final save.
func soloGateJump(t *testing.T, config string, jc gateJumpCase, reload bool) (string, string, []byte) {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var trace, out bytes.Buffer
	g, err := Open(cfg, Options{TraceTo: &trace, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(jc.jumpAt); err != nil {
		t.Fatal(err)
	}
	if err := g.host().JumpAgent(jc.to, jc.rule); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(jc.at - jc.jumpAt); err != nil {
		t.Fatal(err)
	}
	if reload {
		changed := editAim.apply(t, filepath.Dir(config))
		defer editAim.undo(t, filepath.Dir(config))
		if _, err := g.Reload(ReloadOptions{Changed: changed}); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Run(jc.steps - jc.at); err != nil {
		t.Fatal(err)
	}
	save, err := g.encodeSave()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	return trace.String(), out.String(), save
}

// TestConductorGateJump_thenReload: the page jumps a guard that holds the
// gate out of its gated sequence after step 12 (the jump releases the
// gate between two steps, on the guard's shard), and the Lua file is
// reloaded after step 20: on 1, 2 and 3 shards the reload applies (the
// gates carried over hold what one process's do) and the trace, output
// and save are one process's.
func TestConductorGateJump_thenReload(t *testing.T) {
	config := writeGame(t, gateJumpFiles)
	dir := filepath.Dir(config)
	wantTrace, wantOut, wantSave := soloGateJump(t, config, gateJump, true)
	for _, want := range []string{"jump -> idle (debugger)", "v1 cancel at", "reload: ai/aim.lua", "v2 start"} {
		if !strings.Contains(wantOut, want) {
			t.Fatalf("one process's output has no %q: the test shows nothing\n%s", want, wantOut)
		}
	}
	for _, shards := range []int{1, 2, 3} {
		label := fmt.Sprintf("%d shards", shards)
		tc := openCluster(t, clusterSetup{name: config, shards: shards, copies: true})
		c := tc.conductor()
		var journal cluster.MemJournal
		var files cluster.MemFiles
		c.SetJournal(&journal)
		c.SetFiles(&files)
		h := attachPage(c)
		if err := c.Run(gateJump.jumpAt); err != nil {
			t.Fatal(err)
		}
		if err := h.JumpAgent(gateJump.to, gateJump.rule); err != nil {
			t.Fatal(err)
		}
		if err := c.Run(gateJump.at - gateJump.jumpAt); err != nil {
			t.Fatal(err)
		}
		changed := editAim.apply(t, dir)
		if _, err := c.Reload(ReloadOptions{Changed: changed}); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if err := c.Run(gateJump.steps - gateJump.at); err != nil {
			t.Fatal(err)
		}
		tc.wantSolo(label, wantTrace, wantOut, wantSave)
		tc.stop()
		editAim.undo(t, dir)
	}
}
