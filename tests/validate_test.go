package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidate_reportsEveryProblemOfAGame: a syntax error in one script and
// a misspelled action in a tree come out of one run, with positions.
func TestValidate_reportsEveryProblemOfAGame(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"config.toml": "[scripts]\npaths = [\"ai\"]\n\n[[trees]]\nname = \"guard\"\nfile = \"ai/guard.xml\"\n\n[[agents]]\ntree = \"guard\"\n",
		"ai/guard.xml": `<behaviorTree>
  <sequence id="root">
    <action id=".look" name="lookAround"/>
    <action id=".walk" name="patrl"/>
  </sequence>
</behaviorTree>`,
		"ai/actions.lua": `local bt = require("bt")
bt.action("lookAround", function(ctx) return bt.SUCCESS end)
bt.action("patrol", function(ctx) return bt.RUNNING end)`,
		"ai/broken.lua": "local bt = require(\"bt\")\nbt.action(\"x\", function(ctx)\n  return bt.SUCCESS +\nend)\n",
	}
	for name, src := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644)
	}
	r := run(t, dir, "validate")
	if r.code != 2 {
		t.Errorf("exit %d, want 2", r.code)
	}
	for _, want := range []string{
		"ai/broken.lua:4:3: syntax error near 'end'",
		`ai/guard.xml:4:5: rule root.walk: unknown action "patrl": not a built-in, nor registered by a script or plugin; did you mean "patrol"?`,
		"2 problems",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not contain %q:\n%s", want, r.stderr)
		}
	}
}

// TestValidate_theExampleGameIsValid checks the shipped config, plugin
// included, and lists where every name comes from.
func TestValidate_theExampleGameIsValid(t *testing.T) {
	r := run(t, "..", "validate", "-v")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"nav.moveTo             plugin nav", "wander                 lua scripts/ai/wander.lua:", "bt.wait                builtin", "scorer    restless               lua scripts/ai/grunt.lua:", "config.toml: ok"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout does not contain %q:\n%s", want, r.stdout)
		}
	}
}

// writeFiles writes name -> content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// mistakes is a game with the mistakes a new user makes that load and bind
// but are likely wrong.
var mistakes = map[string]string{
	"config.toml": `[scripts]
paths = ["ai"]
[[trees]]
name = "guard"
file = "ai/guard.xml"
[[agents]]
tree = "guard"
count = 2
[[signals]]
at = 2.0
signal = "OnIntrudor"
to = ["guard-1"]
[[signals]]
at = 0.1
signal = "OnIntruder"
to = ["guard-1"]
`,
	"ai/guard.xml": `<behaviorTree>
  <variables><variable name="Alert"/></variables>
  <signals><signal name="OnIntruder" variable="Alert" value="true"/></signals>
  <choice>
    <action id="chase" name="chase">
      <parameter name="chase.sped">4</parameter>
      <condition>Alert</condition>
    </action>
    <action id="look" name="bt.lua"><parameter name="lua.run">-- TODO: look around</parameter></action>
    <action name="bt.wait"><parameter name="wait.seconds">1</parameter></action>
    <action id="tell" name="bt.signal.send"><parameter name="signal.name">OnIntrudr</parameter></action>
    <action id="idle" name="idle"><parameter name="idle.mood">calm</parameter></action>
  </choice>
  <gates><gate name="door" users="1"/></gates>
</behaviorTree>`,
	"ai/chase.lua": `local bt = require("bt")
bt.action("chase", {
  params = {"chase.speed"},
  run = function(ctx, params)
    local speed = params:number("chase.speed", 3)
    ctx:send("guard-2", "OnIntrudr")
    ctx:setVar("Alret", true)
    ctx:gateSlot("dor")
    return bt.RUNNING
  end,
})
bt.action("idle", function(ctx, params) return bt.RUNNING end)
`,
}

