package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_helpExitsZero: -h of every command prints its usage on stdout and
// exits 0, as btrun -h does.
func TestCLI_helpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"run", "-h"}, {"validate", "-h"}, {"tree", "-h"}, {"convert", "-h"}, {"bench", "-h"}, {"plugin", "-h"}, {"version", "-h"}, {"run", "-config", "x.toml", "--help"}} {
		r := run(t, "", args...)
		if r.code != 0 || !strings.Contains(r.stdout, "usage: btrun") {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestCLI_usageErrors: a negative -steps and an extra argument are usage
// errors (exit 2) that say what is wrong.
func TestCLI_usageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-config", fixture("alarm"), "-steps", "-5"}, "btrun run: -steps -5: the number of steps must be 0 or more"},
		{[]string{"run", "-config", fixture("alarm"), "extra"}, `btrun run: unexpected argument "extra"`},
		{[]string{"run", "config.toml"}, `btrun run: unexpected argument "config.toml" (a config is given with -config config.toml)`},
		{[]string{"run", "-config", fixture("alarm"), "x", "-quiet"}, `btrun run: unexpected argument "x" (flags must come before other arguments)`},
		{[]string{"validate", "-config", fixture("alarm"), "more"}, `btrun validate: unexpected argument "more"`},
		{[]string{"tree"}, "btrun tree: missing FILE.xml"},
		{[]string{"tree", "a.xml", "b.xml"}, `btrun tree: unexpected argument "b.xml"`},
		{[]string{"bench", "-steps", "0"}, "btrun bench: -agents 10000 -steps 0: both must be 1 or more"},
	} {
		r := run(t, "", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, r.code, c.want, r.stderr)
		}
	}
}

// TestCLI_zeroSteps: -steps 0 runs nothing and says so.
func TestCLI_zeroSteps(t *testing.T) {
	r := run(t, "", "run", "-config", fixture("alarm"), "-steps", "0")
	if r.code != 0 || r.stdout != "btrun: no steps run (0 steps asked for); 3 agents at step 0 (t=0.00 s)\n" {
		t.Errorf("exit %d:\n%q", r.code, r.stdout)
	}
}

// TestCLI_version: btrun version names the version, the toolchain and the
// plugin protocol.
func TestCLI_version(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := run(t, "", args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "btrun 0.") || !strings.Contains(r.stdout, "plugin protocol 1") {
			t.Errorf("%v: exit %d: %s%s", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestCLI_treePrintsASubtreeFile: a file with several top-level rules is
// printed as a <subtree> includes it.
func TestCLI_treePrintsASubtreeFile(t *testing.T) {
	r := run(t, "..", "tree", "scripts/ai/leg.xml")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"scripts/ai/leg.xml holds 2 top-level rules: a subtree file, shown as a <subtree> includes it\n",
		"  sequence subtree@scripts/ai/leg.xml:",
		"    action go  name=walkTo  (scripts/ai/leg.xml:5:3)",
		"    action handOver  name=bt.wait",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestCLI_quietHidesLuaPrint: print() is people's output, which -quiet
// leaves out.
func TestCLI_quietHidesLuaPrint(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": "[run]\nsteps = 2\n[scripts]\npaths = [\"ai\"]\n[[trees]]\nname = \"t\"\nfile = \"ai/t.xml\"\n[[agents]]\ntree = \"t\"\n",
		"ai/t.xml":    `<behaviorTree><action id="root" name="say"/></behaviorTree>`,
		"ai/say.lua":  "local bt = require('bt')\nbt.action('say', function(ctx) print('hello from', ctx.id) return bt.RUNNING end)\n",
	})
	if r := run(t, dir, "run"); !strings.Contains(r.stdout, "hello from\tt-1") {
		t.Errorf("without -quiet: %s", r.stdout)
	}
	if r := run(t, dir, "run", "-quiet"); strings.Contains(r.stdout+r.stderr, "hello") || !strings.Contains(r.stdout, "btrun: steps 1..2") {
		t.Errorf("-quiet: %s%s", r.stdout, r.stderr)
	}
}

// TestCLI_quietKeepsPluginBuildProgress: the first build of a plugin says
// so, with -quiet too.
func TestCLI_quietKeepsPluginBuildProgress(t *testing.T) {
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Skip("no go command")
	}
	cmd := command("run", "-config", fixture("crashy"), "-quiet", "-steps", "1")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(t.TempDir(), "cache"), "GOCACHE="+strings.TrimSpace(string(gocache)))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"btrun: plugin crashy: building github.com/btrun/btrun/tests/testdata/plugins/crashy (in ",
		"); the first build can take a minute, later runs use the cached build\n",
		"btrun: plugin crashy: built in ",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
