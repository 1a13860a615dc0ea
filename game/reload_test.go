package game

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/runtime"
)

// session is an opened game whose trace and output tests read.
type session struct {
	t             *testing.T
	g             *Game
	dir           string
	trace, people bytes.Buffer
}

func openSession(t *testing.T, config string, scale int) *session {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	if scale > 0 {
		cfg.ScaleAgents(scale)
	}
	return startSession(t, cfg, filepath.Dir(config), nil)
}

// startSession opens cfg (its files in dir) with its trace and output in
// the session's buffers, on workers workers when not nil, and starts it.
func startSession(t *testing.T, cfg *Config, dir string, workers *int) *session {
	t.Helper()
	return startTracedOrNot(t, cfg, dir, workers, true)
}

// startTracedOrNot is startSession, without a trace when traced is false:
// the output (and the error texts) then go to s.people as a traced game's
// do.
func startTracedOrNot(t *testing.T, cfg *Config, dir string, workers *int, traced bool) *session {
	t.Helper()
	s := &session{t: t, dir: dir}
	opts := Options{Trace: "-", Stdout: &s.trace, Stderr: &s.people, SaveEvery: -1, Workers: workers}
	if !traced {
		opts.Trace, opts.Stdout = "", &s.people
	}
	var err error
	s.g, err = Open(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.g.Close() })
	if workers != nil {
		if got := s.g.Workers(); got != *workers {
			t.Fatalf("Workers() = %d, want %d", got, *workers)
		}
	}
	if err := s.g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := s.g.Start(); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *session) run(steps int) {
	s.t.Helper()
	if err := s.g.Run(steps); err != nil {
		s.t.Fatal(err)
	}
}

// write replaces a file of the game.
func (s *session) write(name, text string) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *session) reload(changed ...string) *ReloadReport {
	s.t.Helper()
	rep, err := s.g.Reload(ReloadOptions{Changed: changed})
	if err != nil {
		s.t.Fatalf("reload: %v\n%s", err, s.people.String())
	}
	return rep
}

// wantLines checks that the text holds each line.
func wantLines(t *testing.T, what, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(text, l+"\n") {
			t.Errorf("%s lacks the line\n%s\nin:\n%s", what, l, text)
		}
	}
}

// TestReload_withoutChangeLeavesTheTraceAsItWas: a reload at any step of
// a game whose files did not change gives the trace of a run without it,
// byte for byte: every agent keeps its place, its rule's state, its Lua
// tables, its generator, its clocks; the world keeps its state (the example
// game: a world script with save and load, the nav plugin, Lua actions
// mid-run; fixtures whose trees have rules without ids, timeouts,
// cooldowns and choice orders).
func TestReload_withoutChangeLeavesTheTraceAsItWas(t *testing.T) {
	fixture := func(name string) string {
		return filepath.Join("..", "tests", "testdata", "fixtures", name, "config.toml")
	}
	for _, tc := range []struct {
		name, config string
		scale, steps int
		at           []int
	}{
		{"example", "../config.toml", 40, 150, []int{1, 37, 90}},
		{"alarm", fixture("alarm"), 0, 30, []int{2, 3, 14}},
		{"failing", fixture("failing"), 0, 20, []int{1, 5, 9}},
		{"interrupt", fixture("interrupt"), 0, 60, []int{3, 17, 31}},
		{"parallel", fixture("parallel"), 0, 48, everyStep(47)},
		{"gates", fixture("gates"), 0, 60, everyStep(59)},
		{"signals", fixture("signals"), 0, 80, everyStep(79)}, // stimuli, handlers' pending results
		{"slots", fixture("slots"), 0, 60, everyStep(59)},     // agents inside grafted trees, grafts pending
	} {
		t.Run(tc.name, func(t *testing.T) {
			straight := openSession(t, tc.config, tc.scale)
			straight.run(tc.steps)
			for _, k := range tc.at {
				s := openSession(t, tc.config, tc.scale)
				s.run(k)
				rep := s.reload()
				if rep.Kept != len(s.g.agents) || len(rep.Restarted) > 0 || len(rep.Warnings) > 0 {
					t.Errorf("k=%d: %+v", k, rep)
				}
				s.run(tc.steps - k)
				if got, want := s.trace.String(), straight.trace.String(); got != want {
					t.Fatalf("k=%d: the trace differs:\n%s", k, firstDiff(got, want))
				}
				if got, want := gateList(s.g), gateList(straight.g); got != want {
					t.Fatalf("k=%d: the gates differ:\n got  %s\n want %s", k, got, want)
				}
			}
		})
	}
}

