package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refuseFiles: a world that signals agents of two trees each tick with
// data that does not fit a signal line, and with big data until the
// receivers' stimuli (64KB each) are full; a handler forgets a stimulus,
// so a tick's later signal fits only after an earlier one's handler ran.
var refuseFiles = map[string]string{
	"config.toml": `[run]
steps = 30
stimulus_memory = "64KB"
[scripts]
paths = ["ai"]
world = "ai/world.lua"
[[trees]]
name = "k"
file = "ai/k.xml"
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "k"
count = 2
[[agents]]
tree = "t"
count = 4
`,
	"ai/k.xml": `<behaviorTree>
  <variables><variable name="Health" type="number" default="100"/></variables>
  <signals><signal name="Hurt" variable="Health" from="hp"/></signals>
  <running id="hold"/>
</behaviorTree>`,
	"ai/t.xml": `<behaviorTree><action id="keep" name="keep"/></behaviorTree>`,
	"ai/t.lua": `local bt = require("bt")
bt.action("keep", {
  run = function(ctx) return bt.RUNNING end,
  on = {
    Poke = function(ctx, params, data)
      ctx:forget(data)
      ctx:log("forgot " .. data)
      ctx:send("k-1", "Ack", ctx.id)
    end,
  },
})`,
	"ai/world.lua": `local world = {}
function world.tick(game)
  local function try(...)
    local ok, err = pcall(game.signal, ...)
    if not ok then game.log("refused: " .. tostring(err)) end
  end
  local s = game.step
  if s % 7 == 2 then try("k-2", "Hurt", { hp = "lots" }) end
  if s % 7 == 3 then try("all", "Hurt", { hp = 3 }) end
  if s >= 2 then try("t-" .. (s % 4 + 1), "W" .. s, string.rep("w", 20000)) end
  if s % 4 == 0 then
    try("t-1", "Y" .. s, string.rep("y", 20000))
    try("t-1", "Poke", "W" .. (s - 4))
    try("t-1", "Z" .. s, string.rep("z", 20000))
  end
  if s % 5 == 0 then try("all", "Flood", string.rep("f", 15000)) end
  if s == 17 then game.signal("t-2", "X", string.rep("x", 30000)) end
end
return world`,
}

// TestCluster_worldSignalRefusedOnShardProcesses: `btrun run -shards N`
// (a conductor that holds no agent) refuses and delivers the world's
// signals as `btrun run` does: the same trace, output and save.
func TestCluster_worldSignalRefusedOnShardProcesses(t *testing.T) {
	refusedOnShards(t, refuseFiles, "refused: ", "cannot hold signal", "forgot W")
}

// initRefuseWorld is a world whose init fills t-4 (the last shard's)
// until it refuses, sends signals to all that t-4 and then t-2 (another
// shard's) refuse, and goes on by what was refused: a last signal, and
// game.shared, which every spawn reads; two spawns send signals, which
// open the first step's queue.
const initRefuseWorld = `local world = {}
local function try(game, to, name, data)
  local ok, err = pcall(game.signal, to, name, data)
  game.log("init", to, name, ok, err)
  return ok
end
function world.init(game)
  local n = 0
  while n < 10 and try(game, "t-4", "F" .. n, string.rep("f", 20000)) do n = n + 1 end
  local big = try(game, "all", "Big", string.rep("b", 10000))
  try(game, "t-2", "A", string.rep("a", 40000))
  local mid = try(game, "all", "Mid", string.rep("m", 30000))
  try(game, "k-2", "Hurt", { hp = "lots" })
  try(game, "all", "Hurt", { hp = 4 })
  if not big and not mid then
    game.signal("k-1", "Hurt", { hp = n })
    game.shared = { fills = n }
  end
end
function world.spawn(ctx)
  local bt = require("bt")
  ctx:log("spawn sees fills " .. tostring(bt.shared and bt.shared.fills))
  if ctx.id == "k-1" then ctx:send("t-1", "Hello", "from spawn") end
  if ctx.id == "t-3" then bt.broadcast("Spawned", "s") end
end
function world.tick(game)
  local s = game.step
  local ok, err = pcall(game.signal, "t-" .. (s % 4 + 1), "W" .. s, string.rep("w", 9000))
  game.log("tick", s, ok, err)
end
return world`

// TestCluster_worldInitSignalRefusedOnShardProcesses: the world's init
// that overfills a receiver on one shard process and sends signals to all
// that receivers on other shards refuse, going on by what was refused, is
// refused, delivered and continued on `btrun run -shards N` as on `btrun
// run`: the same trace, output and save.
func TestCluster_worldInitSignalRefusedOnShardProcesses(t *testing.T) {
	refusedOnShards(t, initRefuseFiles(), `world init t-4 F3 false`, `world init all Big false ai/world.lua:3: game.signal("all", "Big", data): agent t-4: cannot hold`,
		`world init all Mid false ai/world.lua:3: game.signal("all", "Mid", data): agent t-2: cannot hold`, "spawn sees fills 3", "world init all Hurt true", "t-1 <- signal Hello", "k-1 <- signal Spawned")
}

