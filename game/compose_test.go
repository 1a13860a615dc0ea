package game

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// composeGame puts this stop's features in one game: a Drag[en]gine state
// machine file as a tree; bt.log and inline bt.lua hooks in a parallel's
// lanes and on a sequence that aborts itself, the inline hook reading its
// read-only params; a kind that translates the tree's leaf; and agents of
// that kind added at run time (composeRun).
func composeGame() map[string]string {
	return map[string]string{
		"config.toml": `[run]
steps = 12
dt = 1
workers = 0
[scripts]
paths = ["ai"]
[[trees]]
name = "lamp"
file = "ai/lamp.desm"
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "lamp"
count = 2
[[agents]]
tree = "t"
count = 2
[[agents]]
tree = "t"
name = "sniper"
count = 1
translate = { Attack = "sniperAttack" }
[[agents]]
tree = "lamp"
name = "dim"
count = 1
translate = { setLight = "dimLight" }
[[signals]]
at = 2
signal = "switch"
to = ["all"]
[[signals]]
at = 3
signal = "Calm"
to = ["all"]
[[signals]]
at = 6
signal = "switch"
to = ["lamp-2"]
[[signals]]
at = 8
signal = "Alert"
to = ["all"]
`,
		"ai/lamp.desm": `<?xml version="1.0"?>
<stateMachine>
  <initialState>off</initialState>
  <state id="off">
    <enterAction name="setLight"><parameter name="level">0</parameter></enterAction>
    <transition event="switch" state="on"/>
  </state>
  <state id="on">
    <enterAction name="setLight"><parameter name="level">1</parameter></enterAction>
    <exitAction name="click"/>
    <transition event="switch" state="off"/>
  </state>
</stateMachine>`,
		"ai/t.xml": `<behaviorTree>
  <variables><variable name="Alert" default="true"/></variables>
  <signals><signal name="Calm" variable="Alert" value="false"/><signal name="Alert" variable="Alert" value="true"/></signals>
  <sequence id="root" loop="true">
    <parallel id="lanes" success="all">
      <sequence id="watch" abort="self" enter="bt.log" exit="bt.log">
        <parameter name="log.enter">watches</parameter><parameter name="log.exit">stops watching ({how})</parameter>
        <condition>Alert</condition>
        <action id="look" name="bt.wait"><parameter name="wait.seconds">3</parameter></action>
      </sequence>
      <sequence id="fight" enter="bt.lua" exit="bt.lua">
        <parameter name="lua.enter">ctx.memory.n = (ctx.memory.n or 0) + 1; ctx:log("fights " .. params.mood .. " " .. ctx.memory.n)</parameter>
        <parameter name="lua.exit">ctx:log("fought: " .. how)</parameter>
        <parameter name="mood">grim</parameter>
        <action id="hit" name="Attack"/>
        <action id="rest" name="bt.wait"><parameter name="wait.seconds">2</parameter></action>
      </sequence>
    </parallel>
  </sequence>
</behaviorTree>`,
		"ai/a.lua": `local bt = require("bt")
bt.action("setLight", function(ctx, params) ctx:log("light " .. params.level) return bt.SUCCESS end)
bt.action("click", function(ctx) ctx:log("click") return bt.SUCCESS end)
bt.action("dimLight", function(ctx, params) ctx:log("dim " .. params.level) return bt.SUCCESS end)
bt.action("Attack", function(ctx) ctx:log("melee") return bt.SUCCESS end)
bt.action("sniperAttack", function(ctx) ctx:log("snipe") return bt.SUCCESS end)
`,
	}
}

