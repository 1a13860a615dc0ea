package game

import (
	"bytes"
	"errors"
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
	cfg, err := LoadConfig(clusterConfig("signals"))
	if err != nil {
		t.Fatal(err)
	}
	var trace, out bytes.Buffer
	before := func(g *Game, s StepInfo) error {
		sendDue(t, s.Step-1, g.Signal)
		return nil
	}
	g, err := Open(cfg, Options{TraceTo: &trace, Stdout: &out, Stderr: &out, BeforeStep: before})
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
	if err := g.Run(steps); err != nil {
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

// conductor is the test cluster's game.Conductor.
func (tc *testCluster) conductor() *Conductor {
	return &Conductor{g: tc.ch.g, h: tc.ch, c: tc.c}
}

// runWithSignals runs c from its step to step to, sending goSignals (those
// after step from on) between the steps.
func runWithSignals(t *testing.T, c *Conductor, to uint64) {
	t.Helper()
	for c.Step() < to {
		sendDue(t, c.Step(), c.Signal)
		if err := c.Run(1); err != nil {
			t.Fatal(err)
		}
	}
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
		if save := tc.save(); !bytes.Equal(save, wantSave) {
			t.Errorf("%d shards: the save differs from one process's", shards)
		}
		trace, out := tc.finish()
		if trace != wantTrace {
			t.Errorf("%d shards: trace differs:\n%s", shards, lineDiff(trace, wantTrace))
		}
		if out != wantOut {
			t.Errorf("%d shards: output differs:\n%s", shards, lineDiff(out, wantOut))
		}
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
	b.trace.Reset()
	b.out.Reset()
	b.trace.Write(a.trace.Bytes()[:traceAt])
	b.out.Write(a.out.Bytes()[:outAt])
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
	if save := b.save(); !bytes.Equal(save, wantSave) {
		t.Errorf("the save differs from one process's")
	}
	trace, out := b.finish()
	if trace != wantTrace {
		t.Errorf("trace differs:\n%s", lineDiff(trace, wantTrace))
	}
	if out != wantOut {
		t.Errorf("output differs:\n%s", lineDiff(out, wantOut))
	}
}

// TestConductor_signalRefused: a signal a receiver cannot hold (its
// stimuli full) is refused as one process refuses it, with the same
// error, and nothing is delivered: the runs go on alike. A signal to
// nobody is not journaled.
func TestConductor_signalRefused(t *testing.T) {
	config := writeGame(t, stimGame(1, `stimulus_memory = "64KB"`))
	flood := runtime.String(strings.Repeat("f", 20000))
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var wantTrace, wantOut bytes.Buffer
	g, err := Open(cfg, Options{TraceTo: &wantTrace, Stdout: &wantOut, Stderr: &wantOut})
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
	var refused *InputRefusedError
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
	trace, out := tc.finish()
	if trace != wantTrace.String() {
		t.Errorf("trace differs:\n%s", lineDiff(trace, wantTrace.String()))
	}
	if out != wantOut.String() {
		t.Errorf("output differs:\n%s", lineDiff(out, wantOut.String()))
	}
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
	var wantTrace, wantOut bytes.Buffer
	before := func(g *Game, s StepInfo) error {
		if s.Step == 2 || s.Step == 5 {
			return g.Signal("all", "Ping", runtime.String("go"))
		}
		return nil
	}
	g, err := Open(cfg, Options{TraceTo: &wantTrace, Stdout: &wantOut, Stderr: &wantOut, BeforeStep: before})
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
	if err := g.Run(6); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(wantOut.String(), "pong t-2:go") {
		t.Fatalf("one process's output has no pong:\n%s", wantOut.String())
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
	trace, out := tc.finish()
	if trace != wantTrace.String() {
		t.Errorf("trace differs:\n%s", lineDiff(trace, wantTrace.String()))
	}
	if out != wantOut.String() {
		t.Errorf("output differs:\n%s", lineDiff(out, wantOut.String()))
	}
}
