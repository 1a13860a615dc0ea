package game

import (
	"bytes"
	"strings"
	"testing"
)

// echoGame: t-1's action handles Poke by signalling itself Echo; Poke
// comes from the schedule (step 2) and from t-2 (step 3), which then
// broadcasts twice: the second is refused.
var echoGame = map[string]string{
	"config.toml": `[run]
steps = 3
[scripts]
paths = ["ai"]
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 2
[[signals]]
at = 0.2
signal = "Poke"
to = ["t-1"]
`,
	"ai/t.xml": `<behaviorTree>
  <signals><signal name="Poke"/><signal name="Echo"/><signal name="Hello"/></signals>
  <action id="listen" name="listen"/>
</behaviorTree>`,
	"ai/listen.lua": `local bt = require("bt")
bt.action("listen", {
  run = function(ctx)
    if ctx.id == "t-2" and ctx.step == 3 then
      ctx:send("t-1", "Poke")
      bt.broadcast("Hello", 1)
      bt.broadcast("Hello", 2)
    end
    return bt.RUNNING
  end,
  on = {Poke = function(ctx) ctx:signal("Echo") end},
})`,
}

// TestTrace_aHandlerSignallingItsAgentIsFromTheAgent: the signal a handler
// sends its own agent is traced from that agent, not from the sender of
// the signal being handled (docs/reference.md, "from").
func TestTrace_aHandlerSignallingItsAgentIsFromTheAgent(t *testing.T) {
	got := runTrace(t, writeGame(t, echoGame), 3)
	for _, want := range []string{
		`{"step":2,"time":0.2,"agent":"t-1","signal":"Poke","from":"schedule"}
{"step":2,"time":0.2,"agent":"t-1","signal":"Echo","from":"t-1"}
`,
		`{"step":3,"time":0.3,"agent":"t-1","signal":"Poke","from":"t-2"}
{"step":3,"time":0.3,"agent":"t-1","signal":"Echo","from":"t-1"}
`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("trace:\n%s\nwant in it:\n%s", got, want)
		}
	}
}

// TestTrace_aRefusedBroadcastReachesNoOne: the second broadcast of a step
// is an error of the sender's step and reaches no agent, the sender
// included.
func TestTrace_aRefusedBroadcastReachesNoOne(t *testing.T) {
	got := runTrace(t, writeGame(t, echoGame), 3)
	if n := strings.Count(got, `"signal":"Hello"`); n != 2 || strings.Contains(got, `"signal":"Hello","from":"t-2","data":2`) {
		t.Errorf("%d Hello lines, want the first broadcast's 2:\n%s", n, got)
	}
	if !strings.Contains(got, `sends a second signal to all agents in one step (signal \"Hello\")`) {
		t.Errorf("the second broadcast is not an error:\n%s", got)
	}
}

// TestExplain_recordedForATraceOnly: -explain without a trace has nothing
// to write the reasons to: the runtime does not record them (a recording
// step runs in the runtime's loop, without its fast path).
func TestExplain_recordedForATraceOnly(t *testing.T) {
	cfg, err := LoadConfig(writeGame(t, echoGame))
	if err != nil {
		t.Fatal(err)
	}
	for _, trace := range []string{"", "-"} {
		var out bytes.Buffer
		g, err := Open(cfg, Options{Trace: trace, Explain: true, Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatal(err)
		}
		if err := g.OpenTrace(); err != nil {
			t.Fatal(err)
		}
		if g.env.Explain != (trace != "") {
			t.Errorf("trace %q: the runtime records why: %v", trace, g.env.Explain)
		}
		g.Close()
	}
}
