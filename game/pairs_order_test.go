package game

import (
	"fmt"
	"strings"
	"testing"
)

// churnGame: an action that adds, removes and adds back keys of
// ctx.memory and ctx.agent (string, number and boolean keys, nested
// tables) with the agent's generator, and logs the order pairs gives.
var churnGame = map[string]string{
	"config.toml": `[run]
steps = 80
dt = 0.5
seed = 5
[scripts]
paths = ["ai"]
[[trees]]
name = "c"
file = "ai/c.xml"
[[agents]]
tree = "c"
count = 3
`,
	"ai/c.xml": `<behaviorTree>
  <variables><variable name="Early"/></variables>
  <sequence id="root">
    <action id=".churn" name="churn"/>
  </sequence>
</behaviorTree>`,
	"ai/churn.lua": `local bt = require("bt")
local names = {"a", "b", "c", "d", "e", "f", "g", "h"}
local function order(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = tostring(k) end
  return table.concat(out, ",")
end
local function churn(t)
  for _ = 1, 3 do
    local u = bt.random()
    local k = names[bt.random(1, #names)]
    if u < 0.4 then t[k] = nil
    elseif u < 0.8 then t[k] = (t[k] or 0) + 1
    elseif u < 0.9 then t[bt.random(1, 6)] = (u < 0.85) and true or nil
    else t[u < 0.95] = {k} end
  end
end
bt.action("churn", function(ctx)
  churn(ctx.memory)
  churn(ctx.agent)
  ctx:log("memory " .. order(ctx.memory) .. " agent " .. order(ctx.agent))
  ctx:setVar("Early", tostring(next(ctx.memory)) < "d") -- the trace shows the order too
  return bt.RUNNING
end)`,
}

// logLines are the game's log lines of the churn action, from step from on.
func churnLog(out string, from float64) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, " log root.churn: ") {
			var t float64
			if _, err := fmt.Sscanf(l, "t=%g", &t); err == nil && t >= from {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// TestPairsOrder_sameAfterSaveRestoreAndTimeTravel: the order in which
// pairs walks ctx.memory and ctx.agent (whose keys the game adds, removes
// and adds back) is the same in a run that was saved at step k and
// continued from that save in a new game, in one restored in place to an
// earlier save of its own (what the live view's time travel does), and in
// an uninterrupted run: a restored table is as the saved one was, down to
// the places of the keys removed from it.
func TestPairsOrder_sameAfterSaveRestoreAndTimeTravel(t *testing.T) {
	config := writeGame(t, churnGame)
	const steps = 80
	straight := openSession(t, config, 0)
	straight.run(steps)
	for _, k := range []int{1, 7, 23, 50} {
		want := churnLog(straight.people.String(), float64(k+1)*0.5)
		// Saved at k, continued in a new game.
		s := openSession(t, config, 0)
		s.run(k)
		data, err := s.g.SaveState()
		if err != nil {
			t.Fatal(err)
		}
		r := openSession(t, config, 0)
		if err := r.g.RestoreState(data); err != nil {
			t.Fatal(err)
		}
		r.run(steps - k)
		if got := churnLog(r.people.String(), 0); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("k=%d, continued from a save:\n%s", k, firstDiff(strings.Join(got, "\n"), strings.Join(want, "\n")))
		}
		// Run on to the end, back to k in place, and on again.
		s.run(steps - k)
		if err := s.g.RestoreState(data); err != nil {
			t.Fatal(err)
		}
		s.people.Reset()
		s.run(steps - k)
		if got := churnLog(s.people.String(), 0); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("k=%d, restored in place:\n%s", k, firstDiff(strings.Join(got, "\n"), strings.Join(want, "\n")))
		}
	}
}
