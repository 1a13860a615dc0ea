// Package tests drives the real btrun binary: it is built once, then run on
// fixture configs whose traces are compared with golden files.
package tests

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden traces under testdata/golden")

// btrun is the path of the binary built by TestMain.
var btrun string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "btrun-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	btrun = filepath.Join(dir, "btrun")
	build := exec.Command("go", "build", "-o", btrun, "../cmd/btrun")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building btrun:", err)
		os.Exit(1)
	}
	// Every btrun the tests start, and what it starts, makes its temporary
	// folders here, so that nothing a killed process leaves outlives the
	// tests (short: plugins make Unix sockets below it).
	tmp := filepath.Join(dir, "t")
	if err := os.Mkdir(tmp, 0o700); err == nil {
		os.Setenv("TMPDIR", tmp)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// command is the btrun command with args.
func command(args ...string) *exec.Cmd { return exec.Command(btrun, args...) }

// run runs btrun with args in dir ("" = this folder).
func run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := command(args...)
	cmd.Dir = dir
	return runCmd(t, cmd)
}

// runCmd runs cmd (a btrun command): its output, error output and exit
// code; it fails t if cmd does not start.
func runCmd(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errOut.String(), code}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./tests -update writes it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s: %s", path, firstDifference(got, string(want)))
	}
}

func fixture(name string) string { return filepath.Join("testdata", "fixtures", name, "config.toml") }

// TestGolden_fixtureTraces runs each fixture config, and the example game
// for 300 steps, and compares their traces. alarm and failing use nothing
// beyond Drag[en]gine's stepping: their traces have not changed since
// interruption and choice orders were added.
func TestGolden_fixtureTraces(t *testing.T) {
	configs := map[string][]string{
		"alarm":     {"-config", fixture("alarm")},
		"failing":   {"-config", fixture("failing")},
		"interrupt": {"-config", fixture("interrupt")},
		"parallel":  {"-config", fixture("parallel")},
		"gates":     {"-config", fixture("gates")},
		"signals":   {"-config", fixture("signals")},
		"slots":     {"-config", fixture("slots")},
		// -explain: why each step went as it did (conditions and what they
		// read, scores and orders, cooldown refusals).
		"interrupt-explain": {"-config", fixture("interrupt"), "-explain"},
		"example":           {"-config", "../config.toml", "-steps", "300"},
	}
	for _, name := range []string{"alarm", "failing", "interrupt", "interrupt-explain", "parallel", "gates", "signals", "slots", "example"} {
		t.Run(name, func(t *testing.T) {
			r := run(t, "", append(append([]string{"run"}, configs[name]...), "-trace", "-", "-quiet")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			golden(t, name+".trace", r.stdout)
		})
	}
}

// TestRun_isDeterministic: the same config and seed give byte-identical traces.
func TestRun_isDeterministic(t *testing.T) {
	for _, cfg := range []string{fixture("alarm"), "../config.toml"} {
		if _, err := os.Stat(cfg); err != nil {
			continue
		}
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
		for _, out := range []string{a, b} {
			if r := run(t, "", "run", "-config", cfg, "-trace", out, "-quiet", "-steps", "200"); r.code != 0 {
				t.Fatalf("%s: exit %d: %s", cfg, r.code, r.stderr)
			}
		}
		da, _ := os.ReadFile(a)
		db, _ := os.ReadFile(b)
		if len(da) == 0 || !bytes.Equal(da, db) {
			t.Errorf("%s: two runs differ (%d and %d bytes)", cfg, len(da), len(db))
		}
	}
}

// TestRun_signalScheduleTiming: a signal at 0.25 s with dt 0.1 is delivered
// at step 3 (t = 0.3), before the agent's step line, followed by the
// variable and timestamp it sets.
func TestRun_signalScheduleTiming(t *testing.T) {
	r := run(t, "", "run", "-config", fixture("alarm"), "-trace", "-", "-quiet", "-steps", "4")
	lines := strings.Split(r.stdout, "\n")
	want := `{"step":3,"time":0.3,"agent":"sentry-1","signal":"Alarm","from":"schedule"}`
	for i, l := range lines {
		if l == want {
			after := strings.Join(lines[i+1:i+4], "\n")
			if want := `{"step":3,"time":0.3,"agent":"sentry-1","var":"Alert","value":true}
{"step":3,"time":0.3,"agent":"sentry-1","stamp":"Alarmed","set":true}
{"step":3,"time":0.3,"agent":"sentry-1","runs"`; !strings.HasPrefix(after, want) {
				t.Errorf("the signal line is not followed by its changes and sentry-1's step 3:\n%s", after)
			}
			for _, before := range lines[:i] {
				if strings.Contains(before, `"signal"`) {
					t.Errorf("a signal was delivered before step 3: %s", before)
				}
			}
			return
		}
	}
	t.Errorf("no line %s in:\n%s", want, r.stdout)
}

// TestRun_onFailure: "restart" keeps stepping an agent whose tree failed or
// errored; "stop" stops it.
func TestRun_onFailure(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "fixtures", "failing"), dir)
	cfg := filepath.Join(dir, "config.toml")

	r := run(t, "", "run", "-config", cfg, "-trace", "-", "-quiet")
	if n := strings.Count(r.stdout, `"agent":"flaky-1","runs"`); n != 8 {
		t.Errorf("restart: flaky-1 stepped %d times, want 8", n)
	}
	if n := strings.Count(r.stdout, `"agent":"spinner-1","runs"`); n != 8 {
		t.Errorf("restart: spinner-1 stepped %d times, want 8", n)
	}

	data, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, bytes.Replace(data, []byte(`on_failure = "restart"`), []byte(`on_failure = "stop"`), 1), 0o644)
	r = run(t, "", "run", "-config", cfg, "-trace", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, `"agent":"flaky-1","runs"`); n != 2 {
		t.Errorf("stop: flaky-1 stepped %d times, want 2 (until its tree failed)", n)
	}
	if n := strings.Count(r.stdout, `"agent":"spinner-1","runs"`); n != 2 {
		t.Errorf("stop: spinner-1 stepped %d times, want 2 (until its run-away error)", n)
	}
	if !strings.Contains(r.stderr, "flaky-1 tree failed (stopped)") || !strings.Contains(r.stderr, "stopped") {
		t.Errorf("people's output (stderr with -trace -) does not say the agents stopped:\n%s", r.stderr)
	}
}

