package game

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// dataGame sends data every way a game can: the schedule (an inline
// table), the world's game.signal, ctx:send to another agent, ctx:signal,
// bt.broadcast.
var dataGame = map[string]string{
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
data = { who = "grunt-2", x = 4, path = [[1, 2], [3, 4]], hot = true }
`,
	"ai/t.xml": `<behaviorTree>
  <signals><signal name="Tell"/></signals>
  <action id="talk" name="talk"/>
</behaviorTree>`,
	"ai/talk.lua": `local bt = require("bt")
bt.action("talk", function(ctx)
  if ctx.id == "t-1" and ctx.step == 1 then
    ctx:send("t-2", "Tell", {hp = 10, by = ctx.id})
    ctx:signal("Self", 2.5)
    bt.broadcast("Hello", "all of you")
  end
  return bt.RUNNING
end)`,
	"ai/world.lua": `local world = {}
function world.tick(game) if game.step == 2 then game.signal("t-1", "FromWorld", {1/0, -1/0, 0/0}) end end
return world`,
}

// TestTrace_dataFromEverySender: a signal's trace line carries its data
// (in the canonical key order, numbers that JSON cannot write as objects);
// a signal without data has no "data".
func TestTrace_dataFromEverySender(t *testing.T) {
	got := runTrace(t, writeGame(t, dataGame), 2)
	want := `{"step":1,"time":0.1,"agent":"t-2","signal":"Scheduled","from":"schedule","data":{"hot":true,"path":[[1,2],[3,4]],"who":"grunt-2","x":4}}
{"step":1,"time":0.1,"agent":"t-1","signal":"Self","from":"t-1","data":2.5}
{"step":1,"time":0.1,"agent":"t-1","signal":"Hello","from":"t-1","data":"all of you"}
{"step":1,"time":0.1,"agent":"t-1","runs":[["talk","running"]],"result":"running","cursor":"talk"}
{"step":1,"time":0.1,"agent":"t-2","runs":[["talk","running"]],"result":"running","cursor":"talk"}
{"step":1,"time":0.1,"agent":"t-2","signal":"Tell","from":"t-1","data":{"by":"t-1","hp":10}}
{"step":1,"time":0.1,"agent":"t-2","signal":"Hello","from":"t-1","data":"all of you"}
{"step":2,"time":0.2,"agent":"t-1","signal":"FromWorld","from":"world","data":[{"number":"inf"},{"number":"-inf"},{"number":"nan"}]}
{"step":2,"time":0.2,"agent":"t-1","runs":[["talk","running"]],"result":"running","cursor":"talk"}
{"step":2,"time":0.2,"agent":"t-2","runs":[["talk","running"]],"result":"running","cursor":"talk"}
`
	if got != want {
		t.Errorf("trace:\n%s\nwant:\n%s\n%s", got, want, firstDiff(got, want))
	}
}

func TestConfig_signalData(t *testing.T) {
	dir := configDir(t)
	cfg, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte(minimalConfig+`
[[signals]]
at = 1
signal = "A"
to = ["all"]
data = { b = "x", a = [1.5, -2, { c = false }] }

[[signals]]
at = 2
signal = "B"
to = ["all"]
data = 7

[[signals]]
at = 3
signal = "C"
to = ["all"]
`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{`{a = {[1] = 1.5, [2] = -2, [3] = {c = false}}, b = "x"}`, "7", "nil"} {
		if got := runtime.DataText(cfg.Signals[i].Data, 200); got != want {
			t.Errorf("signals[%d].data = %s, want %s", i, got, want)
		}
	}
}

func TestConfig_signalDataErrorsNameTheLine(t *testing.T) {
	entry := "\n[[signals]]\nat = 1\nsignal = \"Go\"\nto = [\"all\"]\n" // data goes on line 13
	deep := strings.Repeat("{ a = ", runtime.MaxDataDepth+1) + "1" + strings.Repeat(" }", runtime.MaxDataDepth+1)
	for _, c := range []struct{ name, data, want string }{
		{"a date", `data = 1979-05-27`, `config.toml:13: signals[0]: data = 1979-05-27 00:00:00 +0000 date-local: data: a date or time cannot be sent; data is a number, a string, a boolean, an array or a table of those`},
		{"a date in a table", `data = { when = { at = 07:32:00 } }`, `config.toml:13: signals[0]: data = {...}: data.when.at: a date or time cannot be sent`},
		{"too deep", `data = ` + deep, `config.toml:13: signals[0]: data = {...}: data.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a: tables nested more than 16 deep`},
		{"too big", `data = "` + strings.Repeat("x", runtime.MaxDataSize) + `"`, `signal data may take at most 65536 (64 KiB)`},
		{"an inexact integer", `data = [9007199254740993]`, `data[1]: 9007199254740993 is beyond 2^53, where numbers stop being exact`},
	} {
		dir := configDir(t)
		_, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte(minimalConfig+entry+c.data+"\n"))
		got := ""
		if err != nil {
			got = strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
		}
		if !errors.Is(err, ErrConfig) || !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
	}
}

// TestWorld_signalDataRefusedAtItsLine: game.signal with data it cannot
// send is the world script's error at that line, and nothing is sent.
func TestWorld_signalDataRefusedAtItsLine(t *testing.T) {
	files := map[string]string{}
	for k, v := range dataGame {
		files[k] = v
	}
	files["ai/world.lua"] = `local world = {}
function world.tick(game)
  game.signal("t-1", "FromWorld", {onHit = function() end})
end
return world`
	g, trace, people := openTraced(t, files)
	if err := g.Run(1); err != nil {
		t.Fatal(err)
	}
	want := `world error: luabind: world module "world", tick: ai/world.lua:3: game.signal("t-1", "FromWorld", data): data.onHit: a function cannot be sent`
	if !strings.Contains(people.String(), want) || strings.Contains(trace.String(), "FromWorld") {
		t.Errorf("output:\n%s\nwant %s\ntrace:\n%s", people.String(), want, trace.String())
	}
}

// handlerGame: t-1 waits with a handler for Done, which expects a number;
// the world sends Done without data at step 2, then with one at step 4.
var handlerGame = map[string]string{
	"config.toml": `[run]
steps = 5
on_failure = "%s"
[scripts]
paths = ["ai"]
world = "ai/world.lua"
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 1
`,
	"ai/t.xml": `<behaviorTree>
  <signals><signal name="Done"/></signals>
  <sequence id="root"><action id=".wait" name="wait"/><action id=".after" name="after"/></sequence>
</behaviorTree>`,
	"ai/t.lua": `local bt = require("bt")
bt.action("wait", {
  run = function(ctx) return bt.RUNNING end,
  on = {Done = function(ctx, params, data)
    ctx:log("done " .. data + 0)
    return bt.SUCCESS
  end},
})
bt.action("after", function(ctx) ctx:log("after") return bt.RUNNING end)`,
	"ai/world.lua": `local world = {}
function world.tick(game)
  if game.step == 2 then game.signal("t-1", "Done") end
  if game.step == 4 then game.signal("t-1", "Done", 7) end
end
return world`,
}

// TestHandler_errorIsTheAgentsError: a handler's error is reported with
// the signal that called it (trace line "handler", the output, the
// summary's errors), the agent is reset, and on_failure applies.
func TestHandler_errorIsTheAgentsError(t *testing.T) {
	for _, policy := range []string{"restart", "stop"} {
		files := withReplaced(handlerGame, "config.toml", "%s", policy)
		g, trace, people := openTraced(t, files)
		if err := g.Run(5); err != nil {
			t.Fatal(err)
		}
		handler := `{"step":2,"time":0.2,"agent":"t-1","handler":"root.wait","error":"ai/t.xml:3:23: agent t-1: rule root.wait: handler for signal \"Done\" of action \"wait\": ai/t.lua:5: cannot perform add operation between nil and number"}`
		lines := strings.Split(trace.String(), "\n")
		if !(len(lines) > 2 && strings.Contains(lines[1], `"signal":"Done","from":"world"`) && lines[2] == handler) {
			t.Errorf("%s: trace:\n%s\nwant after the signal line:\n%s", policy, trace.String(), handler)
		}
		out := people.String()
		if !strings.Contains(out, "t=0.20 t-1 <- signal Done\n") || !strings.Contains(out, "t=0.20 t-1 error ("+map[string]string{"restart": "restarts", "stop": "stopped"}[policy]+"): ai/t.xml:3:23") {
			t.Errorf("%s: output:\n%s", policy, out)
		}
		ga := g.byID["t-1"]
		switch policy {
		case "restart": // reset at once: the next step starts from the root; Done at step 4 finishes the wait
			if ga.errors != 1 || ga.stopped || !strings.Contains(out, "t=0.40 t-1 log root.wait: done 7") || !strings.Contains(out, "t=0.50 t-1 log root.after: after") {
				t.Errorf("restart: errors %d, stopped %v:\n%s", ga.errors, ga.stopped, out)
			}
		case "stop":
			if ga.errors != 1 || !ga.stopped || strings.Contains(out, "done 7") || strings.Contains(trace.String(), `"step":3`) {
				t.Errorf("stop: errors %d, stopped %v:\n%s", ga.errors, ga.stopped, out)
			}
		}
	}
}

// openTraced writes a game's files, opens it with its trace and output in
// buffers, and starts it; it is closed with the test.
func openTraced(t *testing.T, files map[string]string) (*Game, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cfg, err := LoadConfig(writeGame(t, files))
	if err != nil {
		t.Fatal(err)
	}
	var trace, people bytes.Buffer
	g, err := Open(cfg, Options{Trace: "-", Stdout: &trace, Stderr: &people})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	return g, &trace, &people
}