// composeSession opens the game with n workers, restoring data first when
// it is not nil.
func composeSession(t *testing.T, config string, n int, data []byte) *session {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, dir: filepath.Dir(config)}
	g, err := Open(cfg, Options{Trace: "-", Stdout: &s.trace, Stderr: &s.people, SaveEvery: -1, Workers: &n, AgentsFromSave: data != nil})
	if err != nil {
		t.Fatal(err)
	}
	s.g = g
	t.Cleanup(func() { g.Close() })
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if data != nil {
		if err := g.RestoreState(data); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// composeRun runs the game for steps steps with n workers, adding a
// sniper and a t agent after step 4; when saveAt > 0 the game is saved
// after that step and the rest runs in a new game restored from it. It
// returns the trace, the output and the final save.
func composeRun(t *testing.T, config string, n, steps, saveAt int) (string, string, []byte) {
	t.Helper()
	s := composeSession(t, config, n, nil)
	var trace, people strings.Builder
	for i := 1; i <= steps; i++ {
		s.run(1)
		if i == 4 {
			for _, id := range []string{"sniper-9", "t-9", "dim-9"} {
				if _, err := s.g.AddAgent(id, composeAddedTree(id), nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		if i == saveAt {
			data := s.save()
			trace.WriteString(s.trace.String())
			people.WriteString(s.people.String())
			s = composeSession(t, config, n, data)
		}
	}
	trace.WriteString(s.trace.String())
	people.WriteString(s.people.String())
	return trace.String(), people.String(), s.save()
}

// TestCompose_stopsFeaturesOnWorkersAndAcrossSaveRestoreAtEveryStep: the
// game of composeGame gives the same trace, output and save on 1 and 2
// workers, and saved and restored after any step.
func TestCompose_stopsFeaturesOnWorkersAndAcrossSaveRestoreAtEveryStep(t *testing.T) {
	config := writeGame(t, composeGame())
	const steps = 12
	trace, out, save := composeRun(t, config, 1, steps, 0)
	for _, want := range []string{"lamp-1 log stateMachine.on__enter_1_.enterAction: light 1", "lamp-2 log stateMachine.on__switch_1_.exitAction: click",
		"t-1 log watch: stops watching (abort)", "t-1 log watch: watches", "t-1 log fight: fights grim 2", "t-1 log fight: fought: success", "t-1 log fight: fought: cancel",
		"sniper-1 log hit: snipe", "dim-1 log stateMachine.on__enter_1_.enterAction: dim 1", "dim-9 log stateMachine.off__enter_1_.enterAction: dim 0", "sniper-9 log hit: snipe", "t-9 log hit: melee", "t-2 log hit: melee"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in the output:\n%s", want, out)
		}
	}
	if tr2, out2, save2 := composeRun(t, config, 2, steps, 0); tr2 != trace || out2 != out || !bytes.Equal(save2, save) {
		t.Fatalf("2 workers differ from 1:\n%s\n%s", firstDiff(tr2, trace), firstDiff(out2, out))
	}
	for k := 1; k < steps; k++ {
		for _, n := range []int{1, 2} {
			tr, o, sv := composeRun(t, config, n, steps, k)
			if tr != trace {
				t.Fatalf("%d workers, saved and restored after step %d: trace\n%s", n, k, firstDiff(tr, trace))
			}
			if o != out {
				t.Fatalf("%d workers, saved and restored after step %d: output\n%s", n, k, firstDiff(o, out))
			}
			if !bytes.Equal(sv, save) {
				t.Fatalf("%d workers, saved and restored after step %d: the final save differs", n, k)
			}
		}
	}
}

// TestCompose_aSignalAtTheFirstStepIsTracedOnEveryWorker: a scheduled
// signal delivered before the first step (or the first after a restore)
// reaches the trace for the agents of every worker, not only the first
// worker's: the trace's observer reaches the workers before any delivery.
func TestCompose_aSignalAtTheFirstStepIsTracedOnEveryWorker(t *testing.T) {
	files := composeGame()
	files["config.toml"] = strings.Replace(files["config.toml"], "at = 2\n", "at = 0\n", 1)
	config := writeGame(t, files)
	one := composeSession(t, config, 1, nil)
	one.run(2)
	two := composeSession(t, config, 2, nil)
	two.run(2)
	if !strings.Contains(one.trace.String(), `"agent":"lamp-2","signal":"switch"`) {
		t.Fatalf("no switch for lamp-2:\n%s", one.trace.String())
	}
	if got, want := two.trace.String(), one.trace.String(); got != want {
		t.Errorf("2 workers:\n%s", firstDiff(got, want))
	}
}

// TestCompose_aReloadWithoutChangesKeepsTheRun: the game of composeGame
// reloaded after any step, nothing changed, on 1 and 2 workers, goes on
// with the trace and output of a straight run (the state machine's state,
// the hooks' starts, the translated kind, the added agents carried).
func TestCompose_aReloadWithoutChangesKeepsTheRun(t *testing.T) {
	config := writeGame(t, composeGame())
	const steps = 12
	trace, out, _ := composeRun(t, config, 1, steps, 0)
	for k := 1; k < steps; k++ {
		for _, n := range []int{1, 2} {
			s := composeSession(t, config, n, nil)
			for i := 1; i <= steps; i++ {
				s.run(1)
				if i == 4 {
					for _, id := range []string{"sniper-9", "t-9", "dim-9"} {
						if _, err := s.g.AddAgent(id, composeAddedTree(id), nil); err != nil {
							t.Fatal(err)
						}
					}
				}
				if i == k {
					rep, err := s.g.Reload(ReloadOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if len(rep.Restarted) > 0 {
						t.Fatalf("reload after step %d restarted %v", k, rep.Restarted)
					}
				}
			}
			if got := s.trace.String(); got != trace {
				t.Fatalf("%d workers, reloaded after step %d: trace\n%s", n, k, firstDiff(got, trace))
			}
			if got := withoutReloadLines(s.people.String()); got != out {
				t.Fatalf("%d workers, reloaded after step %d: output\n%s", n, k, firstDiff(got, out))
			}
		}
	}
}

// withoutReloadLines drops the output's lines that report a reload.
func withoutReloadLines(out string) string {
	var keep []string
	for _, line := range strings.SplitAfter(out, "\n") {
		if !strings.Contains(line, " reload: ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

// TestCompose_lintsFindNothingWrongInTheStopsFeatures: a state machine
// file's translation (its resting <running> states, its conditional
// <success> steps, its doNotFail actions), the example's MBT state
// machine, hooks and a translated kind give no lint: the rule that can
// never run and the variable nothing sets are not false alarms there.
func TestCompose_lintsFindNothingWrongInTheStopsFeatures(t *testing.T) {
	files := composeGame()
	files["ai/guard.desm"] = `<?xml version="1.0"?>
<stateMachine>
  <initialState>watch</initialState>
  <state id="watch">
    <enterAction name="click"/>
    <transition event="switch" state="alert"><condition>Alert</condition></transition>
    <transition event="switch"><action name="click"/></transition>
  </state>
  <state id="alert">
    <enterAction name="click" nextState="watch"><condition>!Alert</condition></enterAction>
    <enterAction name="setLight"><parameter name="level">2</parameter></enterAction>
    <transition event="Calm" state="watch"/>
  </state>
</stateMachine>`
	files["config.toml"] = strings.Replace(files["config.toml"], "[[agents]]", "[[trees]]\nname = \"guard\"\nfile = \"ai/guard.desm\"\n[[agents]]\ntree = \"guard\"\n[[agents]]", 1)
	files["ai/a.lua"] += `bt.condition("Alert", function(ctx) return true end)
`
	for _, config := range []string{writeGame(t, files), "../config.toml"} {
		cfg, err := LoadConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if lints := g.Lints(); len(lints) > 0 {
			t.Errorf("%s: %v", config, lints)
		}
		g.Close()
	}
}

// composeAddedTree is the tree of an agent composeRun adds.
func composeAddedTree(id string) string {
	if strings.HasPrefix(id, "dim") {
		return "lamp"
	}
	return "t"
}

// TestCompose_aSignalAtTheFirstStepIsTracedOnEveryShardsWorker: on shards
// of 2 workers, composeGame (a signal at the first step) gives the trace
// and output of one process.
func TestCompose_aSignalAtTheFirstStepIsTracedOnEveryShardsWorker(t *testing.T) {
	files := composeGame()
	files["config.toml"] = strings.Replace(files["config.toml"], "at = 2\n", "at = 0\n", 1)
	config := writeGame(t, files)
	wantTrace, wantOut := singleRun(t, config, 12)
	trace, out := clusterRun(t, config, 12, -2)
	if trace != wantTrace {
		t.Errorf("trace differs:\n%s", lineDiff(trace, wantTrace))
	}
	if out != wantOut {
		t.Errorf("output differs:\n%s", lineDiff(out, wantOut))
	}
}
