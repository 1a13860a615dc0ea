package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// reloadGame is a game whose guards take a gate and aim (a Lua action with
// a cancel hook), and signal one another; reloadEdits are the files a run
// reloads over them: the aim rule renamed (its holders restart at the
// root, the old cancel hook's lines), then the Lua action edited (memory
// kept), then the gate shrunk.
var reloadGame = map[string]string{
	"config.toml": `[run]
steps = 60
dt = 0.01
[scripts]
paths = ["ai"]
[[trees]]
name = "g"
file = "ai/g.xml"
[[agents]]
tree = "g"
count = 9
[cluster]
checkpoint_every = 100
deadline = "2s"
store = "store"
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

var reloadEdits = map[string]string{
	"edits/g-renamed.xml": strings.Replace(reloadGame["ai/g.xml"], `id=".aim"`, `id=".aim2"`, 1),
	"edits/aim-v2.lua":    strings.ReplaceAll(reloadGame["ai/aim.lua"], "v1", "v2"),
	"edits/g-shrunk.xml":  strings.Replace(strings.Replace(reloadGame["ai/g.xml"], `id=".aim"`, `id=".aim2"`, 1), `users="3"`, `users="1"`, 1),
}

// reloadInputs reload the edits after steps 12, 25 and 40.
const reloadInputs = `12 reload ai/g.xml edits/g-renamed.xml
25 reload ai/aim.lua edits/aim-v2.lua
25 signal g-1 Ping
40 reload ai/g.xml edits/g-shrunk.xml
40 reload
`

// writeReloadGame writes the game (as it is before its reloads), its
// edits and its inputs into dir.
func writeReloadGame(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{"inputs.txt": reloadInputs}
	for _, m := range []map[string]string{reloadGame, reloadEdits} {
		for k, v := range m {
			files[k] = v
		}
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCluster_reloadsLikeOneProcess: `btrun run -shards 2 -inputs F` whose
// lines reload edited files after chosen steps (and -explain, -realtime)
// writes the trace, the output and the save of `btrun run` with the same
// flags: the reloads reach every shard between the same two steps; so does
// a run whose shard is killed after the first reload (the run goes back to
// the checkpoint taken after it, and its new shards open the reloaded
// files), and one whose conductor is killed and resumed (-resume).
func TestCluster_reloadsLikeOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "config.toml")
	out := filepath.Join(t.TempDir())
	common := []string{"-config", config, "-inputs", filepath.Join(dir, "inputs.txt"), "-explain", "-realtime"}
	writeReloadGame(t, dir)
	trace, save, one := oneProcessRun(t, out, common...)
	for _, want := range []string{"reload: ai/g.xml: 6 agents kept their place, 3 restarted", "v1 cancel at", "reload: ai/aim.lua: 9 agents kept their place",
		"v2 idle", "reload: ai/g.xml: 9 agents kept their place"} {
		if !strings.Contains(one.stdout, want) {
			t.Fatalf("one process's output lacks %q:\n%s", want, one.stdout)
		}
	}
	if !strings.Contains(string(trace), `"why":`) {
		t.Fatal("the trace explains nothing")
	}
	for _, c := range []struct{ tag, fault, back string }{
		{"plain", "", ""},
		{"lost", "shard1:report:20", "going back to the checkpoint of step 12 and replaying"},
		{"resumed", "conductor:step:30", "resuming run reload-resumed from its checkpoint at step 25"},
	} {
		writeReloadGame(t, dir) // the files as they were before the reloads
		r := runRecovered(t, out, c.tag, c.fault, append([]string{"run", "-shards", "2", "-name", "reload-" + c.tag}, common...)...)
		if !strings.Contains(r.stderr, c.back) {
			// On a busy machine a shard may also be silent past the 2s
			// deadline before the fault's point: the run then recovers
			// from another checkpoint, to the same bytes.
			t.Logf("%s: %q lacks %q", c.tag, r.stderr, c.back)
			if !strings.Contains(r.stderr, "going back to the checkpoint of") && !strings.Contains(r.stderr, "starting the run again") &&
				!strings.Contains(r.stderr, "resuming run") {
				t.Errorf("%s: no recovery in %q", c.tag, r.stderr)
			}
		}
		if c.tag != "resumed" {
			sameOutput(t, c.tag, r.stdout, one.stdout)
		}
		sameFiles(t, c.tag, out, trace, save)
	}
}

// TestCluster_watchIsAccepted: -watch in a cluster says what it watches,
// as one process does, and the run is one process's.
func TestCluster_watchIsAccepted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := t.TempDir()
	writeReloadGame(t, dir)
	config := filepath.Join(dir, "config.toml")
	one := run(t, "", "run", "-config", config, "-steps", "10", "-watch")
	two := run(t, "", "run", "-config", config, "-steps", "10", "-watch", "-shards", "2")
	if one.code != 0 || two.code != 0 {
		t.Fatalf("exit %d, %d: %s %s", one.code, two.code, one.stderr, two.stderr)
	}
	if !strings.Contains(two.stdout, "watching ") || beforeSummary(two.stdout) != beforeSummary(one.stdout) {
		t.Errorf("outputs:\n%s\n----\n%s", two.stdout, one.stdout)
	}
}

// TestCluster_realtimeWritesAsItGoes: a paced cluster run (-realtime)
// writes its trace out before each step, as one process does, so that it
// can be watched while it runs: its first lines are in the file long
// before a buffer's worth of them (4096 bytes) would be.
func TestCluster_realtimeWritesAsItGoes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := t.TempDir()
	writeReloadGame(t, dir)
	config := filepath.Join(dir, "config.toml")
	text := strings.NewReplacer("count = 9", "count = 1", "dt = 0.01", "dt = 0.25").Replace(reloadGame["config.toml"])
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "run.jsonl")
	cmd := command("run", "-config", config, "-shards", "2", "-realtime", "-steps", "1000", "-quiet", "-trace", trace)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	for guard := 0; ; guard++ { // waits for the event; the guard only ends a hang
		if guard == 60000 {
			t.Fatal("no trace written in a minute")
		}
		if b, err := os.ReadFile(trace); err == nil && strings.Contains(string(b), `{"step":1,`) {
			if len(b) >= 4096 {
				t.Fatalf("the trace came out in a buffer's worth (%d bytes), not step by step", len(b))
			}
			break
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCluster_lostDuringReloadRecovers: a process lost during a reload
// (the reload journaled, the checkpoint after it not yet taken) sends the
// run back to the checkpoint before the reload, whose files the game's
// folder no longer holds: every process opens the checkpoint's files from
// the store, the replay applies the reload again at its step, and the
// trace, output and save are one process's. So for a shard killed as the
// reload reaches it, and for a conductor killed there, then -resume.
func TestCluster_lostDuringReloadRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "config.toml")
	out := filepath.Join(t.TempDir())
	common := []string{"-config", config, "-inputs", filepath.Join(dir, "inputs.txt")}
	writeReloadGame(t, dir)
	trace, save, one := oneProcessRun(t, out, common...)
	for _, c := range []struct{ tag, fault, back string }{
		{"shard", "shard1:reload:12", "going back to the checkpoint of step 0 and replaying"},
		{"shard25", "shard0:reload:25", "going back to the checkpoint of step 12 and replaying"},
		{"conductor", "conductor:reload:12", "resuming run lostreload-conductor from its checkpoint at step 0"},
	} {
		writeReloadGame(t, dir) // the files as they were before the reloads
		r := runRecovered(t, out, c.tag, c.fault, append([]string{"run", "-shards", "2", "-name", "lostreload-" + c.tag}, common...)...)
		if !strings.Contains(r.stderr, c.back) {
			t.Errorf("%s: %q lacks %q", c.tag, r.stderr, c.back)
		}
		if c.tag != "conductor" {
			sameOutput(t, c.tag, r.stdout, one.stdout)
		}
		sameFiles(t, c.tag, out, trace, save)
	}
}
