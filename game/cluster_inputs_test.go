package game

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// goSignal is a signal a Go program sends after step after.
type goSignal struct {
	after    uint64
	to, name string
	data     runtime.Value
}

// goSignals are the inputs of the tests below, on the "signals" fixture:
// a hurt grunt (who then calls a medic), orders to all, an attack with
// data (a handler's log and failure), a Healed without data (a handler's
// error), and a signal to a stopped agent's name that does not exist.
var goSignals = []goSignal{
	{3, "grunt-2", "Hurt", runtime.Table("by", "game", "damage", 20)},
	{10, "all", "Orders", runtime.String("hold")},
	{10, "medic-1", "Attacked", runtime.Table("by", "game", "damage", 3, "from", runtime.List(1, 2))},
	{20, "grunt-3", "Hurt", runtime.Table("by", "game", "damage", 31)},
	{25, "grunt-4", "Healed", runtime.Value{}},
	{25, "all", "Orders", runtime.String("advance")},
	{33, "medic-2", "Attacked", runtime.Table("by", "game", "damage", 1, "from", runtime.List(-4, 0))},
}

// sendDue sends the signals that follow step s.
func sendDue(t *testing.T, s uint64, send func(to, name string, data runtime.Value) error) {
	t.Helper()
	for _, in := range goSignals {
		if in.after == s {
			if err := send(in.to, in.name, in.data); err != nil {
				t.Fatalf("after step %d, signal %s to %s: %v", s, in.name, in.to, err)
			}
		}
	}
}

// singleWithSignals is the fixture's run in one process with goSignals
// sent between its steps: its trace, output and save.
func singleWithSignals(t *testing.T, steps int) (string, string, []byte) {
	t.Helper()
	return soloWithInputs(t, clusterConfig("signals"), steps, func(g *Game, after uint64) { sendDue(t, after, g.Signal) })
}

// runWithSignals runs c from its step to step to, sending goSignals (those
// after step from on) between the steps.
func runWithSignals(t *testing.T, c *Conductor, to uint64) {
	t.Helper()
	runWithInputs(t, c, to, func(after uint64) { sendDue(t, after, c.Signal) })
}

// TestConductor_signalsFromGo: signals a Go program sends between steps
// reach a cluster's agents as they reach one process's: the trace, the
// output and the save are one process's, on 1, 2 and 3 shards.
func TestConductor_signalsFromGo(t *testing.T) {
	const steps = 40
	wantTrace, wantOut, wantSave := singleWithSignals(t, steps)
	for _, shards := range []int{1, 2, 3} {
		tc := startCluster(t, "signals", shards)
		c := tc.conductor()
		j := &cluster.MemJournal{}
		c.SetJournal(j)
		runWithSignals(t, c, steps)
		tc.wantSolo(fmt.Sprintf("%d shards", shards), wantTrace, wantOut, wantSave)
		if ins, _ := j.From(0); len(ins) != len(goSignals) {
			t.Errorf("%d shards: %d inputs journaled, want %d", shards, len(ins), len(goSignals))
		}
		tc.stop()
	}
}

