package game

import (
	"fmt"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// refuseGame: the world signals agents of two trees. The k agents' tree
// sets a number variable from a signal's data (Hurt's hp); the t agents
// hold stimuli without forgetting them, at most 64KB each. The world
// sends Hurt with data that does not fit, to one agent and to all, and
// fills the t agents' stimuli with a big signal every tick, until they
// refuse; a flood to all is refused by the first full agent. Each refusal
// is a Lua error at the world's line: caught by pcall and logged, or not
// caught, ending the tick.
func refuseGame() map[string]string {
	return map[string]string{
		"config.toml": `[run]
steps = 20
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
		"ai/t.xml": `<behaviorTree><running id="hold"/></behaviorTree>`,
		"ai/world.lua": `local world = {}
local function try(...)
  local ok, err = pcall(game_signal, ...)
  if not ok then game_log("refused: " .. tostring(err)) end
end
function world.tick(game)
  game_signal = function(...) return game.signal(...) end
  game_log = game.log
  local s = game.step
  game.log("tick", s)
  if s == 2 then try("k-2", "Hurt", { hp = "lots" }) end
  if s == 3 then try("all", "Hurt", { hp = "x" }) end
  if s == 4 then try("all", "Hurt", { hp = 7 }) end
  if s == 5 then game.signal("k-1", "Hurt", { hp = true }) end -- not caught: ends the tick
  if s >= 2 then try("t-" .. (s % 4 + 1), "W" .. s, string.rep("w", 20000)) end
  if s % 5 == 0 then try("all", "Flood", string.rep("f", 15000)) end
  if s == 17 then game.signal("t-2", "X" .. s, string.rep("x", 30000)) end -- not caught
  game.log("tock", s)
end
return world`,
	}
}

// TestCluster_worldSignalRefusedAsInOneProcess: the world's game.signal
// that one process refuses (data that does not fit a receiver's signal
// line, a receiver whose stimuli are full; to one agent and to all) is
// refused alike on a cluster, whether its conductor holds copies of the
// agents or none (Options.Conductor: the shards are asked): the same
// Lua errors at the same lines, nothing delivered, the same trace, output
// and save, on 1, 2 and 3 shards.
func TestCluster_worldSignalRefusedAsInOneProcess(t *testing.T) {
	config := writeGame(t, refuseGame())
	const steps = 20
	wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, config, 0), Options{}, steps, true)
	for _, want := range []string{
		`refused: ai/world.lua:7: game.signal("k-2", "Hurt", data): agent k-2: `,
		`refused: ai/world.lua:7: game.signal("all", "Hurt", data): agent k-1: `,
		`ai/world.lua:14: game.signal("k-1", "Hurt", data): agent k-1: `,
		`game.signal("t-`, `cannot hold signal "W`,
		`game.signal("all", "Flood", data): agent t-`,
		`ai/world.lua:17: game.signal("t-2", "X17", data): agent t-2: cannot hold signal "X17"`,
	} {
		if !strings.Contains(wantOut, want) {
			t.Fatalf("one process's output has no %q (the game does not test what it should):\n%s", want, wantOut)
		}
	}
	if !strings.Contains(wantTrace, `"agent":"k-1","signal":"Hurt","from":"world"`) {
		t.Fatalf("the fitting Hurt was not delivered:\n%s", wantTrace)
	}
	for _, copies := range []bool{false, true} {
		for shards := 1; shards <= 3; shards++ {
			tc := openCluster(t, clusterSetup{name: config, shards: shards, copies: copies})
			tc.steps(1, steps)
			tc.wantSolo(fmt.Sprintf("copies %v, %d shards", copies, shards), wantTrace, wantOut, wantSave)
		}
	}
}

// TestCluster_worldInitSignalRefusedAsInOneProcess: the world's init,
// which every process of a cluster runs (the conductor without agents,
// each shard with its own), refuses a signal whose data does not fit a
// receiver's signal line as one process does, whichever process holds the
// receiver: every process checks the data against the receiver's tree in
// its directory.
func TestCluster_worldInitSignalRefusedAsInOneProcess(t *testing.T) {
	files := refuseGame()
	files["ai/world.lua"] = `local world = {}
function world.init(game)
  for _, to in ipairs({ "k-2", "all", "t-4" }) do
    local ok, err = pcall(game.signal, to, "Hurt", { hp = "lots" })
    game.log(to, ok, err)
  end
  game.signal("all", "Hurt", { hp = 3 })
end
function world.tick(game) game.log("tick", game.step) end
return world`
	config := writeGame(t, files)
	const steps = 3
	wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, config, 0), Options{}, steps, true)
	for _, want := range []string{
		`world k-2 false ai/world.lua:4: game.signal("k-2", "Hurt", data): agent k-2: signal "Hurt" sets variable "Health"`,
		`world all false ai/world.lua:4: game.signal("all", "Hurt", data): agent k-1: signal "Hurt" sets variable "Health"`,
		`world t-4 true`,
	} {
		if !strings.Contains(wantOut, want) {
			t.Fatalf("one process's output has no %q:\n%s", want, wantOut)
		}
	}
	for _, copies := range []bool{false, true} {
		for shards := 1; shards <= 3; shards++ {
			tc := openCluster(t, clusterSetup{name: config, shards: shards, copies: copies})
			tc.steps(1, steps)
			tc.wantSolo(fmt.Sprintf("copies %v, %d shards", copies, shards), wantTrace, wantOut, wantSave)
		}
	}
}

// TestCluster_goSignalOnAClustersGameIsRefused: Game.Signal on the game of
// a cluster's conductor or shard would deliver on that process alone (the
// conductor's delivery was dropped with the next step's start); it is
// refused, naming Conductor.Signal, which journals the signal and has the
// receivers' shards check and deliver it.
func TestCluster_goSignalOnAClustersGameIsRefused(t *testing.T) {
	config := writeGame(t, refuseGame())
	for _, copies := range []bool{false, true} {
		tc := openCluster(t, clusterSetup{name: config, shards: 2, copies: copies})
		tc.steps(1, 2)
		for _, g := range []*Game{tc.ch.g, tc.shards[0].g, tc.shards[1].g} {
			err := g.Signal("t-1", "Poke", runtime.Value{})
			if err == nil || !strings.Contains(err.Error(), "Conductor.Signal") {
				t.Errorf("copies %v: Game.Signal on a cluster's game: %v", copies, err)
			}
		}
		tc.steps(3, 3)
		trace, _ := tc.finish()
		if strings.Contains(trace, `"signal":"Poke"`) {
			t.Errorf("copies %v: a refused signal was delivered", copies)
		}
	}
}

// refuseHandlersGame is refuseGame whose t agents run an action with
// handlers: Poke forgets the stimulus its data names, logs and sends k-1
// an Ack; so a tick's later signal to the agent fits only because of
// what an earlier one's handler did. With shared, the world sets
// game.shared each tick, which the handlers of its signals see only from
// the next tick on.
func refuseHandlersGame(shared bool) map[string]string {
	files := refuseGame()
	files["ai/t.xml"] = `<behaviorTree><action id="keep" name="keep"/></behaviorTree>`
	files["ai/t.lua"] = `local bt = require("bt")
bt.action("keep", {
  run = function(ctx) return bt.RUNNING end,
  on = {
    Poke = function(ctx, params, data)
      ctx:forget(data)
      ctx:log("forgot " .. data .. ", shared " .. tostring(bt.shared and bt.shared.n))
      ctx:send("k-1", "Ack", ctx.id)
    end,
  },
})`
	if shared {
		files["ai/world.lua"] = strings.Replace(files["ai/world.lua"], `  local s = game.step`, "  local s = game.step\n  game.shared = { n = s }", 1)
	}
	files["ai/world.lua"] = strings.Replace(files["ai/world.lua"], `  game.log("tock", s)`,
		`  if s == 8 or s == 12 then
    try("t-1", "Y" .. s, string.rep("y", 20000))
    try("t-1", "Poke", "W" .. (s - 4))
    try("t-1", "Z" .. s, string.rep("z", 20000))
  end
  game.log("tock", s)`, 1)
	return files
}

// TestCluster_worldSignalsAfterHandlersAsInOneProcess: a tick's signals
// meet their receivers as the tick's earlier signals and their handlers
// left them (a handler that forgets a stimulus makes room for the next
// signal, one that sends queues it first in the step), on shards with 2
// workers, with and without copies; and a save made on one layout
// mid-run, loaded on another, ends with one process's save.
func TestCluster_worldSignalsAfterHandlersAsInOneProcess(t *testing.T) {
	config := writeGame(t, refuseHandlersGame(true))
	const steps = 20
	wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, config, 0), Options{}, steps, true)
	for _, want := range []string{"t-1 log keep: forgot W8, shared 11", "t-1 <- signal Z12", `game.signal("t-1", "Y12", data): agent t-1: cannot hold`} {
		if !strings.Contains(wantOut, want) {
			t.Fatalf("one process's output has no %q:\n%s", want, wantOut)
		}
	}
	if !strings.Contains(wantTrace, `"agent":"k-1","signal":"Ack","from":"t-1"`) {
		t.Fatalf("no Ack in one process's trace")
	}
	for _, copies := range []bool{false, true} {
		for shards := 1; shards <= 3; shards++ {
			tc := openCluster(t, clusterSetup{name: config, shards: shards, workers: 2, copies: copies})
			tc.steps(1, steps)
			tc.wantSolo(fmt.Sprintf("copies %v, %d shards", copies, shards), wantTrace, wantOut, wantSave)
		}
	}
	first := openCluster(t, clusterSetup{name: config, shards: 2})
	first.steps(1, 10)
	mid := first.save()
	first.stop()
	for _, shards := range []int{1, 3} {
		tc := openCluster(t, clusterSetup{name: config, shards: shards})
		tc.load(mid)
		tc.steps(11, steps)
		if save := tc.save(); string(save) != string(wantSave) {
			t.Errorf("saved on 2 shards at step 10, loaded on %d: the final save differs from one process's", shards)
		}
	}
}

// TestCluster_worldSignalsReplayedFromACheckpoint: a run that goes back to
// a checkpoint (its conductor died after it) runs the world's ticks again
// on the restored shards: the same refusals, deliveries and handlers, and
// one process's trace, output and save, on another number of shards.
func TestCluster_worldSignalsReplayedFromACheckpoint(t *testing.T) {
	// Without game.shared: it is not saved, and what a handler that runs
	// before the first tick after a load reads of bt.shared is not the
	// continuous run's, in one process either.
	config := writeGame(t, refuseHandlersGame(false))
	const steps, ckpt, cut = 20, 7, 14
	wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, config, 0), Options{}, steps, true)
	for _, shards := range []int{3, 1} {
		for _, copies := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/copies=%v", shards, copies), func(t *testing.T) {
				run := t.Name()
				store := cluster.SharedMemStore(run)
				a := openCluster(t, clusterSetup{name: config, shards: 2, copies: copies})
				a.steps(1, ckpt)
				if _, err := a.conductor().WriteCheckpoint(store, run, cluster.Checkpoint{Seq: 1, Until: steps}); err != nil {
					t.Fatal(err)
				}
				traceAt, outAt := a.trace.Len(), a.out.Len()
				a.steps(ckpt+1, cut) // lost with the conductor
				a.stop()
				cp, ok, err := store.Latest()
				if err != nil || !ok {
					t.Fatalf("the run's checkpoint: %+v, %v, %v", cp, ok, err)
				}
				b := openCluster(t, clusterSetup{name: config, shards: shards, copies: copies})
				if err := b.conductor().RestoreCheckpoint(store, run, cp); err != nil {
					t.Fatal(err)
				}
				b.trace.Reset()
				b.out.Reset()
				b.trace.Write(a.trace.Bytes()[:traceAt])
				b.out.Write(a.out.Bytes()[:outAt])
				b.steps(ckpt+1, steps)
				b.wantSolo("", wantTrace, wantOut, wantSave)
			})
		}
	}
}

// refusedInputs are signals from outside between steps, from a Go program
// ("go") and the live view ("signal"), that the receivers refuse: data that
// does not fit a signal line, a stimulus a full receiver cannot hold.
var refusedInputs = []pageInput{
	{4, "signal", "k-2", "Hurt", runtime.Table("hp", "x")},
	{4, "go", "all", "Hurt", runtime.Table("hp", true)},
	{4, "go", "k-1", "Hurt", runtime.Table("hp", 5)},
	{9, "signal", "t-2", "Big", runtime.String(strings.Repeat("b", 40000))},
	{9, "go", "t-2", "Big2", runtime.String(strings.Repeat("b", 40000))},
	{13, "go", "all", "Flood2", runtime.String(strings.Repeat("f", 30000))},
	{13, "signal", "t-1", "Small", runtime.String("s")},
}

// sendRefused sends the refusedInputs that follow step s and returns each
// one's error text ("" for none), go through send, the page's through h.
func sendRefused(s uint64, send func(to, name string, data runtime.Value) error, h DebugHost) []string {
	var errs []string
	for _, in := range refusedInputs {
		if in.after != s {
			continue
		}
		var err error
		if in.kind == "go" {
			err = send(in.to, in.name, in.data)
		} else {
			err = h.SendSignal(in.to, in.name, in.data)
		}
		text := ""
		if err != nil {
			text = err.Error()
		}
		errs = append(errs, fmt.Sprintf("after %d, %s %s to %s: %s", s, in.kind, in.name, in.to, text))
	}
	return errs
}

// TestConductor_inputsRefusedAsInOneProcess: a Go program's signals
// (Conductor.Signal) and the live view's (checked against the conductor's
// copies) that one process refuses are refused on a cluster with the same
// errors, and nothing of them is delivered, among the world's signals
// that the shards check and deliver during the ticks: the same trace,
// output and save on 1, 2 and 3 shards.
func TestConductor_inputsRefusedAsInOneProcess(t *testing.T) {
	config := writeGame(t, refuseHandlersGame(true))
	const steps = 16
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var wantErrs []string
	before := func(g *Game, s StepInfo) error {
		wantErrs = append(wantErrs, sendRefused(s.Step-1, g.Signal, g.host())...)
		return nil
	}
	wantTrace, wantOut, wantSave := soloRun(t, cfg, Options{BeforeStep: before}, steps, true)
	refused := 0
	for _, e := range wantErrs {
		if !strings.HasSuffix(e, ": ") {
			refused++
		}
	}
	if refused < 4 || refused == len(wantErrs) {
		t.Fatalf("one process refused %d of %d inputs: the test shows little\n%s", refused, len(wantErrs), strings.Join(wantErrs, "\n"))
	}
	for shards := 1; shards <= 3; shards++ {
		tc := openCluster(t, clusterSetup{name: config, shards: shards, copies: true}) // a live view draws copies
		c := tc.conductor()
		h := attachPage(c)
		var errs []string
		for c.Step() < steps {
			errs = append(errs, sendRefused(c.Step(), c.Signal, h)...)
			if err := c.Run(1); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := strings.Join(errs, "\n"), strings.Join(wantErrs, "\n"); got != want {
			t.Errorf("%d shards: the inputs' errors:\n%s\nwant:\n%s", shards, got, want)
		}
		tc.wantSolo(fmt.Sprintf("%d shards", shards), wantTrace, wantOut, wantSave)
		tc.stop()
	}
}
