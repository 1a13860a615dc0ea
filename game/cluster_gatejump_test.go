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
// that runs a few steps under the gate), else idle; only a jump reaches
// the nap, which keeps a guard out of the gate for 10 steps. A jump of a
// guard out of its gated sequence releases the gate between two steps,
// and a guard of another shard takes it once its cooldown is over.
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
    <action id="nap" name="nap"/>
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
end)
bt.action("nap", {
  start = function(ctx) ctx.state.n = 0 end,
  run = function(ctx)
    ctx.state.n = ctx.state.n + 1
    if ctx.state.n > 10 then return bt.SUCCESS end
    return bt.RUNNING
  end,
})`,
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

var gateJump = gateJumpCase{to: "g-2", rule: "nap", jumpAt: 12, at: 20, steps: 40}

// editAim is the reload's edit: the Lua action's lines say v2.
var editAim = reloadCase{
	files: gateJumpFiles,
	edit:  map[string]func(string) string{"ai/aim.lua": func(s string) string { return strings.ReplaceAll(s, "v1", "v2") }},
}

// soloGateJump is the run in one process: the page's jump after step
// jumpAt, then the reload after step at when reload: trace, output, the
// save right after the jump and the final save.
func soloGateJump(t *testing.T, config string, jc gateJumpCase, reload bool) (trace, out string, afterJump, final []byte) {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	before := func(g *Game, s StepInfo) error {
		switch s.Step - 1 {
		case uint64(jc.jumpAt):
			if err := g.host().JumpAgent(jc.to, jc.rule); err != nil {
				t.Fatal(err)
			}
			if afterJump, err = g.encodeSave(); err != nil {
				t.Fatal(err)
			}
		case uint64(jc.at):
			if reload {
				changed := editAim.apply(t, filepath.Dir(config))
				defer editAim.undo(t, filepath.Dir(config))
				if _, err := g.Reload(ReloadOptions{Changed: changed}); err != nil {
					t.Fatal(err)
				}
			}
		}
		return nil
	}
	trace, out, final = soloRun(t, cfg, Options{BeforeStep: before}, jc.steps, true)
	return trace, out, afterJump, final
}

// gateJumpCluster is a cluster of the game with a live view, a journal
// and a file store; every > 0 moves agents between its shards.
func gateJumpCluster(t *testing.T, config string, shards, workers int, every uint64) (*testCluster, *Conductor, DebugHost, *cluster.MemJournal) {
	t.Helper()
	tc := openCluster(t, clusterSetup{name: config, shards: shards, workers: workers, copies: true, every: every})
	c := tc.conductor()
	j := &cluster.MemJournal{}
	c.SetJournal(j)
	c.SetFiles(&cluster.MemFiles{})
	return tc, c, attachPage(c), j
}

// runTo runs c to step to.
func runTo(t *testing.T, c *Conductor, to int) {
	t.Helper()
	if err := c.Run(to - int(c.Step())); err != nil {
		t.Fatal(err)
	}
}

// reloadAim reloads the edited Lua file on c, undone at the test's end.
func reloadAim(t *testing.T, c *Conductor, dir, label string) {
	t.Helper()
	changed := editAim.apply(t, dir)
	t.Cleanup(func() { editAim.undo(t, dir) })
	if _, err := c.Reload(ReloadOptions{Changed: changed}); err != nil {
		t.Fatalf("%s: %v", label, err)
	}
}

// gateJumpShards are the clusters the tests run: 1, 2 and 3 shards (3 of
// 2 workers each), and 2 that move agents every 4 steps.
var gateJumpShards = []struct {
	shards, workers int
	every           uint64
}{{1, 1, 0}, {2, 1, 0}, {3, 2, 0}, {2, 1, 4}}

// TestConductorGateJump_thenReload: the page jumps a guard that holds the
// gate out of its gated sequence after step 12 (the jump releases the
// gate between two steps, on the guard's shard), and the Lua file is
// reloaded after step 20: on 1, 2 and 3 shards, and 2 that move agents,
// the reload applies (the gates carried over hold what one process's do)
// and the trace, output and save are one process's. Before, the
// conductor's copy of the gates kept the guard as a holder, refused a take
// the shards granted, and the reload failed: agent g-3 held gate "post"
// by its rules but was not among the gate's holders.
func TestConductorGateJump_thenReload(t *testing.T) {
	config := writeGame(t, gateJumpFiles)
	dir := filepath.Dir(config)
	wantTrace, wantOut, _, wantSave := soloGateJump(t, config, gateJump, true)
	for _, want := range []string{"jump -> nap (debugger)", "g-2 log guard.aim: v1 cancel at", "g-4 log guard.aim: v1 start", "reload: ai/aim.lua", "v2 start"} {
		if !strings.Contains(wantOut, want) {
			t.Fatalf("one process's output has no %q: the test shows nothing\n%s", want, wantOut)
		}
	}
	for _, s := range gateJumpShards {
		label := fmt.Sprintf("%d shards of %d workers, moves every %d steps", s.shards, s.workers, s.every)
		tc, c, h, _ := gateJumpCluster(t, config, s.shards, s.workers, s.every)
		runTo(t, c, gateJump.jumpAt)
		if err := h.JumpAgent(gateJump.to, gateJump.rule); err != nil {
			t.Fatal(err)
		}
		runTo(t, c, gateJump.at)
		reloadAim(t, c, dir, label)
		runTo(t, c, gateJump.steps)
		tc.wantSolo(label, wantTrace, wantOut, wantSave)
		if s.every > 0 {
			tc.movedBothWays()
		}
		tc.stop()
		editAim.undo(t, dir)
	}
}

// TestConductorGateJump_thenSave: a save right after the jump, and the
// final save, are one process's (the conductor's copy of the gates, which
// a save writes, let the guard's hold go as one process's gates do), and
// so are the trace and the output.
func TestConductorGateJump_thenSave(t *testing.T) {
	config := writeGame(t, gateJumpFiles)
	wantTrace, wantOut, wantAfter, wantSave := soloGateJump(t, config, gateJump, false)
	for _, s := range gateJumpShards {
		label := fmt.Sprintf("%d shards of %d workers, moves every %d steps", s.shards, s.workers, s.every)
		tc, c, h, _ := gateJumpCluster(t, config, s.shards, s.workers, s.every)
		runTo(t, c, gateJump.jumpAt)
		if err := h.JumpAgent(gateJump.to, gateJump.rule); err != nil {
			t.Fatal(err)
		}
		if save := tc.save(); !bytes.Equal(save, wantAfter) {
			t.Errorf("%s: the save right after the jump differs from one process's", label)
		}
		runTo(t, c, gateJump.steps)
		tc.wantSolo(label, wantTrace, wantOut, wantSave)
		tc.stop()
	}
}

// TestConductorGateJump_thenRecovery: a run that goes back to a
// checkpoint ends as one process does (the first run moves agents between
// its 2 shards): from a checkpoint taken after the jump (it holds the
// conductor's copy of the gates), and from one taken before it, whose replay applies the journaled jump on a conductor
// without copies (a run resumed without -debug) on 3 shards; each then
// reloads after step 20. In the third case that replay is lost in its turn
// after a checkpoint of step 18 (taken from the copy of the gates the
// replayed jump changed), and 2 shards go on from it.
func TestConductorGateJump_thenRecovery(t *testing.T) {
	config := writeGame(t, gateJumpFiles)
	dir := filepath.Dir(config)
	wantTrace, wantOut, _, wantSave := soloGateJump(t, config, gateJump, true)
	for _, tt := range []struct {
		name       string
		checkpoint int  // the checkpoint's step
		lost       int  // the step the first run had when lost
		again      bool // the replay checkpoints at lost and is lost too
	}{
		{"a checkpoint after the jump", 16, 18, false},
		{"a checkpoint before the jump", 10, 18, false},
		{"a checkpoint of the replayed jump", 10, 18, true},
	} {
		a, ca, ha, j := gateJumpCluster(t, config, 2, 1, 4) // moving agents
		runTo(t, ca, min(tt.checkpoint, gateJump.jumpAt))
		var cp []byte
		traceAt, outAt := 0, 0
		take := func(tc *testCluster, c *Conductor, step int) {
			var err error
			if cp, err = c.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			traceAt, outAt = tc.trace.Len(), tc.out.Len()
			if err := j.Prune(uint64(step)); err != nil {
				t.Fatal(err)
			}
		}
		if tt.checkpoint < gateJump.jumpAt {
			take(a, ca, tt.checkpoint)
			runTo(t, ca, gateJump.jumpAt)
		}
		if err := ha.JumpAgent(gateJump.to, gateJump.rule); err != nil {
			t.Fatal(err)
		}
		if tt.checkpoint > gateJump.jumpAt {
			runTo(t, ca, tt.checkpoint)
			take(a, ca, tt.checkpoint)
		}
		runTo(t, ca, tt.lost)
		a.stop()
		if a.moves == [2]int{} {
			t.Fatalf("%s: the first run moved no agent", tt.name)
		}

		// resume goes back to the checkpoint on shards shards without
		// copies and replays the journal from step.
		resume := func(from *testCluster, shards, step int) (*testCluster, *Conductor) {
			b := openCluster(t, clusterSetup{name: config, shards: shards})
			b.load(cp)
			b.trace.Reset()
			b.out.Reset()
			b.trace.Write(from.trace.Bytes()[:traceAt])
			b.out.Write(from.out.Bytes()[:outAt])
			cb := b.conductor()
			cb.SetJournal(j)
			cb.SetFiles(&cluster.MemFiles{})
			ins, err := j.From(uint64(step))
			if err != nil {
				t.Fatal(err)
			}
			if err := cb.Replay(ins); err != nil {
				t.Fatal(err)
			}
			return b, cb
		}
		b, cb := resume(a, 3, tt.checkpoint)
		if tt.again {
			runTo(t, cb, tt.lost)
			take(b, cb, tt.lost)
			b.stop()
			b, cb = resume(b, 2, tt.lost)
		}
		runTo(t, cb, gateJump.at)
		reloadAim(t, cb, dir, tt.name)
		runTo(t, cb, gateJump.steps)
		b.wantSolo(tt.name, wantTrace, wantOut, wantSave)
		b.stop()
		editAim.undo(t, dir)
	}
}