// gateList is the game's gates, their holders and counts, as text.
func gateList(g *Game) string {
	if g.Gates() == nil {
		return "no gates"
	}
	return fmt.Sprintf("%+v", g.Gates().List())
}

// firstDiff shows where two texts first differ, by line.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + a + "\n want " + b
		}
	}
	return "(no difference)"
}

// counterGame counts in ctx.memory: an action the tests edit while it runs.
var counterGame = map[string]string{
	"config.toml": `[run]
steps = 100
dt = 0.5
[scripts]
paths = ["ai"]
[[trees]]
name = "c"
file = "ai/c.xml"
[[agents]]
tree = "c"
count = 2
`,
	"ai/c.xml": `<behaviorTree>
  <variables><variable name="Even"/></variables>
  <sequence id="root">
    <action id=".count" name="count"/>
  </sequence>
</behaviorTree>`,
	"ai/count.lua": `local bt = require("bt")
bt.action("count", function(ctx)
  ctx.memory.n = (ctx.memory.n or 0) + 1
  ctx:log("v1 n=" .. ctx.memory.n)
  return bt.RUNNING
end)`,
}

// TestReload_editedLuaActionRunsAtTheNextStepWithMemoryKept: a Lua
// action edited mid-run runs in its new version from the next step on,
// with ctx.memory as the old version left it; the agents keep their place.
func TestReload_editedLuaActionRunsAtTheNextStepWithMemoryKept(t *testing.T) {
	s := openSession(t, writeGame(t, counterGame), 0)
	s.run(3)
	s.write("ai/count.lua", `local bt = require("bt")
bt.action("count", function(ctx)
  ctx.memory.n = ctx.memory.n + 1
  ctx:log("v2 n=" .. ctx.memory.n)
  ctx:setVar("Even", ctx.memory.n % 2 == 0)
  return bt.SUCCESS
end)`)
	rep := s.reload("ai/count.lua")
	if rep.Kept != 2 || rep.Step != 3 {
		t.Errorf("report %+v", rep)
	}
	s.run(1)
	wantLines(t, "output", s.people.String(),
		"t=1.50 c-2 log root.count: v1 n=3",
		"t=1.50 reload: ai/count.lua: 2 agents kept their place",
		"t=2.00 c-1 log root.count: v2 n=4",
		"t=2.00 c-2 log root.count: v2 n=4",
	)
	wantLines(t, "trace", s.trace.String(),
		`{"step":3,"time":1.5,"agent":"c-2","runs":[["root.count","running"]],"result":"running","cursor":"root.count"}`,
		`{"step":4,"time":2,"agent":"c-1","var":"Even","value":true}`,
		`{"step":4,"time":2,"agent":"c-1","runs":[["root.count","success"]],"result":"success","cursor":"root"}`,
	)
}

// aimGame has agents sitting on a running Lua action with a cancel hook.
var aimGame = map[string]string{
	"config.toml": `[run]
steps = 100
dt = 0.5
[scripts]
paths = ["ai"]
[[trees]]
name = "a"
file = "ai/a.xml"
[[agents]]
tree = "a"
count = 2
`,
	"ai/a.xml": `<behaviorTree>
  <variables><variable name="Seen"/></variables>
  <sequence id="root">
    <action id=".look" name="bt.variable.set"><parameter name="variable.name">Seen</parameter><parameter name="variable.value">true</parameter></action>
    <action id=".aim" name="aim"/>
  </sequence>
</behaviorTree>`,
	"ai/aim.lua": `local bt = require("bt")
bt.action("aim", {
  start = function(ctx) ctx.state.since = ctx.time; ctx:log("v1 start") end,
  run = function(ctx) return bt.RUNNING end,
  cancel = function(ctx) ctx:log("v1 cancel, aiming since " .. ctx.state.since) end,
})`,
}

