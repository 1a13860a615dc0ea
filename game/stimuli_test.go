package game

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// stimGame: each agent sends itself a new signal name with 20,000 bytes of
// data at every step, and t-1 sends t-2 one more; each agent may hold
// stimulus_memory = 64KB, so three of them fit and the fourth does not.
func stimGame(workers int, run string) map[string]string {
	return map[string]string{
		"config.toml": fmt.Sprintf(`[run]
steps = 6
workers = %d
%s
[scripts]
paths = ["ai"]
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 4
`, workers, run),
		"ai/t.xml": `<behaviorTree><action id="hoard" name="hoard"/></behaviorTree>`,
		"ai/t.lua": `local bt = require("bt")
bt.action("hoard", function(ctx)
  if ctx.id == "t-1" and ctx.step == 1 then ctx:send("t-2", "Gift", string.rep("g", 20000)) end
  ctx:signal("S" .. ctx.step, string.rep("x", 20000))
  return bt.RUNNING
end)`,
	}
}

// TestStimuli_boundIsAnErrorAtTheSendersLine: a signal an agent sends
// itself that would take its stimuli past run.stimulus_memory is an error
// at the script's line, nothing of it is delivered, and the trace is the
// same for any number of workers. A signal from another agent that the
// receiver cannot hold is the receiver's error, naming the sender.
func TestStimuli_boundIsAnErrorAtTheSendersLine(t *testing.T) {
	var traces []string
	for _, n := range []int{1, 2, 3} {
		traces = append(traces, runTrace(t, writeGame(t, stimGame(n, `stimulus_memory = "64KB"`)), 6))
	}
	if traces[1] != traces[0] || traces[2] != traces[0] {
		t.Fatalf("the trace depends on the workers:\n1: %s\n2: %s\n3: %s", errorLines(traces[0]), errorLines(traces[1]), errorLines(traces[2]))
	}
	tr := traces[0]
	// t-3 holds S1..S3 (3 × 20,083 bytes); S4 does not fit.
	refused := `{"step":4,"time":0.4,"agent":"t-3","runs":[],"result":"error","cursor":"hoard","error":"ai/t.xml:1:15: agent t-3: rule hoard: action \"hoard\": ai/t.lua:4: ctx:signal(\"S4\"): agent t-3: cannot hold signal \"S4\": its stimulus takes 20082 bytes, and with the 60246 the agent's other stimuli take that is more than the 65536 it may hold; forget`
	if !strings.Contains(tr, refused) {
		t.Errorf("trace has no refusal of S4 at the sender's line:\n%s\nwant %s", errorLines(tr), refused)
	}
	if strings.Contains(tr, `"agent":"t-3","signal":"S4"`) {
		t.Error("the refused S4 was delivered")
	}
	// t-2 took Gift from t-1 at step 1: its S3 is refused.
	if !strings.Contains(tr, `"agent":"t-2","signal":"Gift","from":"t-1"`) || !strings.Contains(tr, `"agent":"t-2","runs":[],"result":"error","cursor":"hoard","error":"ai/t.xml:1:15: agent t-2: rule hoard: action \"hoard\": ai/t.lua:4: ctx:signal(\"S3\")`) {
		t.Errorf("Gift not delivered, or S3 not refused:\n%s", errorLines(tr))
	}
}

// TestStimuli_deliveredSignalRefusedIsTheReceiversError: an agent whose
// stimuli are full refuses a signal another agent sent it: the receiver's
// error, naming the signal and its sender; it is reset and on_failure
// applies; nothing is delivered.
func TestStimuli_deliveredSignalRefusedIsTheReceiversError(t *testing.T) {
	files := stimGame(1, `stimulus_memory = "64KB"`)
	files["ai/t.lua"] = `local bt = require("bt")
bt.action("hoard", function(ctx)
  if ctx.id == "t-1" and ctx.step == 3 then ctx:send("t-2", "Gift", string.rep("g", 20000)) end
  if ctx.id == "t-2" and ctx.step <= 2 then ctx:signal("S" .. ctx.step, string.rep("x", 25000)) end
  return bt.RUNNING
end)`
	g, trace, people := openTraced(t, files)
	if err := g.Run(4); err != nil {
		t.Fatal(err)
	}
	tr := trace.String()
	refusal := `{"step":3,"time":0.3,"agent":"t-2","handler":"","error":"game: signal \"Gift\" from t-1 refused: agent t-2: cannot hold signal \"Gift\": its stimulus takes 20084 bytes, and with the 50164`
	if !strings.Contains(tr, refusal) || strings.Contains(tr, `"signal":"Gift"`) {
		t.Errorf("trace:\n%s\nwant no signal line and %s", errorLines(tr), refusal)
	}
	if g.byID["t-2"].errors != 1 || g.Agent("t-2").Held("Gift") {
		t.Errorf("t-2: %d errors, Gift held %v", g.byID["t-2"].errors, g.Agent("t-2").Held("Gift"))
	}
	if !strings.Contains(people.String(), "t-2 error (restarts): game: signal \"Gift\" from t-1 refused") {
		t.Errorf("output:\n%s", people.String())
	}
}