// TestCluster_worldInitSignalsReplayedFromTheStart: a run of that init
// game that loses a shard process, or its conductor, before its first
// checkpoint after the start goes back to the start's (step 0) and runs
// the world's init again on new shard processes, with `-resume` for a
// dead conductor: the same refusals and deliveries, and one process's
// trace, output and save.
func TestCluster_worldInitSignalsReplayedFromTheStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := writeRefuseGame(t, initRefuseFiles())
	cfg := filepath.Join(dir, "config.toml")
	src, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append(src, "[cluster]\ncheckpoint_every = 100\ndeadline = \"2s\"\nstore = \"run.store\"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	file := func(n string) string { return filepath.Join(dir, n) }
	want := run(t, "", "run", "-config", cfg, "-trace", file("one.jsonl"), "-save", file("one.sav"))
	if want.code != 0 || !strings.Contains(want.stdout, "world init all Big false") {
		t.Fatalf("btrun run: exit %d: %s%s", want.code, want.stderr, want.stdout)
	}
	trace, _ := os.ReadFile(file("one.jsonl"))
	save, _ := os.ReadFile(file("one.sav"))
	for _, fault := range []string{"shard1:report:5", "conductor:step:5"} {
		tag := strings.ReplaceAll(fault, ":", "-")
		args := []string{"run", "-config", cfg, "-shards", "2", "-name", tag, "-trace", file(tag + ".jsonl"), "-save", file(tag + ".sav")}
		r := runFault(t, fault, args...)
		if strings.HasPrefix(fault, "conductor") {
			if r.code != 137 && r.code != -1 {
				t.Fatalf("%s: the conductor was not killed: exit %d: %s", fault, r.code, r.stderr)
			}
			if r = run(t, "", append(args, "-resume")...); !strings.Contains(r.stderr, "from its checkpoint at step 0") {
				t.Errorf("%s: no resume from the start: %q", fault, r.stderr)
			}
		} else if !recoveredAs(r.stderr, "going back to the checkpoint of step 0 and replaying") {
			t.Errorf("%s: no recovery from the start: %q", fault, r.stderr)
		}
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", fault, r.code, r.stderr)
		}
		if fault[0] == 's' && beforeSummary(r.stdout) != beforeSummary(want.stdout) {
			t.Errorf("%s: the output differs from one process's:\n%s\nwant:\n%s", fault, beforeSummary(r.stdout), beforeSummary(want.stdout))
		}
		sameFiles(t, tag, dir, trace, save)
	}
}

// refusedOnShards runs the game of files with `btrun run`, checks that its
// output holds each of wants, and runs it on `-shards 2` and `-shards 3
// -workers 2`: the same trace, output and save.
func refusedOnShards(t *testing.T, files map[string]string, wants ...string) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := writeRefuseGame(t, files)
	config := filepath.Join(dir, "config.toml")
	file := func(n string) string { return filepath.Join(dir, n) }
	want := run(t, "", "run", "-config", config, "-trace", file("one.jsonl"), "-save", file("one.sav"))
	if want.code != 0 {
		t.Fatalf("btrun run: exit %d: %s", want.code, want.stderr)
	}
	for _, w := range wants {
		if !strings.Contains(want.stdout, w) {
			t.Fatalf("one process's output has no %q:\n%s", w, want.stdout)
		}
	}
	for _, layout := range [][]string{{"-shards", "2"}, {"-shards", "3", "-workers", "2"}} {
		tag := strings.Join(layout, "")
		args := append([]string{"run", "-config", config, "-trace", file(tag + ".jsonl"), "-save", file(tag + ".sav")}, layout...)
		got := run(t, "", args...)
		if got.code != 0 {
			t.Fatalf("btrun %s: exit %d: %s", strings.Join(args, " "), got.code, got.stderr)
		}
		if beforeSummary(got.stdout) != beforeSummary(want.stdout) {
			t.Errorf("%s: the output differs from one process's:\n%s\nwant:\n%s", tag, beforeSummary(got.stdout), beforeSummary(want.stdout))
		}
		for _, ext := range []string{".jsonl", ".sav"} {
			a, _ := os.ReadFile(file("one" + ext))
			b, _ := os.ReadFile(file(tag + ext))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s: the %s differs from one process's (%d and %d bytes)", tag, ext, len(b), len(a))
			}
		}
	}
}

// initRefuseFiles are refuseFiles with initRefuseWorld.
func initRefuseFiles() map[string]string {
	files := map[string]string{}
	for k, v := range refuseFiles {
		files[k] = v
	}
	files["ai/world.lua"] = initRefuseWorld
	return files
}

// writeRefuseGame writes files into a new folder, which it returns.
func writeRefuseGame(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