// TestReload_goneRuleRestartsAtTheRootWithTheOldCancel: renaming the id of
// the rule agents sit on (and changing the script in the same reload)
// restarts them at the root: the old script's cancel hook ends their
// action, once, with its ctx.state; one line names each agent and the
// rule; the trace says so; the next step starts the renamed rule with the
// new script, variables kept.
func TestReload_goneRuleRestartsAtTheRootWithTheOldCancel(t *testing.T) {
	s := openSession(t, writeGame(t, aimGame), 0)
	s.run(2)
	s.write("ai/a.xml", strings.Replace(aimGame["ai/a.xml"], `id=".aim"`, `id=".aim2"`, 1))
	s.write("ai/aim.lua", strings.ReplaceAll(aimGame["ai/aim.lua"], "v1", "v2"))
	rep := s.reload("ai/a.xml", "ai/aim.lua")
	if rep.Kept != 0 || len(rep.Restarted) != 2 {
		t.Errorf("report %+v", rep)
	}
	s.run(1)
	out := s.people.String()
	wantLines(t, "output", out,
		"t=1.00 a-1 log root.aim: v1 cancel, aiming since 0.5",
		"t=1.00 a-2 log root.aim: v1 cancel, aiming since 0.5",
		"t=1.00 reload: ai/a.xml, ai/aim.lua: 0 agents kept their place, 2 restarted (a-1, a-2: rule root.aim is gone)",
		"t=1.50 a-1 log root.aim2: v2 start",
	)
	if n := strings.Count(out, "cancel"); n != 2 {
		t.Errorf("%d cancels, want 2 (one per agent):\n%s", n, out)
	}
	wantLines(t, "trace", s.trace.String(),
		`{"step":2,"time":1,"agent":"a-1","reload":"restart","rule":"root.aim"}`,
		`{"step":3,"time":1.5,"agent":"a-1","runs":[["root.look","success"],["root.aim2","running"]],"result":"running","cursor":"root.aim2"}`,
	)
}

// TestReload_keptRuleKeepsItsState: an agent whose rule is still there
// keeps its ctx.state (start is not called again) while the script around
// it changes.
func TestReload_keptRuleKeepsItsState(t *testing.T) {
	s := openSession(t, writeGame(t, aimGame), 0)
	s.run(2)
	s.write("ai/aim.lua", strings.Replace(aimGame["ai/aim.lua"],
		`run = function(ctx) return bt.RUNNING end`,
		`run = function(ctx) ctx:log("v2 run, aiming since " .. ctx.state.since) return bt.RUNNING end`, 1))
	s.reload("ai/aim.lua")
	s.run(1)
	wantLines(t, "output", s.people.String(), "t=1.50 a-1 log root.aim: v2 run, aiming since 0.5")
	if strings.Contains(s.people.String(), "cancel") || strings.Count(s.people.String(), "v1 start") != 2 {
		t.Errorf("an action was cancelled or started again:\n%s", s.people.String())
	}
}

// TestReload_brokenFilesAreReportedAndTheGameGoesOn: a tree that does not
// load and a script that does not compile are reported with every problem
// and its position; nothing changes; fixing them applies them.
func TestReload_brokenFilesAreReportedAndTheGameGoesOn(t *testing.T) {
	s := openSession(t, writeGame(t, counterGame), 0)
	s.run(2)
	s.write("ai/c.xml", `<behaviorTree>
  <sequence id="root">
    <actoin name="count"/>
    <action id=".count" name="count" loop="x"/>
  </sequence>
</behaviorTree>`)
	s.write("ai/count.lua", "local bt = require(\"bt\")\nbt.action(\"count\", function(ctx) return bt.RUNNING\n")
	before := len(s.g.Agents())
	_, err := s.g.Reload(ReloadOptions{Changed: []string{"ai/c.xml", "ai/count.lua"}})
	if !errors.Is(err, ErrReload) {
		t.Fatalf("got %v", err)
	}
	out := s.people.String()
	for _, want := range []string{
		"t=1.00 reload: ai/c.xml, ai/count.lua: not applied; the game goes on unchanged:\n",
		"\n    ai/c.xml:3:5: unknown tag <actoin>",
		"\n    ai/c.xml:4:5: ",
		"\n    ai/count.lua:3:",
		" problems\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	s.run(1)
	wantLines(t, "output", s.people.String(), "t=1.50 c-1 log root.count: v1 n=3")
	if len(s.g.Agents()) != before {
		t.Error("agents changed")
	}
	s.write("ai/c.xml", counterGame["ai/c.xml"])
	s.write("ai/count.lua", strings.ReplaceAll(counterGame["ai/count.lua"], "v1", "v3"))
	s.reload("ai/c.xml", "ai/count.lua")
	s.run(1)
	wantLines(t, "output", s.people.String(), "t=2.00 c-1 log root.count: v3 n=4")
}

// restartTrace is the trace of a game whose agents a reload restarted.
func restartTrace(t *testing.T) string {
	s := openSession(t, writeGame(t, aimGame), 0)
	s.run(1)
	s.write("ai/a.xml", strings.Replace(aimGame["ai/a.xml"], `id=".aim"`, `id=".aim2"`, 1))
	s.reload()
	s.run(1)
	s.g.flushTrace()
	return s.trace.String()
}

// TestWatch_reloadsBetweenStepsWhatChanged: with Watch, Run reloads a
// script saved while the game runs, between two steps, and the watcher
// follows the files of the reloaded trees (a subtree file added by the
// reload is watched from then on).
func TestWatch_reloadsBetweenStepsWhatChanged(t *testing.T) {
	for _, mode := range []string{"notify", "poll"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "poll" {
				t.Setenv(pollEnv, "30ms")
			}
			testWatch(t, mode)
		})
	}
}