// TestStimuli_senderThatHearsAtOnceDeliversToNone: the world's
// game.signal to all is refused at its line when one agent cannot hold
// it, and no agent receives it; so is Go's Signal.
func TestStimuli_senderThatHearsAtOnceDeliversToNone(t *testing.T) {
	files := stimGame(1, `stimulus_memory = "64KB"`)
	files["ai/t.lua"] = `local bt = require("bt")
bt.action("hoard", function(ctx)
  if ctx.id == "t-3" and ctx.step == 1 then ctx:signal("Mine", string.rep("x", 50000)) end
  return bt.RUNNING
end)`
	files["ai/world.lua"] = `local world = {}
function world.tick(game)
  if game.step == 2 then game.signal("all", "Flood", string.rep("f", 20000)) end
end
return world`
	files["config.toml"] = strings.Replace(files["config.toml"], `paths = ["ai"]`, `paths = ["ai"]`+"\nworld = \"ai/world.lua\"", 1)
	g, trace, people := openTraced(t, files)
	if err := g.Run(3); err != nil {
		t.Fatal(err)
	}
	want := `ai/world.lua:3: game.signal("all", "Flood", data): agent t-3: cannot hold signal "Flood"`
	if !strings.Contains(people.String(), want) || strings.Contains(trace.String(), "Flood") {
		t.Errorf("output:\n%s\nwant %s\ntrace:\n%s", people.String(), want, errorLines(trace.String()))
	}
	err := g.Signal("all", "Flood", runtime.Value{Kind: runtime.StringValue, Str: strings.Repeat("f", 20000)})
	if !errors.Is(err, runtime.ErrStimuli) || g.Agent("t-1").Held("Flood") {
		t.Errorf("Signal to all: %v; t-1 holds Flood: %v", err, g.Agent("t-1").Held("Flood"))
	}
	if err := g.Signal("t-1", "Flood", runtime.Value{Kind: runtime.StringValue, Str: "small"}); err != nil {
		t.Errorf("a signal t-1 can hold: %v", err)
	}
}

// TestStimuli_gameTotalIsSharedAmongTheAgents: run.stimulus_memory_total
// gives each agent an equal share when that is less than
// run.stimulus_memory, following the number of agents.
func TestStimuli_gameTotalIsSharedAmongTheAgents(t *testing.T) {
	files := stimGame(2, `stimulus_memory_total = "128KB"`)
	g, trace, _ := openTraced(t, files)
	if got := g.env.StimulusMemory; got != 32<<10 {
		t.Errorf("4 agents sharing 128KB: each may hold %d", got)
	}
	for _, w := range g.workers {
		if w.env.StimulusMemory != g.env.StimulusMemory {
			t.Errorf("worker %d's bound %d, the game's %d", w.k, w.env.StimulusMemory, g.env.StimulusMemory)
		}
	}
	if err := g.Run(2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(trace.String(), `cannot hold signal \"S2\"`) {
		t.Errorf("S2 (40 KB with S1) not refused:\n%s", errorLines(trace.String()))
	}
	if _, err := g.AddAgent("t-5", "t", nil); err != nil {
		t.Fatal(err)
	}
	if got := g.env.StimulusMemory; got != 128<<10/5 {
		t.Errorf("5 agents: each may hold %d", got)
	}
	if err := g.RemoveAgent("t-5"); err != nil {
		t.Fatal(err)
	}
	if got := g.env.StimulusMemory; got != 32<<10 {
		t.Errorf("4 agents again: each may hold %d", got)
	}
}

// errorLines are the trace's lines with an error, for messages (the
// others carry kilobytes of data).
func errorLines(trace string) string {
	var out []string
	for _, l := range strings.Split(trace, "\n") {
		if strings.Contains(l, `"error"`) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestStimuli_boundSameAfterSaveRestore: a run whose agents fill their
// stimuli, forget some and let others expire refuses the same signals
// when it was saved at any step and continued in a new game as when it
// ran straight (the count is made again from what a restore puts back),
// with two workers as with one.
func TestStimuli_boundSameAfterSaveRestore(t *testing.T) {
	files := stimGame(1, `stimulus_memory = "64KB"`)
	files["ai/t.xml"] = `<behaviorTree>
  <signals><signal name="Hurt" expires="0.25"/></signals>
  <action id="hoard" name="hoard"/>
</behaviorTree>`
	files["ai/t.lua"] = `local bt = require("bt")
bt.action("hoard", function(ctx)
  local n = ctx.step + #ctx.id
  if n % 3 == 0 then ctx:forget("S" .. (n % 4)) end
  if n % 4 == 1 then ctx:signal("Hurt", string.rep("h", 15000)) end
  ctx:signal("S" .. (n % 5), string.rep("x", 9000 * (n % 3 + 1)))
  return bt.RUNNING
end)`
	const steps = 12
	after := func(trace string, k int) string {
		var out []string
		for _, l := range strings.Split(trace, "\n") {
			var s int
			if _, err := fmt.Sscanf(l, `{"step":%d`, &s); err == nil && s > k {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	for _, workers := range []int{1, 2} {
		files["config.toml"] = strings.Replace(stimGame(workers, `stimulus_memory = "64KB"`)["config.toml"], "steps = 6", fmt.Sprintf("steps = %d", steps), 1)
		g, trace, _ := openTraced(t, files)
		if err := g.Run(steps); err != nil {
			t.Fatal(err)
		}
		straight := trace.String()
		if !strings.Contains(straight, "cannot hold signal") {
			t.Fatalf("no signal refused:\n%s", errorLines(straight))
		}
		for k := 1; k < steps; k++ {
			s, _, _ := openTraced(t, files)
			if err := s.Run(k); err != nil {
				t.Fatal(err)
			}
			data, err := s.SaveState()
			if err != nil {
				t.Fatal(err)
			}
			r, rtrace, _ := openTraced(t, files)
			if err := r.RestoreState(data); err != nil {
				t.Fatal(err)
			}
			rtrace.Reset()
			if err := r.Run(steps - k); err != nil {
				t.Fatal(err)
			}
			if got, want := after(rtrace.String(), k), after(straight, k); want == "" || got != want {
				t.Errorf("workers %d, saved at %d: the continued run's errors\n%s\nwant\n%s", workers, k, errorLines(got), errorLines(want))
			}
		}
	}
}
