package tests

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHandlers_laneCancelSignallingTheAgent: a lane's action whose cancel
// signals its own agent, while another lane's action has a handler for
// that signal. The lanes are cancelled when an error resets the agent
// (step 3) and when the run ends (the agents are removed): the run ends
// with its summary, the handler is never called in the middle of a
// cancel (it used to panic, index -1).
func TestHandlers_laneCancelSignallingTheAgent(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `[run]
dt = 0.1
steps = 5
[scripts]
paths = ["ai"]
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 2
`,
		"ai/t.xml": `<behaviorTree>
  <signals><signal name="Hurt"/></signals>
  <parallel id="both" success="all">
    <action id="yell" name="yell"/>
    <action id="watch" name="watch"/>
    <action id="boom" name="boom"/>
  </parallel>
</behaviorTree>`,
		"ai/t.lua": `local bt = require("bt")
bt.action("yell", {
  run = function(ctx) return bt.RUNNING end,
  cancel = function(ctx) ctx:signal("Hurt", ctx.rule) end,
})
bt.action("watch", {
  run = function(ctx) return bt.RUNNING end,
  on = {Hurt = function(ctx, params, data) ctx:log("hurt by " .. tostring(data)) end},
})
bt.action("boom", function(ctx)
  if ctx.step == 3 then error("boom") end
  return bt.RUNNING
end)`,
	})
	trace := filepath.Join(dir, "trace.jsonl")
	r := runWithin(t, hangGuard, dir, "run", "-config", "config.toml", "-trace", trace)
	if r.code != 0 || !strings.Contains(r.stdout, "btrun: steps 1..5") {
		t.Fatalf("exit %d:\n%.2000s\n%.2000s", r.code, r.stdout, r.stderr)
	}
}