func testWatch(t *testing.T, mode string) {
	s := openSession(t, writeGame(t, counterGame), 0)
	if err := s.g.Watch(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.people.String(), "("+mode+"); changes apply between two steps") {
		t.Errorf("output: %s", s.people.String())
	}
	s.run(1)
	s.write("ai/count.lua", strings.ReplaceAll(counterGame["ai/count.lua"], "v1", "v2"))
	s.waitOutput("reload: ai/count.lua: 2 agents kept their place")
	s.write("ai/sub.xml", `<behaviorTree><action id="count" name="count"/></behaviorTree>`)
	s.write("ai/c.xml", strings.Replace(counterGame["ai/c.xml"], `<action id=".count" name="count"/>`, `<subtree id="sub">sub.xml</subtree>`, 1))
	s.waitOutput("reload: ai/c.xml: 0 agents kept their place, 2 restarted (c-1, c-2: rule root.count is gone)")
	s.write("ai/sub.xml", `<behaviorTree><action id="count" name="count"><parameter name="x">1</parameter></action></behaviorTree>`)
	s.waitOutput("reload: ai/sub.xml: 2 agents kept their place")
}

// TestWatch_aReloadFromGoWatchesNewSubtreeFiles: a reload asked for by
// someone other than the watcher (the live view's editor, a Go program)
// makes the watcher follow a subtree file the reloaded tree now names; an
// edit of that file is then reloaded.
func TestWatch_aReloadFromGoWatchesNewSubtreeFiles(t *testing.T) {
	t.Setenv(pollEnv, "30ms") // polling: the same in every file system
	s := openSession(t, writeGame(t, counterGame), 0)
	if err := s.g.Watch(); err != nil {
		t.Fatal(err)
	}
	s.run(1)
	sub := filepath.Join(s.g.cfg.Dir, "ai", "sub.xml")
	if s.g.watcher.sources.Load().files[sub] {
		t.Fatal("sub.xml is watched before any tree names it")
	}
	s.write("ai/sub.xml", `<behaviorTree><action id="count" name="count"/></behaviorTree>`)
	s.write("ai/c.xml", strings.Replace(counterGame["ai/c.xml"], `<action id=".count" name="count"/>`, `<subtree id="sub">sub.xml</subtree>`, 1))
	if _, err := s.g.Reload(ReloadOptions{}); err != nil {
		t.Fatal(err)
	}
	if !s.g.watcher.sources.Load().files[sub] {
		t.Errorf("after a reload from Go, the watcher does not follow %s", sub)
	}
}

// waitOutput runs steps until the output holds text (a hang guard of five
// minutes: the watcher waits for editors to finish saving, and a busy
// machine takes its time).
func (s *session) waitOutput(text string) {
	s.t.Helper()
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		s.run(1)
		if strings.Contains(s.people.String(), text) {
			return
		}
	}
	s.t.Fatalf("no %q in:\n%s", text, s.people.String())
}

// BenchmarkReloadExampleGame measures a reload of the example game with
// 1,000 and 10,000 agents mid-run and no change: every tree, script and the
// world loaded again, every agent carried over (the nav plugin keeps its
// process).
func BenchmarkReloadExampleGame(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			g := exampleGame(b, n, 50)
			b.ResetTimer()
			for range b.N {
				if _, err := g.Reload(ReloadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/reload")
		})
	}
}

