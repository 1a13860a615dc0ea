package game

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzGameFiles is the game the cluster's fuzzers run: the gates
// fixture's grunts and pairs (gates taken, released, waited for and
// cooled down: requests and answers), whose "hold" action answers a Poke
// with an Echo to grunt-1 and sends one when it is cancelled (a jump, a
// load or a restore cancels it: the signals a load carries into the next
// step), a declared variable for the live view's edits, and rule ids for
// its jumps.
var fuzzGameFiles = map[string]string{
	"config.toml": `[run]
steps = 40
dt = 0.25
seed = 11
[scripts]
paths = ["ai"]
[[trees]]
name = "grunt"
file = "ai/grunt.xml"
[[trees]]
name = "pair"
file = "ai/pair.xml"
[[agents]]
tree = "grunt"
count = 4
[[agents]]
tree = "pair"
count = 3
[[signals]]
at = 0.5
signal = "Alarm"
to = ["grunt-2", "pair-1"]
[[signals]]
at = 1.25
signal = "AllClear"
to = ["all"]
`,
	"ai/grunt.xml": `<behaviorTree>
  <gates>
    <gate name="grenade" users="1" cooldown="0.5"/>
    <gate name="flank" users="2"/>
  </gates>
  <variables><variable name="Alarm"/></variables>
  <signals>
    <signal name="Alarm" variable="Alarm" value="true"/>
    <signal name="AllClear" variable="Alarm" value="false"/>
  </signals>
  <choice id="root">
    <action id="duck" name="duck" abort="lower"><condition>Alarm</condition></action>
    <sequence id="throw">
      <condition>wantsToThrow</condition>
      <condition>grenade.open</condition>
      <action id=".aim" name="aim" gate="grenade" timeout="1.5"/>
    </sequence>
    <sequence id="flank">
      <condition>flank.open</condition>
      <action id=".run" name="sprint" gate="flank"/>
    </sequence>
    <action id="hold" name="hold"/>
  </choice>
</behaviorTree>`,
	"ai/pair.xml": `<behaviorTree>
  <gates>
    <gate name="meet" users="2"/>
    <gate name="grenade" users="1" cooldown="0.5"/>
  </gates>
  <variables><variable name="Alarm"/></variables>
  <signals>
    <signal name="Alarm" variable="Alarm" value="true"/>
    <signal name="AllClear" variable="Alarm" value="false"/>
  </signals>
  <choice id="root">
    <sequence id="meet" gate="meet" abort="self">
      <condition>!Alarm</condition>
      <action id=".wait" name="bt.gate.wait" timeout="1"><parameter name="gate.name">meet</parameter></action>
      <action id=".hand" name="handOver"/>
    </sequence>
    <sequence id="lob">
      <condition>wantsToThrow</condition>
      <action id=".aim" name="aim" gate="grenade"/>
    </sequence>
    <action id="wander" name="hold"/>
  </choice>
</behaviorTree>`,
	"ai/fuzz.lua": `local bt = require("bt")
bt.condition("wantsToThrow", function(ctx) return bt.random() < 0.3 end)
bt.action("aim", {
  start = function(ctx) ctx.state.left = bt.random(1, 4) end,
  run = function(ctx)
    ctx.state.left = ctx.state.left - 1
    if ctx.state.left > 0 then return bt.RUNNING end
    ctx.memory.thrown = (ctx.memory.thrown or 0) + 1
    return bt.SUCCESS
  end,
})
bt.action("sprint", {
  start = function(ctx) ctx.state.left = bt.random(2, 4) end,
  run = function(ctx)
    ctx.state.left = ctx.state.left - 1
    return ctx.state.left > 0 and bt.RUNNING or bt.SUCCESS
  end,
})
bt.action("hold", {
  run = function(ctx) return bt.random() < 0.7 and bt.RUNNING or bt.SUCCESS end,
  cancel = function(ctx) ctx:send("grunt-1", "Echo", {from = ctx.id, by = "a cancel"}) end,
  on = {
    Poke = function(ctx, params, data)
      ctx:log("poked: " .. tostring(data))
      ctx:send("grunt-1", "Echo", {from = ctx.id, by = tostring(data)})
    end,
    Echo = function(ctx, params, data) ctx:log("echo from " .. data.from .. " of " .. data.by) end,
  },
})
bt.action("duck", function(ctx) return ctx:var("Alarm") and bt.RUNNING or bt.SUCCESS end)
bt.action("handOver", function(ctx)
  local slot = ctx:gateSlot("meet")
  ctx:log("hand-over as " .. (slot == 1 and "giver" or "taker"))
  return bt.SUCCESS
end)
`,
}

// writeFuzzGame writes fuzzGameFiles into a folder of tb's: its config.
func writeFuzzGame(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, src := range fuzzGameFiles {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return filepath.Join(dir, "config.toml")
}