// TestExitCodes checks every exit code of SPEC §7.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "fixtures", "alarm"), dir)
	badTree := filepath.Join(dir, "bad-tree.toml")
	os.WriteFile(badTree, []byte("[[trees]]\nname = \"x\"\nfile = \"ai/broken.xml\"\n[[agents]]\ntree = \"x\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ai", "broken.xml"), []byte("<behaviorTree><actoin/></behaviorTree>"), 0o644)
	badKey := filepath.Join(dir, "bad-key.toml")
	data, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	os.WriteFile(badKey, bytes.Replace(data, []byte("dt = 0.1"), []byte("dt = 0.1\ndtt = 3"), 1), 0o644)

	notPlugin := filepath.Join(dir, "not-a-plugin.sh")
	os.WriteFile(notPlugin, []byte("#!/bin/sh\necho hello\n"), 0o755)
	badPlugin := filepath.Join(dir, "bad-plugin.toml")
	os.WriteFile(badPlugin, append(append([]byte(nil), data...), []byte("\n[[plugins]]\nname = \"fake\"\npath = \"not-a-plugin.sh\"\n")...), 0o644)

	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"plugin cannot be started", []string{"run", "-config", badPlugin}, 1, "plugin fake"},
		{"ok", []string{"run", "-config", filepath.Join(dir, "config.toml"), "-quiet"}, 0, ""},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown flag", []string{"run", "-stepz", "3"}, 2, "flag provided but not defined: -stepz"},
		{"missing config", []string{"run", "-config", filepath.Join(dir, "nope.toml")}, 2, "cannot read the config"},
		{"unknown config key", []string{"run", "-config", badKey}, 2, `bad-key.toml:6: unknown key "run.dtt"`},
		{"bad tree", []string{"run", "-config", badTree}, 2, "ai/broken.xml:1:15: unknown tag <actoin>"},
		{"bad tree file", []string{"tree", filepath.Join(dir, "ai", "broken.xml")}, 2, "unknown tag <actoin>"},
		{"trace cannot be written", []string{"run", "-config", filepath.Join(dir, "config.toml"), "-trace", filepath.Join(dir, "no", "such", "dir", "t.jsonl")}, 1, "cannot write the trace"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, "", c.args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, c.code, r.stderr)
			}
			if !strings.Contains(r.stderr, c.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", c.stderr, r.stderr)
			}
		})
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