// TestReload_worldRunsAgainQuietly: a reload runs the world's init and
// spawn again on the new Lua state, but nothing they print, log or send
// shows, in the output or the trace, and the agents go on with their own
// state: the trace is the trace of a run without the reload.
func TestReload_worldRunsAgainQuietly(t *testing.T) {
	files := withReplaced(counterGame, "config.toml", `paths = ["ai"]`, `paths = ["ai"]`+"\nworld = \"ai/world.lua\"")
	files["ai/c.xml"] = strings.Replace(counterGame["ai/c.xml"], `<variables><variable name="Even"/></variables>`,
		`<variables><variable name="Even"/><variable name="Born"/></variables><signals><signal name="Hello" variable="Born" value="true"/></signals>`, 1)
	files["ai/world.lua"] = `local world = {}
local born = 0
function world.init(game) game.log("init") print("init printed") end
function world.spawn(ctx) born = born + 1; ctx.agent.born = born; ctx:signal("Hello"); ctx:log("spawned") end
function world.save() return { born = born } end
function world.load(t) born = t.born end
return world`
	config := writeGame(t, files)
	straight := openSession(t, config, 0)
	straight.run(4)
	s := openSession(t, config, 0)
	s.run(2)
	s.reload()
	s.run(2)
	if got, want := s.trace.String(), straight.trace.String(); got != want {
		t.Errorf("the trace differs:\n%s", firstDiff(got, want))
	}
	after := s.people.String()[strings.Index(s.people.String(), "reload:"):]
	for _, quiet := range []string{"init", "spawned", "Hello"} {
		if strings.Contains(after, quiet) {
			t.Errorf("%q shows after the reload:\n%s", quiet, after)
		}
	}
	if !strings.Contains(straight.trace.String(), `"signal":"Hello"`) {
		t.Error("spawn's signal is not in the trace: the test shows nothing")
	}
}