// TestValidate_parallelWithoutAnID: a parallel is the current rule while
// its lanes run, so a parallel without an id is named like other rules
// that can be current when a save is made.
func TestValidate_parallelWithoutAnID(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": "[run]\nsteps = 3\n[[trees]]\nname = \"t\"\nfile = \"t.xml\"\n[[agents]]\ntree = \"t\"\n",
		"t.xml": `<behaviorTree><sequence id="root">
  <parallel>
    <action id="a" name="bt.wait"><parameter name="wait.seconds">1</parameter></action>
    <action id="b" name="bt.wait"><parameter name="wait.seconds">2</parameter></action>
  </parallel>
</sequence></behaviorTree>`,
	})
	r := run(t, dir, "validate")
	want := "warning: t.xml:2:3: rule parallel@t.xml:2:3 has no id, but it is a parallel: the current rule while its lanes run: saving the game while it is the current rule fails; give it an id\n"
	if r.code != 0 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "config.toml: ok, with 1 warning\n") {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestValidate_lintsNameEachMistake: each mistake is a warning with its
// position and a "did you mean"; validate exits 0, and 2 with -strict.
func TestValidate_lintsNameEachMistake(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, mistakes)
	r := run(t, dir, "validate")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"warning: ai/guard.xml:4:3: rule choice@ai/guard.xml:4:3 has no id, but it is the root: the current rule after the tree finished: saving the game while it is the current rule fails; give it an id\n",
		"warning: ai/guard.xml:10:5: rule action@ai/guard.xml:10:5 has no id, but action \"bt.wait\" can return running: saving the game while it is the current rule fails; give it an id\n",
		`warning: ai/guard.xml:5:5: rule chase: parameter "chase.sped" is read by nothing: not by action "chase", condition "Alert" (they read chase.speed); did you mean "chase.speed"?` + "\n",
		"warning: ai/guard.xml:9:5: rule look: lua.run holds no Lua statement (only blanks and comments): the rule does nothing\n",
		`warning: ai/guard.xml:11:5: rule tell: bt.signal.send sends signal "OnIntrudr", which no tree declares or waits for, no handler handles and no script reads: it has no effect; did you mean "OnIntruder"?` + "\n",
		`warning: ai/guard.xml:12:5: rule idle: parameter "idle.mood" is read by nothing: not by action "idle"` + "\n",
		`warning: ai/chase.lua:6: ctx:send sends signal "OnIntrudr", which no tree declares or waits for, no handler handles and no script reads: it has no effect; did you mean "OnIntruder"?` + "\n",
		`warning: ai/chase.lua:7: ctx:setVar("Alret"): no tree declares a variable "Alret", so the call fails whenever it runs; did you mean "Alert"?` + "\n",
		`warning: ai/chase.lua:8: ctx:gateSlot("dor"): no tree declares a gate "dor", so the call fails whenever it runs; did you mean "door"?` + "\n",
		`warning: config.toml:11: signals[0] schedules signal "OnIntrudor", which no tree declares or waits for, no handler handles and no script reads: it has no effect; did you mean "OnIntruder"?` + "\n",
		"config.toml: ok, with 10 warnings\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r = run(t, dir, "validate", "-strict"); r.code != 2 || !strings.Contains(r.stderr, "config.toml: 10 warnings, errors with -strict") {
		t.Errorf("-strict: exit %d\n%s", r.code, r.stderr)
	}
}

// TestRun_setVarTypoSaysDidYouMean: the same typo at run time fails the
// step with a "did you mean".
func TestRun_setVarTypoSaysDidYouMean(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, mistakes)
	r := run(t, dir, "run", "-steps", "1")
	want := `ai/chase.lua:7: ctx:setVar("Alret"): the tree ai/guard.xml declares no variable "Alret"; did you mean "Alert"?`
	if !strings.Contains(r.stdout, want) {
		t.Errorf("output lacks %s:\n%s", want, r.stdout)
	}
}

// TestValidate_aBrokenWorldScriptIsOneProblem: a syntax error in the world
// script and in a script other scripts require is reported once each, with
// no "module not found" or "unknown action" for what they would provide.
func TestValidate_aBrokenWorldScriptIsOneProblem(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": "[scripts]\npaths = [\"ai\"]\nworld = \"ai/world.lua\"\n[[trees]]\nname = \"t\"\nfile = \"ai/t.xml\"\n[[agents]]\ntree = \"t\"\n",
		"ai/t.xml":    `<behaviorTree><sequence id="root"><action id=".a" name="spot"/><action id=".b" name="walk"/></sequence></behaviorTree>`,
		"ai/world.lua": `local bt = require("bt")
local world = {
bt.action("spot", function() return bt.SUCCESS end)
function world.tick(game) end
return world`,
		"ai/steer.lua": "local steer = {}\nfunction steer.go( end\nreturn steer\n",
		"ai/walk.lua":  "local bt = require('bt')\nlocal steer = require('steer')\nbt.action('walk', function() return bt.SUCCESS end)\n",
	})
	r := run(t, dir, "validate")
	if r.code != 2 {
		t.Errorf("exit %d", r.code)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ai/steer.lua:2:") || !strings.HasPrefix(lines[1], "ai/world.lua:4:") || lines[2] != "2 problems" {
		t.Errorf("want the two syntax errors only:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "world world") || strings.Contains(r.stderr, "not found") || strings.Contains(r.stderr, "unknown action") {
		t.Errorf("false problems:\n%s", r.stderr)
	}
}