// TestConductor_signalsReplayed: a cluster that goes back to a checkpoint
// (a lost shard) and replays the journal's inputs after it ends with one
// process's trace, output and save; without the journal's inputs it would
// not.
func TestConductor_signalsReplayed(t *testing.T) {
	const steps, ckpt, lost = 40, 16, 28
	wantTrace, wantOut, wantSave := singleWithSignals(t, steps)
	j := &cluster.MemJournal{}

	a := startCluster(t, "signals", 2)
	ca := a.conductor()
	ca.SetJournal(j)
	runWithSignals(t, ca, ckpt)
	cp, err := ca.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	traceAt, outAt := a.trace.Len(), a.out.Len()
	if err := j.Prune(ckpt); err != nil {
		t.Fatal(err)
	}
	runWithSignals(t, ca, lost) // then a shard is lost: its link ends
	a.stop()

	b := startCluster(t, "signals", 3)
	b.load(cp)
	// What starting and loading wrote is written already (the trace and
	// the output go back to where they stood at the checkpoint).
	b.wroteAs(a, traceAt, outAt)
	cb := b.conductor()
	cb.SetJournal(j)
	ins, err := j.From(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 3 { // after steps 20 and 25
		t.Fatalf("%d inputs journaled after the checkpoint, want 3", len(ins))
	}
	if err := cb.Replay(ins); err != nil {
		t.Fatal(err)
	}
	for cb.Step() < lost { // the replay: the inputs come from the journal
		if err := cb.Run(1); err != nil {
			t.Fatal(err)
		}
	}
	runWithSignals(t, cb, steps)
	b.wantSolo("", wantTrace, wantOut, wantSave)
}

// TestConductor_signalRefused: a signal a receiver cannot hold (its
// stimuli full) is refused as one process refuses it, with the same
// error, and nothing is delivered: the runs go on alike. A signal to
// nobody is not journaled.
func TestConductor_signalRefused(t *testing.T) {
	config := writeGame(t, stimGame(1, `stimulus_memory = "64KB"`))
	flood := runtime.String(strings.Repeat("f", 20000))
	g, wantTrace, wantOut := openSolo(t, config)
	if err := g.Run(3); err != nil {
		t.Fatal(err)
	}
	want := g.Signal("all", "Flood", flood)
	if err := g.Run(2); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}

	tc := startCluster(t, config, 2)
	c := tc.conductor()
	j := &cluster.MemJournal{}
	c.SetJournal(j)
	if err := c.Run(3); err != nil {
		t.Fatal(err)
	}
	got := c.Signal("all", "Flood", flood)
	var refused *InputError
	if !errors.Is(want, runtime.ErrStimuli) || !errors.As(got, &refused) || got.Error() != want.Error() {
		t.Errorf("got %v, want a refusal %v", got, want)
	}
	if err := c.Signal("nobody", "Flood", runtime.Value{}); err == nil {
		t.Error("a signal to nobody was sent")
	}
	if ins, _ := j.From(0); len(ins) != 1 {
		t.Errorf("%d inputs journaled, want the refused one only", len(ins))
	}
	if err := c.Run(2); err != nil {
		t.Fatal(err)
	}
	tc.wantSolo("", wantTrace.String(), wantOut.String(), nil)
}