// TestReloadReport_groupsRestartsByRule: the reload line names the agents
// that restarted by rule, at most a few per rule.
func TestReloadReport_groupsRestartsByRule(t *testing.T) {
	var rs []Restart
	aim := runtime.GoneRule{Label: "grunt.attack.aim", Why: "is gone"}
	for i := range 10 {
		rs = append(rs, Restart{Agent: "grunt-" + strconv.Itoa(i+1), Rule: aim})
	}
	rs = append(rs[:2], append([]Restart{{Agent: "courier-1", Rule: runtime.GoneRule{Label: "leg", Why: "is now a choice rule"}}}, rs[2:]...)...)
	got := (&ReloadReport{Changed: []string{"ai/grunt.xml"}, Kept: 1, Restarted: rs}).summary()
	want := "ai/grunt.xml: 1 agent kept its place, 11 restarted (grunt-1, grunt-2, grunt-3, grunt-4, grunt-5, grunt-6, grunt-7, grunt-8 and 2 more: rule grunt.attack.aim is gone; courier-1: rule leg is now a choice rule)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// fixtureFiles reads a fixture's files, for a test to edit a copy.
func fixtureFiles(t *testing.T, name string) map[string]string {
	t.Helper()
	dir := filepath.Join("..", "tests", "testdata", "fixtures", name)
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestReload_goneLaneRuleRestartsTheAgent: renaming the id of a rule a
// lane of a parallel sits on restarts the agents on it at the root (the
// old cancel hook ends the lane's action); agents elsewhere keep their
// place, their lanes and each lane's ctx.state included.
func TestReload_goneLaneRuleRestartsTheAgent(t *testing.T) {
	files := fixtureFiles(t, "parallel")
	s := openSession(t, writeGame(t, files), 0)
	// Step until some agent walks in the patrol and another does not.
	walking := func(a *runtime.Agent) bool {
		for _, l := range a.Lanes(nil) {
			if l.Status == runtime.Running && a.Tree().Tree.Rules[l.Cursor].Label == "patrol.walk" {
				return true
			}
		}
		return false
	}
	var walkers, others []string
	for step := 1; ; step++ {
		if step > 48 {
			t.Fatal("no step with agents walking in the patrol and agents not")
		}
		s.run(1)
		walkers, others = nil, nil
		for _, a := range s.g.Agents() {
			if walking(a) {
				walkers = append(walkers, a.ID())
			} else {
				others = append(others, a.ID())
			}
		}
		if len(walkers) > 0 && len(others) > 0 {
			break
		}
	}
	s.write("ai/scout.xml", strings.Replace(files["ai/scout.xml"], `id=".walk"`, `id=".stroll"`, 1))
	s.write("ai/scout.lua", strings.NewReplacer(`ctx:log("walk stopped after "`, `ctx:log("v2 walk stopped after "`,
		`ctx:jump("patrol.walk")`, `ctx:jump("patrol.stroll")`).Replace(files["ai/scout.lua"]))
	rep := s.reload("ai/scout.xml", "ai/scout.lua")
	var restarted []string
	for _, r := range rep.Restarted {
		restarted = append(restarted, r.String())
	}
	var want []string
	for _, id := range walkers {
		want = append(want, id+": rule patrol.walk is gone")
	}
	if strings.Join(restarted, "\n") != strings.Join(want, "\n") || rep.Kept != len(others) {
		t.Errorf("restarted %q, kept %d; want %q and %d", restarted, rep.Kept, want, len(others))
	}
	out := s.people.String()
	for _, id := range walkers {
		if !strings.Contains(out, " "+id+" log patrol.walk: walk stopped after ") {
			t.Errorf("no cancel of %s's walk by the old script:\n%s", id, out)
		}
	}
	if strings.Contains(out, "v2 walk stopped") {
		t.Errorf("the new script cancelled a walk:\n%s", out)
	}
	s.run(10)
	if strings.Contains(s.trace.String(), `"result":"error"`) {
		t.Errorf("errors after the reload:\n%s", s.trace.String())
	}
}

// everyStep is 1, 2, ... n.
func everyStep(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// TestReload_editedGraftedTree: an edit of a tree that agents run in their
// slots reloads it: they keep their place inside it (in its lanes too),
// and the new version runs from then on.
func TestReload_editedGraftedTree(t *testing.T) {
	dir := filepath.Join("..", "tests", "testdata", "fixtures", "slots")
	files := map[string]string{}
	for _, name := range []string{"config.toml", "ai/grunt.xml", "ai/patrol.xml", "ai/gun.xml", "ai/crate.xml", "ai/open.xml", "ai/grunt.lua"} {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	s := openSession(t, writeGame(t, files), 0)
	s.run(5) // every grunt is in the gun's parallel (use.man.fire.aim)
	if got := s.g.Agent("grunt-1").CursorLabel(); got != "use.man.fire.aim" {
		t.Fatalf("grunt-1 is at %s", got)
	}
	s.write("ai/gun.xml", strings.Replace(files["ai/gun.xml"], `<choice id=".burst" order="random">`,
		`<choice id=".burst" order="random"><parameter name="log.start">v2 burst</parameter>`, 1))
	rep := s.reload("ai/gun.xml")
	if rep.Kept != 5 || len(rep.Restarted) != 0 {
		t.Errorf("report %+v", rep)
	}
	s.run(1)
	wantLines(t, "output", s.people.String(), "t=1.50 grunt-1 log use.man.fire.burst: v2 burst")
}

// TestReload_graftedTreeWithItsActionsSwapped: the gun's two burst
// actions swapped in its file (ids kept) and reloaded alone: a grunt in
// the middle of the long burst stays on it, by id. (The first design of
// slots gave the combined tree its template's fingerprint, so the carry
// took every rule to its old index: the grunt went on with the short
// burst.)
func TestReload_graftedTreeWithItsActionsSwapped(t *testing.T) {
	dir := filepath.Join("..", "tests", "testdata", "fixtures", "slots")
	files := map[string]string{}
	for _, name := range []string{"config.toml", "ai/grunt.xml", "ai/patrol.xml", "ai/gun.xml", "ai/crate.xml", "ai/open.xml", "ai/grunt.lua"} {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	s := openSession(t, writeGame(t, files), 0)
	s.run(6)
	const long = "use.man.fire.burst.long"
	if got := s.g.Agent("grunt-3").CursorLabel(); got != long {
		t.Fatalf("grunt-3 is at %s", got)
	}
	short := `<action id=".short" name="shoot"><parameter name="shots">2</parameter></action>`
	longXML := `<action id=".long" name="shoot"><parameter name="shots">4</parameter></action>`
	swapped := strings.Replace(files["ai/gun.xml"], short+"\n        "+longXML, longXML+"\n        "+short, 1)
	if swapped == files["ai/gun.xml"] {
		t.Fatal("gun.xml has not the burst actions to swap")
	}
	s.write("ai/gun.xml", swapped)
	if rep := s.reload("ai/gun.xml"); rep.Kept != 5 || len(rep.Restarted) != 0 {
		t.Errorf("report %+v", rep)
	}
	if got := s.g.Agent("grunt-3").CursorLabel(); got != long {
		t.Fatalf("after the reload grunt-3 is at %s, want %s", got, long)
	}
}
