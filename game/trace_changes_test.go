package game

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeGame writes a game's files (name -> content) into a temporary folder
// and returns its config's path.
func writeGame(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "config.toml")
}

// runTrace runs a config for steps steps and returns its trace.
func runTrace(t *testing.T, config string, steps int) string {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var trace, people bytes.Buffer
	g, err := Open(cfg, Options{Trace: "-", Stdout: &trace, Stderr: &people})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(steps); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	return trace.String()
}

// signalGame sends signals every way a game can: the schedule, the world's
// game.signal, ctx:signal (to itself), ctx:send to another agent and to
// itself, bt.broadcast and bt.signal.send.
var signalGame = map[string]string{
	"config.toml": `[run]
steps = 3
[scripts]
paths = ["ai"]
world = "ai/world.lua"
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 2
[[signals]]
at = 0.1
signal = "Scheduled"
to = ["t-2"]
`,
	"ai/t.xml": `<behaviorTree>
  <variables><variable name="Told"/></variables>
  <signals><signal name="Tell" variable="Told" value="true"/></signals>
  <timestamps><timestamp name="Heard" setOnSignal="Ping" exclusiveTo="Quiet"/><timestamp name="Quiet"/></timestamps>
  <sequence id="root">
    <action id=".talk" name="talk"/>
    <action id=".send" name="bt.signal.send"><parameter name="signal.name">Ping</parameter></action>
    <action id=".hold" name="hold"/>
  </sequence>
</behaviorTree>`,
	"ai/talk.lua": `local bt = require("bt")
bt.action("talk", function(ctx)
  if ctx.id == "t-1" and ctx.step == 1 then
    ctx:signal("Tell")
    ctx:send("t-2", "Tell")
    ctx:send("self", "Self")
    bt.broadcast("Hello")
    ctx:stamp("Quiet")
    ctx:setVar("Told", false)
  end
  return bt.SUCCESS
end)
bt.action("hold", function() return bt.RUNNING end)`,
	"ai/world.lua": `local world = {}
function world.tick(game) if game.step == 2 then game.signal("t-1", "FromWorld") end end
return world`,
}

// TestTrace_linesForEverySignalAndChange: each kind of signal has its line,
// with who sent it, followed by the changes it made; an agent's own signals
// and changes come before its step line, in the order they happened;
// signals to other agents come after every step line of that step.
func TestTrace_linesForEverySignalAndChange(t *testing.T) {
	got := runTrace(t, writeGame(t, signalGame), 2)
	want := `{"step":1,"time":0.1,"agent":"t-2","signal":"Scheduled","from":"schedule"}
{"step":1,"time":0.1,"agent":"t-1","signal":"Tell","from":"t-1"}
{"step":1,"time":0.1,"agent":"t-1","var":"Told","value":true}
{"step":1,"time":0.1,"agent":"t-1","signal":"Self","from":"t-1"}
{"step":1,"time":0.1,"agent":"t-1","signal":"Hello","from":"t-1"}
{"step":1,"time":0.1,"agent":"t-1","stamp":"Quiet","set":true}
{"step":1,"time":0.1,"agent":"t-1","var":"Told","value":false}
{"step":1,"time":0.1,"agent":"t-1","signal":"Ping","from":"t-1"}
{"step":1,"time":0.1,"agent":"t-1","stamp":"Quiet","set":false}
{"step":1,"time":0.1,"agent":"t-1","stamp":"Heard","set":true}
{"step":1,"time":0.1,"agent":"t-1","runs":[["root.talk","success"],["root.send","success"],["root.hold","running"]],"result":"running","cursor":"root.hold"}
{"step":1,"time":0.1,"agent":"t-2","signal":"Ping","from":"t-2"}
{"step":1,"time":0.1,"agent":"t-2","stamp":"Heard","set":true}
{"step":1,"time":0.1,"agent":"t-2","runs":[["root.talk","success"],["root.send","success"],["root.hold","running"]],"result":"running","cursor":"root.hold"}
{"step":1,"time":0.1,"agent":"t-2","signal":"Tell","from":"t-1"}
{"step":1,"time":0.1,"agent":"t-2","var":"Told","value":true}
{"step":1,"time":0.1,"agent":"t-2","signal":"Hello","from":"t-1"}
{"step":2,"time":0.2,"agent":"t-1","signal":"FromWorld","from":"world"}
{"step":2,"time":0.2,"agent":"t-1","runs":[["root.hold","running"]],"result":"running","cursor":"root.hold"}
{"step":2,"time":0.2,"agent":"t-2","runs":[["root.hold","running"]],"result":"running","cursor":"root.hold"}
`
	if got != want {
		t.Errorf("trace:\n%s\nwant:\n%s", got, want)
	}
}

// TestTrace_noChangeLinesWithoutATrace: the runtime's change observer is
// set only while a trace is written (it costs nothing otherwise).
func TestTrace_noChangeLinesWithoutATrace(t *testing.T) {
	cfg, err := LoadConfig(writeGame(t, signalGame))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	g, err := Open(cfg, Options{Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if g.env.Changes != nil || g.env.Observer != nil {
		t.Error("observers set without a trace")
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "t-2 <- signal Scheduled") {
		t.Errorf("people's output: %s", out.String())
	}
}

// TestTraceLines_declareEveryKey: the trace lines games write have the keys
// TraceLines declares, in its order (the reference page is generated from
// it), and every declared kind of line occurs.
func TestTraceLines_declareEveryKey(t *testing.T) {
	fixtures := filepath.Join("..", "tests", "testdata", "fixtures")
	trace := runTrace(t, writeGame(t, signalGame), 2) +
		runTrace(t, filepath.Join(fixtures, "failing", "config.toml"), 4) +
		runTrace(t, filepath.Join(fixtures, "parallel", "config.toml"), 20) +
		runTrace(t, filepath.Join(fixtures, "gates", "config.toml"), 8) +
		runTrace(t, filepath.Join(fixtures, "signals", "config.toml"), 80) +
		restartTrace(t)
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(trace), "\n") {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		keys := jsonKeys(t, line)
		matched := false
		for _, tl := range TraceLines {
			var want []string
			for _, k := range tl.Keys {
				if _, ok := obj[k.Key]; ok || !k.Optional {
					want = append(want, k.Key)
				}
			}
			if strings.Join(keys, ",") == strings.Join(want, ",") {
				seen[tl.Kind], matched = true, true
			}
		}
		if !matched {
			t.Errorf("no TraceLines entry has the keys %v of %s", keys, line)
		}
	}
	for _, tl := range TraceLines {
		if !seen[tl.Kind] {
			t.Errorf("no line of kind %q was written", tl.Kind)
		}
	}
	for _, key := range []string{`"error":`, `"interrupt":`, `"data":{"by":"sniper","damage":12.5,"from":[10,-3]}`, `"lanes":["patrol.walk",["patrol.scan.left","patrol.scan.right"]]`,
		`"gates":[["meet","take"]]`, `"gates":[["meet","release"]]`} {
		if !strings.Contains(trace, key) {
			t.Errorf("the optional key %s never occurred", key)
		}
	}
}

// jsonKeys lists an object's keys in the order written.
func jsonKeys(t *testing.T, line string) []string {
	dec := json.NewDecoder(strings.NewReader(line))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// withReplaced is a copy of a game's files with old replaced by new, once,
// in the file name.
func withReplaced(files map[string]string, name, old, new string) map[string]string {
	c := maps.Clone(files)
	c[name] = strings.Replace(files[name], old, new, 1)
	return c
}
