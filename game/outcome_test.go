package game

import (
	"io"
	"strconv"
	"testing"
)

// outcomeGame's agent fails at step 1, succeeds at steps 2 and 3, runs at 4
// and 5 (the same action), errors at 6 and succeeds at 7: every change of
// outcome, and the same outcome twice.
var outcomeGame = map[string]string{
	"config.toml": `[scripts]
paths = ["ai"]
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 3
`,
	"ai/t.xml": `<behaviorTree>
  <sequence id="root">
    <action id=".flip" name="flip"/>
  </sequence>
</behaviorTree>`,
	"ai/flip.lua": `local bt = require("bt")
local by = {[1] = bt.FAILURE, [2] = bt.SUCCESS, [3] = bt.SUCCESS, [4] = bt.RUNNING, [5] = bt.RUNNING, [7] = bt.SUCCESS}
bt.action("flip", function(ctx)
  if ctx.step == 6 then error("flip broke") end
  return by[ctx.step]
end)`,
}

var outcomeWant = []string{"failure", "success", "success", "running", "running", "error", "success"}

// TestOutcome_afterEveryStep: Outcome is the agent's last step's, also when
// the game reports only the steps that write something (no trace, no live
// view): a success after a failure, with nothing to write, must still read
// success.
func TestOutcome_afterEveryStep(t *testing.T) {
	for _, workers := range []int{1, 2} {
		cfg, err := LoadConfig(writeGame(t, outcomeGame))
		if err != nil {
			t.Fatal(err)
		}
		g, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard, Workers: &workers})
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Start(); err != nil {
			t.Fatal(err)
		}
		for s, want := range outcomeWant {
			if err := g.Run(1); err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"t-1", "t-3"} {
				if o, ok := g.Outcome(id); !ok || o.Status != want || (o.Err != nil) != (want == "error") {
					t.Errorf("workers %d, step %d: %s: %+v %v, want %s", workers, s+1, id, o, ok, want)
				}
			}
		}
		g.Close()
	}
}

// TestOutcome_onAConductor: a conductor (no agents of its own) tells each
// agent's last outcome from its shards' reports, which a shard sends for a
// step that writes nothing when its status changed.
func TestOutcome_onAConductor(t *testing.T) {
	config := writeGame(t, outcomeGame)
	for _, shards := range []int{1, 2} {
		for _, noTrace := range []bool{true, false} {
			tc := openCluster(t, clusterSetup{name: config, shards: shards, workers: 2, noTrace: noTrace, copies: shards == 2 && !noTrace})
			for s, want := range outcomeWant {
				tc.steps(s+1, s+1)
				for _, id := range []string{"t-1", "t-3"} {
					if o, ok := tc.ch.g.Outcome(id); !ok || o.Status != want || (o.Err != nil) != (want == "error") {
						t.Errorf("%d shards, no trace %v, step %d: %s: %+v %v, want %s", shards, noTrace, s+1, id, o, ok, want)
					}
				}
			}
			tc.stop()
		}
	}
}

// movingOutcomeGame's agents t-N end step s with cycle[(s+N) % 5]: the
// same status twice, then others, each agent at its own phase.
var movingOutcomeGame = map[string]string{
	"config.toml": outcomeGame["config.toml"],
	"ai/t.xml":    outcomeGame["ai/t.xml"],
	"ai/flip.lua": `local bt = require("bt")
local cycle = {[0] = bt.SUCCESS, bt.SUCCESS, bt.RUNNING, bt.FAILURE, bt.RUNNING}
bt.action("flip", function(ctx)
  local n = tonumber(string.match(ctx.id, "%d+$"))
  return cycle[(ctx.step + n) % 5]
end)`,
}

// TestOutcome_onAConductorWhoseAgentsMove: agents moved between shards
// every step, both ways: a shard that held an agent before must not take
// the status it had then for the agent's last report (an agent that
// succeeds there again after a failure elsewhere went unreported).
func TestOutcome_onAConductorWhoseAgentsMove(t *testing.T) {
	config := writeGame(t, movingOutcomeGame)
	cycle := []string{"success", "success", "running", "failure", "running"}
	for _, shards := range []int{2, 3} {
		tc := openCluster(t, clusterSetup{name: config, shards: shards, agents: 12, every: 1, noTrace: true})
		for s := 1; s <= 30; s++ {
			tc.steps(s, s)
			for n := 1; n <= 12; n++ {
				id := "t-" + strconv.Itoa(n)
				if o, ok := tc.ch.g.Outcome(id); !ok || o.Status != cycle[(s+n)%5] {
					t.Errorf("%d shards, step %d: %s: %+v %v, want %s", shards, s, id, o, ok, cycle[(s+n)%5])
				}
			}
		}
		if tc.moves[0] == 0 || tc.moves[1] == 0 {
			t.Errorf("%d shards: moves %v, not both ways", shards, tc.moves)
		}
		tc.stop()
	}
}