// TestValidate_listsBuiltinParameters: validate -v lists every action and
// condition with its parameters.
func TestValidate_listsBuiltinParameters(t *testing.T) {
	r := run(t, "..", "validate", "-v")
	for _, want := range []string{
		"  action    bt.signal.send         builtin\n              signal.name (signal name, required): the signal\n              signal.to (agent id, self or all, default self): ",
		"              timestamp.orNeverSet (boolean, default false): ",
		"  condition T.moreThan             declared by the tree\n              T.moreThan (seconds, required): ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestValidate_treeAloneRunsTheLintsThatNeedNoScripts: `validate -tree` on a
// lone file warns of a running rule without an id, a parameter the built-ins
// do not read and empty inline Lua, leaves names it does not know unchecked,
// and exits 2 with -strict.
func TestValidate_treeAloneRunsTheLintsThatNeedNoScripts(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"t.xml": `<behaviorTree><sequence id="root">
  <running/>
  <action id="pause" name="bt.wait"><parameter name="wait.second">1</parameter><parameter name="wait.seconds">1</parameter></action>
  <action id="look" name="bt.lua"><parameter name="lua.run">-- later</parameter></action>
  <action id="move" name="moveTo"><parameter name="move.sped">3</parameter></action>
</sequence></behaviorTree>`,
	})
	r := run(t, dir, "validate", "-tree", "t.xml")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"warning: t.xml:2:3: rule running@t.xml:2:3 has no id, but it returns running: saving the game while it is the current rule fails; give it an id\n",
		`warning: t.xml:3:3: rule pause: parameter "wait.second" is read by nothing: not by action "bt.wait" (they read wait.seconds); did you mean "wait.seconds"?` + "\n",
		"warning: t.xml:4:3: rule look: lua.run holds no Lua statement (only blanks and comments): the rule does nothing\n",
		"t.xml: ok (5 rules, 0 variables, 0 signals, 0 timestamps)\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "move.sped") {
		t.Errorf("a parameter of an action the file does not define was checked:\n%s", r.stdout)
	}
	if r = run(t, dir, "validate", "-strict", "-tree", "t.xml"); r.code != 2 || !strings.Contains(r.stderr, "t.xml: 3 warnings, errors with -strict") {
		t.Errorf("-strict: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestValidate_handlersAndStimuliOfSignalsNobodySends: a signal handler,
// and a script's ctx:stimulus or ctx:forget, for a signal that no tree
// declares or waits for and nothing sends is a warning with "did you mean";
// an S.held of a signal no tree declares is an unknown condition.
func TestValidate_handlersAndStimuliOfSignalsNobodySends(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"config.toml": "[scripts]\npaths = [\"ai\"]\n[[trees]]\nname = \"medic\"\nfile = \"ai/medic.xml\"\n[[agents]]\ntree = \"medic\"\n",
		"ai/medic.xml": `<behaviorTree>
  <signals><signal name="NeedHeal" expires="4"/><signal name="Attacked"/></signals>
  <action id="go" name="goTo"><condition>NeedHeal.held</condition></action>
</behaviorTree>`,
		"ai/medic.lua": `local bt = require("bt")
bt.action("goTo", {
  run = function(ctx)
    local call = ctx:stimulus("NeedHeal")
    local old = ctx:stimulus("NeedHeel")
    ctx:forget("Atacked")
    ctx:send("medic-1", "Shout")
    return bt.RUNNING
  end,
  on = { Attackd = function(ctx) return bt.FAILURE end, Shout = function(ctx) end },
})
`,
	}
	writeFiles(t, dir, files)
	r := run(t, dir, "validate")
	for _, want := range []string{
		`warning: ai/medic.lua:5: ctx:stimulus reads the stimulus of signal "NeedHeel", which no tree declares or waits for and nothing sends: the agent never holds one; did you mean "NeedHeal"?` + "\n",
		`warning: ai/medic.lua:6: ctx:forget reads the stimulus of signal "Atacked", which no tree declares or waits for and nothing sends: the agent never holds one; did you mean "Attacked"?` + "\n",
		`warning: ai/medic.lua:2: action "goTo" has a handler for signal "Attackd", which no tree declares or waits for and nothing sends: it never runs; did you mean "Attacked"?` + "\n",
		"config.toml: ok, with 3 warnings\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
	files["ai/medic.xml"] = strings.Replace(files["ai/medic.xml"], "NeedHeal.held", "NeedHeel.held", 1)
	writeFiles(t, dir, files)
	r = run(t, dir, "validate")
	if want := `ai/medic.xml:3:31: rule go: unknown condition "NeedHeel.held": not a declared variable, a timestamp condition (T.set, T.lessThan, T.moreThan), a gate condition (G.open, G.full), a signal condition (S.held), a built-in, nor registered by a script or plugin; did you mean "NeedHeal.held"?`; r.code != 2 || !strings.Contains(r.stderr+r.stdout, want) {
		t.Errorf("exit %d, want 2 and %s:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}
