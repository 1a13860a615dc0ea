package game

import (
	"fmt"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// pageGame is a game whose agents answer signals with signals: a Poke's
// handler sends an Echo to the next agent (whose handler logs who echoed
// whom), and a cancelled work sends a Cancelled: the order in which inputs
// between two steps are applied shows in the next step's lines.
func pageGame(t *testing.T) string {
	return writeGame(t, map[string]string{
		"config.toml": `[run]
steps = 40
dt = 0.5
seed = 3
[scripts]
paths = ["ai"]
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 4
`,
		"ai/t.xml": `<behaviorTree>
  <variables><variable name="Flag" default="false"/></variables>
  <sequence id="root">
    <action id=".work" name="work"/>
    <action id=".rest" name="rest"/>
  </sequence>
</behaviorTree>`,
		"ai/t.lua": `local bt = require("bt")
local function next(ctx)
  local n = tonumber(string.sub(ctx.id, 3))
  return "t-" .. (n % 4 + 1)
end
local on = {
  Poke = function(ctx, params, data)
    ctx:log("poked: " .. tostring(data))
    ctx:send(next(ctx), "Echo", {from = ctx.id, by = tostring(data)})
  end,
  Echo = function(ctx, params, data)
    ctx:log("echo from " .. data.from .. " of " .. data.by)
  end,
}
bt.action("work", {
  start = function(ctx) ctx.state.left = bt.random(2, 6) end,
  run = function(ctx)
    ctx.state.left = ctx.state.left - 1
    return ctx.state.left > 0 and bt.RUNNING or bt.SUCCESS
  end,
  cancel = function(ctx)
    ctx:send(next(ctx), "Echo", {from = ctx.id, by = "a cancelled " .. ctx.rule})
  end,
  on = on,
})
bt.action("rest", {
  run = function(ctx)
    if ctx:var("Flag") then ctx:log("flagged") end
    return bt.RUNNING
  end,
  cancel = function(ctx)
    ctx:send(next(ctx), "Echo", {from = ctx.id, by = "a cancelled " .. ctx.rule})
  end,
  on = on,
})
`,
	})
}

// pageInput is an input between two steps: a Go program's signal ("go"),
// or the live view's signal, jump or variable edit.
type pageInput struct {
	after    uint64
	kind     string // "go", "signal", "jump", "var"
	to, name string
	data     runtime.Value
}

// pageInputs mix a Go program's signals and the page's commands between
// the same two steps, in both orders.
var pageInputs = []pageInput{
	{2, "go", "t-1", "Poke", runtime.String("go first")},
	{2, "signal", "t-2", "Poke", runtime.String("page second")},
	{5, "signal", "t-3", "Poke", runtime.String("page first")},
	{5, "go", "t-4", "Poke", runtime.String("go second")},
	{5, "jump", "t-1", "root.work", runtime.Value{}},
	{9, "var", "t-2", "Flag", runtime.Value{}},
	{9, "go", "all", "Poke", runtime.Number(9)},
	{14, "jump", "t-3", "root.work", runtime.Value{}},
	{14, "signal", "t-4", "Poke", runtime.String("fourteen")},
	{21, "go", "t-2", "Poke", runtime.String("after the checkpoint")},
	{21, "jump", "t-2", "root.work", runtime.Value{}},
	{21, "signal", "t-1", "Poke", runtime.String("page after the checkpoint")},
	{26, "var", "t-4", "Flag", runtime.Value{}},
	{26, "signal", "t-4", "Echo", runtime.Table("from", "the page", "by", "hand")},
	{26, "go", "t-4", "Poke", runtime.Number(26)},
	{33, "jump", "t-4", "root.rest", runtime.Value{}},
	{33, "signal", "t-2", "Poke", runtime.String("late")},
}

// sendPage sends the inputs that follow step s: go through send, the
// page's through h.
func sendPage(t *testing.T, s uint64, send func(to, name string, data runtime.Value) error, h DebugHost) {
	t.Helper()
	for _, in := range pageInputs {
		if in.after != s {
			continue
		}
		var err error
		switch in.kind {
		case "go":
			err = send(in.to, in.name, in.data)
		case "signal":
			err = h.SendSignal(in.to, in.name, in.data)
		case "jump":
			err = h.JumpAgent(in.to, in.name)
		case "var":
			err = h.SetAgentVar(in.to, in.name, runtime.VarValue{Type: runtime.VarBoolean, Bool: true})
		}
		if err != nil {
			t.Fatalf("after step %d, %s %s to %s: %v", s, in.kind, in.name, in.to, err)
		}
	}
}

// soloWithPage is pageGame's run in one process with pageInputs sent
// between its steps.
func soloWithPage(t *testing.T, config string, steps int) (string, string, []byte) {
	t.Helper()
	return soloWithInputs(t, config, steps, func(g *Game, after uint64) { sendPage(t, after, g.Signal, g.host()) })
}

// hostKeeper is a debugger that only keeps the host it is given: the
// test sends the page's commands through it.
type hostKeeper struct{ h DebugHost }

func (k *hostKeeper) Attached(h DebugHost)                                           { k.h = h }
func (*hostKeeper) Between(uint64) bool                                              { return true }
func (*hostKeeper) Stepped(*runtime.Agent, []runtime.RuleRun, runtime.Status, error) {}
func (*hostKeeper) Changed(*runtime.Agent, Change)                                   {}
func (*hostKeeper) Logged(*runtime.Agent, string, string)                            {}
func (*hostKeeper) Reloaded()                                                        {}

// attachPage attaches a debugger to the test cluster's conductor c, as
// Conduct readies it for the live view, and returns its host.
func attachPage(c *Conductor) DebugHost {
	c.g.cl.debug = &clusterDebug{c: c}
	k := &hostKeeper{}
	c.g.AttachDebugger(k)
	return k.h
}

// runWithPage runs c to step to, sending pageInputs between the steps
// (the page's through h).
func runWithPage(t *testing.T, c *Conductor, h DebugHost, to uint64) {
	t.Helper()
	runWithInputs(t, c, to, func(after uint64) { sendPage(t, after, c.Signal, h) })
}

// TestConductor_pageInputsJournaled: the live view's signals, jumps and
// variable edits on a cluster's conductor are journaled with a Go
// program's signals, and applied in the order they came between the same
// two steps, as one process applies the same calls: the trace, the output
// and the save are one process's, on 1, 2 and 3 shards.
func TestConductor_pageInputsJournaled(t *testing.T) {
	const steps = 40
	config := pageGame(t)
	wantTrace, wantOut, wantSave := soloWithPage(t, config, steps)
	for _, want := range []string{"echo from t-1 of go first", "echo from t-2 of page second", "of a cancelled root.rest", "flagged", `"from":"debugger"`} {
		if !strings.Contains(wantTrace+wantOut, want) {
			t.Fatalf("one process's run has no %q: the test shows nothing", want)
		}
	}
	for _, shards := range []int{1, 2, 3} {
		tc := openCluster(t, clusterSetup{name: config, shards: shards, copies: true}) // a live view draws copies
		c := tc.conductor()
		j := &cluster.MemJournal{}
		c.SetJournal(j)
		runWithPage(t, c, attachPage(c), steps)
		tc.wantSolo(fmt.Sprintf("%d shards", shards), wantTrace, wantOut, wantSave)
		ins, _ := j.From(0)
		if len(ins) != len(pageInputs) {
			t.Errorf("%d shards: %d inputs journaled, want %d", shards, len(ins), len(pageInputs))
		}
		for i, in := range ins {
			if want := pageKind(pageInputs[i].kind); in.Kind != want || in.To != pageInputs[i].to || in.Step != pageInputs[i].after {
				t.Errorf("%d shards: journaled input %d is %d to %s after step %d, want %d to %s after step %d", shards, i, in.Kind, in.To, in.Step, want, pageInputs[i].to, pageInputs[i].after)
			}
		}
		tc.stop()
	}
}

func pageKind(kind string) cluster.InputKind {
	return map[string]cluster.InputKind{"go": cluster.InputSignal, "signal": cluster.InputDebugSignal,
		"jump": cluster.InputDebugJump, "var": cluster.InputDebugSetVar}[kind]
}

// TestConductor_pageInputsReplayed: a cluster with a live view that goes
// back to a checkpoint (a lost shard, a resumed run) applies the page's
// journaled commands again after their steps, with the Go program's
// signals, and ends with one process's trace, output and save: with the
// live view attached during the replay, attached once the replay reached
// the step the run had (as btrun run -debug recovers), or not at all (a
// run resumed without -debug).
func TestConductor_pageInputsReplayed(t *testing.T) {
	const steps, ckpt = 40, 16
	config := pageGame(t)
	wantTrace, wantOut, wantSave := soloWithPage(t, config, steps)
	for _, tt := range []struct {
		name     string
		lost     uint64
		attachAt uint64 // 0: no live view after the loss
		replayed int    // inputs journaled after the checkpoint, before the loss
	}{
		{"the page during the replay", 30, ckpt, 6},
		{"the page after the replay", 30, 30, 6},
		{"no page", 36, 0, 8},
	} {
		j := &cluster.MemJournal{}
		a := openCluster(t, clusterSetup{name: config, shards: 2, copies: true})
		ca := a.conductor()
		ca.SetJournal(j)
		ha := attachPage(ca)
		runWithPage(t, ca, ha, ckpt)
		cp, err := ca.Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		traceAt, outAt := a.trace.Len(), a.out.Len()
		if err := j.Prune(ckpt); err != nil {
			t.Fatal(err)
		}
		runWithPage(t, ca, ha, tt.lost) // then a shard is lost
		a.stop()

		// Without a page after the loss, a conductor without copies (a run
		// resumed without -debug) applies the page's inputs from the journal.
		b := openCluster(t, clusterSetup{name: config, shards: 3, copies: tt.attachAt != 0})
		b.load(cp)
		b.wroteAs(a, traceAt, outAt)
		cb := b.conductor()
		cb.SetJournal(j)
		ins, err := j.From(ckpt)
		if err != nil {
			t.Fatal(err)
		}
		if len(ins) != tt.replayed {
			t.Fatalf("%s: %d inputs journaled after the checkpoint, want %d", tt.name, len(ins), tt.replayed)
		}
		if err := cb.Replay(ins); err != nil {
			t.Fatal(err)
		}
		var hb DebugHost
		for cb.Step() < tt.lost { // the replay: the inputs come from the journal
			if cb.Step() == tt.attachAt {
				hb = attachPage(cb)
			}
			if err := cb.Run(1); err != nil {
				t.Fatal(err)
			}
		}
		if tt.attachAt == tt.lost {
			hb = attachPage(cb)
		}
		runWithPage(t, cb, hb, steps)
		b.wantSolo(tt.name, wantTrace, wantOut, wantSave)
		b.stop()
	}
}
