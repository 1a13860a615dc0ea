package game

import (
	"fmt"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// Composition (the cluster's inputs inside the other features): signals
// with data, agents added and removed, aimed at agents whose running rule
// is in a parallel's lane and in a slot's grafted tree, whose actions
// have handlers (which send signals with data in turn), while the
// balancer moves agents between the shards in the same windows, on 2
// shards of 2 workers (and 3 of 1), with a save loaded back after every
// step: the trace, the output and the save are one process's (which loads
// its own save back after every step too: a load gives running actions
// their cancel call), byte for byte.

// composeClusterGame is the game: hosts loop over a parallel whose one
// lane watches and whose other grafts the obj tree into its slot and runs
// it; every running action has handlers and a cancel hook.
// With cancelSends, the watch's cancel hook sends a signal with data to
// another agent and one to itself (a removal's or a load's signals);
// without, it only logs.
func composeClusterGame(t *testing.T, cancelSends bool) string {
	t.Helper()
	send := "false"
	if cancelSends {
		send = "true"
	}
	return writeGame(t, map[string]string{
		"config.toml": `[run]
steps = 24
dt = 0.5
seed = 5
[scripts]
paths = ["ai"]
[[trees]]
name = "host"
file = "ai/host.xml"
[[trees]]
name = "obj"
file = "ai/obj.xml"
[[agents]]
tree = "host"
count = 10
[[signals]]
at = 2
signal = "Ping"
to = ["all"]
`,
		"ai/host.xml": `<behaviorTree>
  <sequence id="host" loop="true">
    <parallel id=".both">
      <action id=".watch" name="watch"/>
      <sequence id=".work">
        <action id=".pick" name="pick"/>
        <slot id="use"/>
      </sequence>
    </parallel>
    <action id=".rest" name="rest"/>
  </sequence>
</behaviorTree>`,
		"ai/obj.xml": `<behaviorTree>
  <sequence id="obj">
    <action id=".use" name="use"/>
    <action id=".done" name="rest"/>
  </sequence>
</behaviorTree>`,
		"ai/host.lua": `local bt = require("bt")
-- hear logs what a handler heard (a table's n, or the data), counts it in
-- the agent's table, and echoes a Ping that asks for it to everyone.
local function hear(what)
  return function(ctx, params, data)
    local n = data
    if type(data) == "table" then n = tostring(data.n) .. " from " .. tostring(data.from) end
    ctx.agent.heard = (ctx.agent.heard or 0) + 1
    ctx:log(what .. " " .. tostring(n) .. " (" .. ctx.agent.heard .. " heard)")
    if type(data) == "table" and data.echo then
      ctx:send("all", "Echo", {n = ctx.agent.heard, from = ctx.id})
    end
  end
end
local function counting(key, lo, hi, cancelled)
  return {
    run = function(ctx)
      ctx.memory.left = (ctx.memory.left or bt.random(lo, hi)) - 1
      if ctx.memory.left > 0 then return bt.RUNNING end
      ctx.memory.left = nil
      return bt.SUCCESS
    end,
    cancel = cancelled,
    on = {Ping = hear(key .. " ping"), Echo = hear(key .. " echo"), Gone = hear(key .. " gone")},
  }
end
local cancelSends = ` + send + `
bt.action("watch", counting("watch", 2, 5, function(ctx)
  ctx:log("watch cancelled")
  if cancelSends then
    local to = "host-1"
    if ctx.id == to then to = "host-3" end
    ctx:send(to, "Gone", {n = 0, from = ctx.id})
    ctx:send("self", "Gone", {n = 1, from = ctx.id})
  end
end))
bt.action("use", counting("use", 1, 4, function(ctx) ctx:log("use cancelled") end))
bt.action("pick", function(ctx)
  ctx:graft("use", "obj")
  return bt.SUCCESS
end)
bt.action("rest", function(ctx) return bt.SUCCESS end)
`,
	})
}

// composeInput is an input after a step.
type composeInput struct {
	after    uint64
	op       string // "signal", "add", "remove"
	id, name string
	data     runtime.Value
}

// composeInputs are the inputs of the composed run: signals with data to
// one agent and to all (some asking for echoes), agents added, and agents
// removed while their running rules are in a lane or a slot's tree.
func composeInputs() []composeInput {
	var ins []composeInput
	for s := uint64(1); s < 22; s++ {
		to := fmt.Sprintf("host-%d", []int{1, 3, 5, 6, 8, 9}[s%6]) // never removed
		ins = append(ins, composeInput{s, "signal", to, "Ping", runtime.Table("n", int(s), "from", "go")})
		if s%4 == 0 {
			ins = append(ins, composeInput{s, "signal", "all", "Ping", runtime.Table("n", int(s), "from", "go", "echo", 1)})
		}
	}
	for _, in := range []composeInput{
		{3, "add", "late-1", "host", runtime.Value{}},
		{5, "remove", "host-2", "", runtime.Value{}},
		{6, "signal", "late-1", "Ping", runtime.List(1, "two", 3)},
		{8, "add", "late-2", "host", runtime.Value{}},
		{9, "remove", "host-7", "", runtime.Value{}},
		{11, "remove", "late-1", "", runtime.Value{}},
		{13, "add", "late-3", "host", runtime.Value{}},
		{14, "remove", "host-10", "", runtime.Value{}},
		{17, "remove", "host-4", "", runtime.Value{}},
		{19, "remove", "late-3", "", runtime.Value{}},
	} {
		ins = append(ins, in)
	}
	return ins
}

// applyCompose applies the inputs due after step s through the three
// functions (one process's Game, or a cluster's Conductor).
func applyCompose(t *testing.T, s uint64, signal func(to, name string, data runtime.Value) error, add func(id, tree string) error, remove func(id string) error) {
	t.Helper()
	for _, in := range composeInputs() {
		if in.after != s {
			continue
		}
		var err error
		switch in.op {
		case "signal":
			err = signal(in.id, in.name, in.data)
		case "add":
			err = add(in.id, in.name)
		default:
			err = remove(in.id)
		}
		if err != nil {
			t.Fatalf("after step %d, %s %s: %v", s, in.op, in.id, err)
		}
	}
}

// TestCluster_inputsComposeWithSlotsLanesMovesAndLoads: see above, with
// a save loaded back after every step, whose cancel hooks (as the removed
// agents') log and send: the shards' restores reply their lines and
// signals at their places (cluster_loadsig.go).
// One process's run shows that the removed agents ran in a lane and in a
// slot's tree, and that handlers heard data and echoed.
func TestCluster_inputsComposeWithSlotsLanesMovesAndLoads(t *testing.T) {
	composeCluster(t, true, true)
}

// TestCluster_inputsComposeWithSlotsLanesAndMoves: the same without the
// loads, the removed agents' cancel hooks sending signals with data.
func TestCluster_inputsComposeWithSlotsLanesAndMoves(t *testing.T) {
	composeCluster(t, true, false)
}

// composeCluster runs composeClusterGame with composeInputs in one process
// and on clusters that move agents, loading a save back after every step
// when loads, and wants the cluster's trace, output and save to be one
// process's.
func composeCluster(t *testing.T, cancelSends, loads bool) {
	const steps = 24
	config := composeClusterGame(t, cancelSends)
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	where := map[string]int{}
	before := func(g *Game, s StepInfo) error {
		if loads && s.Step > 1 { // the save of the step before loaded back (running actions get their cancel call)
			b, err := g.SaveState()
			if err != nil {
				return err
			}
			if err := g.RestoreState(b); err != nil {
				return err
			}
		}
		for _, in := range composeInputs() {
			if in.after == s.Step-1 && in.op == "remove" {
				where[g.Agent(in.id).CursorLabel()]++
			}
		}
		applyCompose(t, s.Step-1, g.Signal, func(id, tree string) error { _, err := g.AddAgent(id, tree, nil); return err }, g.RemoveAgent)
		return nil
	}
	wantTrace, wantOut, wantSave := soloRun(t, cfg, Options{BeforeStep: before}, steps, true)
	if where["host.both"] != 6 {
		t.Fatalf("the removed agents' running rules: %v; want all 6 in the parallel", where)
	}
	// Removed agents, closed by their removal only: host-2 in the lane,
	// host-4 in both the lane and the slot's tree.
	wants := []string{"host-2 log host.both.watch: watch cancelled", "host-4 log use.obj.use: use cancelled", "host-4 log host.both.watch: watch cancelled",
		"watch ping 6 from go", "use ping", "use echo", "watch echo"}
	if cancelSends {
		wants = append(wants, "gone 0 from host-2")
	}
	for _, want := range wants {
		if !strings.Contains(wantOut, want) {
			t.Fatalf("one process's output has no %q:\n%s", want, wantOut)
		}
	}
	if self := `"agent":"host-1","signal":"Gone","from":"host-1"`; cancelSends && !strings.Contains(wantTrace, self) {
		t.Fatalf("one process's trace has no signal a cancel hook sent its own agent (%s)", self)
	}
	for _, run := range []struct {
		shards, workers int
		copies          bool // the conductor holds copies of the agents (a live view)
	}{{1, 1, false}, {2, 2, false}, {3, 1, false}, {2, 2, true}} {
		shards, workers := run.shards, run.workers
		label := fmt.Sprintf("%d shards of %d workers (copies: %v)", shards, workers, run.copies)
		tc := openCluster(t, clusterSetup{name: config, shards: shards, workers: workers, fromSaves: true, every: 2, copies: run.copies})
		c := tc.conductor()
		c.SetJournal(&cluster.MemJournal{})
		for c.Step() < steps {
			applyCompose(t, c.Step(), c.Signal, func(id, tree string) error { return c.AddAgent(id, tree, nil) }, c.RemoveAgent)
			if err := c.Run(1); err != nil {
				t.Fatalf("%s: step %d: %v", label, c.Step()+1, err)
			}
			if loads && c.Step() < steps {
				tc.load(tc.save())
			}
		}
		if shards > 1 {
			tc.movedBothWays()
		}
		tc.wantSolo(label, wantTrace, wantOut, wantSave)
		tc.stop()
	}
}
