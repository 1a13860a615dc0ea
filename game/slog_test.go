package game_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/btrun/btrun/game"
)

// A game a program embeds prints nothing unless asked; given a
// *slog.Logger, its lines for people are records of the program's log.

const talkTree = `<behaviorTree>
  <sequence id="root">
    <action id="talk" name="talk"/>
    <action id="fail" name="fail"/>
  </sequence>
</behaviorTree>`

const talkLua = `local bt = require("bt")
bt.action("talk", function(ctx, params)
  print("printed by " .. ctx.id)
  ctx:log("logged by", ctx.id)
  return bt.SUCCESS
end)
bt.action("fail", function(ctx, params) error("broken on purpose") end)
`

func openTalkers(t *testing.T, opts game.Options) *game.Game {
	t.Helper()
	cfg := game.NewConfig("")
	cfg.Scripts.Paths = []string{"ai"}
	cfg.Trees = []game.TreeConfig{{Name: "talker", File: "ai/talk.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "talker", Count: 1}}
	opts.Files = fstest.MapFS{"ai/talk.xml": {Data: []byte(talkTree)}, "ai/talk.lua": {Data: []byte(talkLua)}}
	g, err := game.Open(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	must(t, g.Start())
	return g
}

// TestOptions_quietByDefault: without Stdout, Stderr or Logger, a game
// whose agents print, log and fail writes nothing to the process's
// standard output or error.
func TestOptions_quietByDefault(t *testing.T) {
	out, err := os.CreateTemp(t.TempDir(), "std")
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = out, out
	defer func() { os.Stdout, os.Stderr = stdout, stderr }()

	g := openTalkers(t, game.Options{})
	for range 3 {
		if _, err := g.Advance(); err != nil {
			t.Fatal(err)
		}
	}
	g.Close()
	os.Stdout, os.Stderr = stdout, stderr
	data, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 0 {
		t.Errorf("the game wrote %d bytes to standard output or error:\n%s", len(data), data)
	}
}

// TestOptions_loggerGetsTheLines: with a Logger, the agent's log line is a
// record with its agent and rule, Lua's print one of its own and the
// agent's error an Error record; Stdout gets nothing.
func TestOptions_loggerGetsTheLines(t *testing.T) {
	var logged, stdout bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	g := openTalkers(t, game.Options{Logger: log, Stdout: &stdout})
	if _, err := g.Advance(); err != nil {
		t.Fatal(err)
	}
	if stdout.Len() != 0 {
		t.Errorf("Stdout got %q", stdout.String())
	}
	var records []map[string]any
	for line := range strings.Lines(logged.String()) {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		delete(r, "time")
		records = append(records, r)
	}
	want := []map[string]any{
		{"level": "INFO", "msg": "printed by talker-1", "source": "print"},
		{"level": "INFO", "msg": "logged by talker-1", "t": 0.1, "agent": "talker-1", "rule": "talk"},
		{"level": "ERROR", "agent": "talker-1", "t": 0.1},
	}
	if len(records) < len(want) {
		t.Fatalf("records %v, want at least %d", records, len(want))
	}
	for i, w := range want {
		for k, v := range w {
			if records[i][k] != v {
				t.Errorf("record %d: %s = %v, want %v (%v)", i, k, records[i][k], v, records[i])
			}
		}
	}
	if msg, _ := records[2]["msg"].(string); !strings.Contains(msg, "broken on purpose") {
		t.Errorf("error record %v", records[2])
	}
}