// TestConductor_handlerSignalsJoinNextStep: what the handler of a signal
// from Go sends to other agents is delivered at the next step's end, ahead
// of that step's own signals, as in one process.
func TestConductor_handlerSignalsJoinNextStep(t *testing.T) {
	files := stimGame(1, "")
	files["ai/t.lua"] = `local bt = require("bt")
bt.action("hoard", {
  run = function(ctx)
    if ctx.step % 2 == 0 then ctx:send("t-1", "Tick", ctx.id) end
    return bt.RUNNING
  end,
  on = {
    Ping = function(ctx, params, data) ctx:send("t-4", "Pong", ctx.id .. ":" .. data) end,
    Pong = function(ctx, params, data) ctx:log("pong " .. data) end,
    Tick = function(ctx, params, data) ctx:log("tick " .. data) end,
  },
})`
	config := writeGame(t, files)
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	before := func(g *Game, s StepInfo) error {
		if s.Step == 2 || s.Step == 5 {
			return g.Signal("all", "Ping", runtime.String("go"))
		}
		return nil
	}
	wantTrace, wantOut, _ := soloRun(t, cfg, Options{BeforeStep: before}, 6, false)
	if !strings.Contains(wantOut, "pong t-2:go") {
		t.Fatalf("one process's output has no pong:\n%s", wantOut)
	}

	tc := startCluster(t, config, 2)
	c := tc.conductor()
	for c.Step() < 6 {
		if s := c.Step() + 1; s == 2 || s == 5 {
			if err := c.Signal("all", "Ping", runtime.String("go")); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Run(1); err != nil {
			t.Fatal(err)
		}
	}
	tc.wantSolo("", wantTrace, wantOut, nil)
}

// agentsGame is a game whose agents are added and removed: the world's
// spawn reads what its tick counted (only the conductor's world is
// current), an action's cancel hook logs and sends a signal when its agent
// is removed, and handlers log what they hear.
func agentsGame(t *testing.T) string {
	t.Helper()
	return writeGame(t, map[string]string{
		"config.toml": `[run]
steps = 12
seed = 3
[scripts]
paths = ["ai"]
world = "ai/world.lua"
[[trees]]
name = "t"
file = "ai/t.xml"
[[trees]]
name = "u"
file = "ai/u.xml"
[[agents]]
tree = "t"
count = 4
[[agents]]
tree = "u"
count = 2
`,
		"ai/t.xml": `<behaviorTree><sequence id="s"><action id="walk" name="walk"/><action id="rest" name="walk"/></sequence></behaviorTree>`,
		"ai/u.xml": `<behaviorTree><action id="watch" name="walk"/></behaviorTree>`,
		"ai/world.lua": `local world = {}
local ticks = 0
function world.tick(game) ticks = ticks + 1 end
function world.spawn(ctx)
  ctx.agent.born = ticks
  ctx.memory.left = bt.random(2, 4) + ticks % 3
end
function world.save() return {ticks = ticks} end
function world.load(t) ticks = t.ticks end
return world`,
		"ai/t.lua": `local bt = require("bt")
bt.action("walk", {
  run = function(ctx)
    ctx.memory.left = (ctx.memory.left or 3) - 1
    if ctx.memory.left > 0 then return bt.RUNNING end
    ctx.memory.left = bt.random(2, 4)
    ctx:log("walked, born at " .. tostring(ctx.agent.born))
    return bt.SUCCESS
  end,
  cancel = function(ctx)
    ctx:log("cancelled")
    ctx:send("t-1", "Bye", ctx.id)
    ctx:send("all", "Gone", ctx.id)
  end,
  on = {
    Bye = function(ctx, params, data) ctx:log("bye " .. data) end,
    Gone = function(ctx, params, data) ctx:log("gone " .. data) end,
    Ping = function(ctx, params, data) ctx:log("ping " .. data) end,
  },
})`,
	})
}

// agentInputs are the agents added and removed, and signals, after steps.
var agentInputs = []struct {
	after    uint64
	op       string // "add", "remove", "signal"
	id, tree string
}{
	{2, "add", "t-9", "t"},
	{3, "signal", "t-3", "Ping"}, // replayed right after the load of step 3's checkpoint
	{4, "remove", "t-2", ""},
	{5, "signal", "all", "Ping"},
	{6, "add", "u-7", "u"},
	{7, "remove", "t-9", ""},
	{7, "add", "t-10", "t"},
	{9, "remove", "t-4", ""},
	{9, "signal", "t-10", "Ping"},
}

// changeDue applies the agentInputs that follow step s.
func changeDue(t *testing.T, s uint64, add func(id, tree string) error, remove func(id string) error, signal func(to, name string, data runtime.Value) error) {
	t.Helper()
	for _, in := range agentInputs {
		if in.after != s {
			continue
		}
		var err error
		switch in.op {
		case "add":
			err = add(in.id, in.tree)
		case "remove":
			err = remove(in.id)
		default:
			err = signal(in.id, in.tree, runtime.String("go"))
		}
		if err != nil {
			t.Fatalf("after step %d, %s %s: %v", s, in.op, in.id, err)
		}
	}
}

// singleWithAgents is agentsGame's run in one process with agentInputs.
func singleWithAgents(t *testing.T, config string, steps int) (string, string, []byte) {
	t.Helper()
	return soloWithInputs(t, config, steps, func(g *Game, after uint64) {
		changeDue(t, after, func(id, tree string) error { _, err := g.AddAgent(id, tree, nil); return err }, g.RemoveAgent, g.Signal)
	})
}

// runWithAgents runs c to step to with agentInputs between the steps.
func runWithAgents(t *testing.T, c *Conductor, to uint64) {
	t.Helper()
	runWithInputs(t, c, to, func(after uint64) {
		changeDue(t, after, func(id, tree string) error { return c.AddAgent(id, tree, nil) }, c.RemoveAgent, c.Signal)
	})
}

// TestConductor_agentsAddedAndRemoved: agents a Go program adds and removes
// between a cluster's steps (with the world's spawn, cancel hooks that
// log and send, signals to and from removed agents) give one process's
// trace, output and save, on 1, 2 and 3 shards and on 2 shards of 2
// workers.
func TestConductor_agentsAddedAndRemoved(t *testing.T) {
	const steps = 12
	config := agentsGame(t)
	wantTrace, wantOut, wantSave := singleWithAgents(t, config, steps)
	for _, want := range []string{"cancelled", "bye t-4", "gone t-4", "ping go", "walked, born at 7"} {
		if !strings.Contains(wantOut, want) {
			t.Fatalf("one process's output has no %q:\n%s", want, wantOut)
		}
	}
	for _, shards := range []int{1, 2, 3, -2} {
		workers := 1
		if shards < 0 {
			shards, workers = -shards, 2
		}
		tc := startClusterWorkers(t, config, shards, workers)
		c := tc.conductor()
		c.SetJournal(&cluster.MemJournal{})
		runWithAgents(t, c, steps)
		tc.wantSolo(fmt.Sprintf("%d shards of %d workers", shards, workers), wantTrace, wantOut, wantSave)
		tc.stop()
	}
}

// startClusterFromSaves is startCluster with every game opened with
// Options.AgentsFromSave: a cluster that goes back to a checkpoint holding
// other agents than its config.
func startClusterFromSaves(t *testing.T, config string, shards int) *testCluster {
	t.Helper()
	return startClusterFromSavesWorkers(t, config, shards, 1)
}

// startClusterFromSavesWorkers is startClusterFromSaves with workers on
// every shard.
func startClusterFromSavesWorkers(t *testing.T, config string, shards, workers int) *testCluster {
	t.Helper()
	return openCluster(t, clusterSetup{name: config, shards: shards, workers: workers, fromSaves: true})
}

// TestConductor_agentsReplayed: a cluster that goes back to a checkpoint
// holding agents added and removed (other agents than its config's) and
// replays the journal's inputs after it, agents added and removed among
// them, ends with one process's trace, output and save.
func TestConductor_agentsReplayed(t *testing.T) {
	const steps, ckpt, lost = 12, 3, 8 // 7 agents at the checkpoint, 6 in the config
	config := agentsGame(t)
	wantTrace, wantOut, wantSave := singleWithAgents(t, config, steps)
	j := &cluster.MemJournal{}

	a := startClusterFromSaves(t, config, 2)
	ca := a.conductor()
	ca.SetJournal(j)
	runWithAgents(t, ca, ckpt)
	cp, err := ca.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	traceAt, outAt := a.trace.Len(), a.out.Len()
	if err := j.Prune(ckpt); err != nil {
		t.Fatal(err)
	}
	runWithAgents(t, ca, lost)
	a.stop()

	for _, shards := range []int{3, 1} {
		b := startClusterFromSaves(t, config, shards)
		cb := b.conductor()
		if err := cb.Load(cp); err != nil {
			t.Fatal(err)
		}
		b.wroteAs(a, traceAt, outAt)
		ins, err := j.From(ckpt)
		if err != nil {
			t.Fatal(err)
		}
		if len(ins) != 6 { // after steps 3 to 7
			t.Fatalf("%d inputs journaled after the checkpoint, want 6", len(ins))
		}
		if err := cb.Replay(ins); err != nil {
			t.Fatal(err)
		}
		if err := cb.Run(lost - ckpt); err != nil {
			t.Fatal(err)
		}
		runWithAgents(t, cb, steps)
		b.wantSolo(fmt.Sprintf("%d shards", shards), wantTrace, wantOut, wantSave)
		b.stop()
	}
}

// heldOnly fails unless every shard of tc lists the conductor's agents, by
// place, and makes the runtime agents of its range only, the ranges
// following one another over every agent.
func heldOnly(t *testing.T, tc *testCluster, when string) {
	t.Helper()
	cg := tc.ch.g
	next := int32(0)
	for k, sh := range tc.shards {
		g := sh.g
		if len(g.agents) != len(cg.agents) {
			t.Fatalf("%s: shard %d lists %d agents, the conductor %d", when, k, len(g.agents), len(cg.agents))
		}
		if g.cl.lo != next || g.held.lo != g.cl.lo || g.held.hi != g.cl.hi {
			t.Fatalf("%s: shard %d holds %d..%d (made %d..%d), after %d", when, k, g.cl.lo, g.cl.hi, g.held.lo, g.held.hi, next)
		}
		next = g.cl.hi
		for i, ga := range g.agents {
			id := cg.agentID(cg.agents[i])
			if got := g.agentID(ga); got != id || ga.idx != int32(i) || g.byID[id] != ga || ga.tree != cg.agents[i].tree {
				t.Fatalf("%s: shard %d lists %q (place %d) at place %d, the conductor %q", when, k, got, ga.idx, i, id)
			}
			if held := g.cl.holds(int32(i)); held != (ga.a != nil) {
				t.Fatalf("%s: shard %d holds place %d: %v; has its runtime agent: %v", when, k, i, held, ga.a != nil)
			}
		}
		if len(g.byPtr) != int(g.cl.hi-g.cl.lo) {
			t.Fatalf("%s: shard %d has %d runtime agents for a range of %d", when, k, len(g.byPtr), g.cl.hi-g.cl.lo)
		}
		counted := 0
		for _, w := range g.workers {
			counted += w.agents
		}
		if g.workers != nil && (counted != int(g.cl.hi-g.cl.lo) || len(g.workerOf) != len(g.agents)) {
			t.Fatalf("%s: shard %d's workers count %d agents (%d places) for a range of %d", when, k, counted, len(g.workerOf), g.cl.hi-g.cl.lo)
		}
	}
	if int(next) != len(cg.agents) {
		t.Fatalf("%s: the shards hold %d of %d agents", when, next, len(cg.agents))
	}
}

// TestConductor_agentsOnTheirShardOnly: agents added and removed change
// every shard's list of agents as the conductor's, and only the shard
// whose range holds an agent makes it (or closes it); a load of a save
// holding other agents gives every shard the save's list and a range of
// it, each making only its own (shards of 1 and 2 workers).
func TestConductor_agentsOnTheirShardOnly(t *testing.T) {
	config := agentsGame(t)
	tc := startClusterFromSavesWorkers(t, config, 3, 2)
	c := tc.conductor()
	heldOnly(t, tc, "at the start")
	var cp []byte
	for c.Step() < 10 {
		changeDue(t, c.Step(), func(id, tree string) error { return c.AddAgent(id, tree, nil) }, c.RemoveAgent, c.Signal)
		heldOnly(t, tc, fmt.Sprintf("after step %d's inputs", c.Step()))
		if err := c.Run(1); err != nil {
			t.Fatal(err)
		}
		if c.Step() == 5 {
			var err error
			if cp, err = c.Checkpoint(); err != nil {
				t.Fatal(err)
			}
		}
	}
	tc.stop()
	for _, shards := range []int{2, 3, -2} {
		workers := 1
		if shards < 0 {
			shards, workers = -shards, 2
		}
		b := startClusterFromSavesWorkers(t, config, shards, workers)
		was := b.ch.g.agentList()
		if err := b.conductor().Load(cp); err != nil {
			t.Fatal(err)
		}
		if slices.Equal(b.ch.g.agentList(), was) {
			t.Fatalf("the checkpoint holds the config's agents: no list to send")
		}
		heldOnly(t, b, fmt.Sprintf("%d shards of %d workers, after the load", shards, workers))
		b.stop()
	}
}

// TestConductor_agentsAddedToAGameWithGates: agents added between the
// steps of a game with gates (the gates' holders by place on every shard)
// give one process's trace and output on 1, 2 and 3 shards: the last shard
// restores the new agent from the conductor's save with its gates by
// place as they are, and the new agent takes gates from the next step.
func TestConductor_agentsAddedToAGameWithGates(t *testing.T) {
	const steps = 40
	adds := map[uint64][2]string{10: {"late-1", "grunt"}, 25: {"late-2", "pair"}}
	cfg, err := LoadConfig(clusterConfig("gates"))
	if err != nil {
		t.Fatal(err)
	}
	before := func(g *Game, s StepInfo) error {
		if a, ok := adds[s.Step-1]; ok {
			_, err := g.AddAgent(a[0], a[1], nil)
			return err
		}
		return nil
	}
	wantTrace, wantOut, _ := soloRun(t, cfg, Options{BeforeStep: before}, steps, false)
	for _, id := range []string{"late-1", "late-2"} {
		if !strings.Contains(wantTrace, `"agent":"`+id+`"`) {
			t.Fatalf("one process's trace has nothing of %s", id)
		}
	}
	for _, shards := range []int{1, 2, 3} {
		tc := startCluster(t, "gates", shards)
		c := tc.conductor()
		for c.Step() < steps {
			if a, ok := adds[c.Step()]; ok {
				if err := c.AddAgent(a[0], a[1], nil); err != nil {
					t.Fatal(err)
				}
				heldOnly(t, tc, fmt.Sprintf("%d shards, after adding %s", shards, a[0]))
			}
			if err := c.Run(1); err != nil {
				t.Fatal(err)
			}
		}
		tc.wantSolo(fmt.Sprintf("%d shards", shards), wantTrace, wantOut, nil)
		tc.stop()
	}
}
