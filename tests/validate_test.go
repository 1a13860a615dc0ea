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
