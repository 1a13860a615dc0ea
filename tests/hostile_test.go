package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Hostile input and runaway scripts, through the real binary: each case
// used to crash, hang or exhaust the machine. Each must end with a clear
// error (with its position where it has one), without hanging, and no
// panic.

// hangGuard is how long a case may run before it counts as hung: a quarter
// of an hour, which a busy machine does not reach (a million bad signals
// take 10 s of CPU; at a load of 20 on 2 cores that was over 5 minutes).
// What a case costs is measured by btrun bench and the benchmarks, never
// judged here.
const hangGuard = 15 * time.Minute

// runWithin runs btrun with args in dir and fails the test if it has not
// ended within d (it is killed then).
func runWithin(t *testing.T, d time.Duration, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, btrun, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("btrun %s: still running after %v", strings.Join(args, " "), d)
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r := result{out.String(), errOut.String(), code}
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "fatal error:") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("btrun %s panicked:\n%.2000s", strings.Join(args, " "), r.stderr)
	}
	return r
}

// hostileGame makes a game folder: testdata/hostile/tree.xml as tree "t"
// (one action "act"), the given script as ai/act.lua, agents agents and
// the extra [run] keys; it returns the config's path.
func hostileGame(t *testing.T, script string, agents int, runKeys string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ai"), 0o755)
	for from, to := range map[string]string{"tree.xml": "ai/tree.xml", script: "ai/act.lua"} {
		data, err := os.ReadFile(filepath.Join("testdata", "hostile", from))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, to), data, 0o644)
	}
	cfg := filepath.Join(dir, "config.toml")
	if !strings.Contains(runKeys, "steps =") {
		runKeys += "\nsteps = 5"
	}
	text := "[run]\ndt = 0.1\n" + runKeys + "\n[scripts]\npaths = [\"ai\"]\n\n[[trees]]\nname = \"t\"\nfile = \"ai/tree.xml\"\n\n[[agents]]\ntree = \"t\"\ncount = " + strconv.Itoa(agents) + "\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// traceErrors returns the "error" texts of a trace's step lines, checking
// that every line is whole JSON.
func traceErrors(t *testing.T, trace string) []string {
	t.Helper()
	var errs []string
	for _, l := range strings.Split(strings.TrimSuffix(trace, "\n"), "\n") {
		var line struct {
			Result string  `json:"result"`
			Error  string  `json:"error"`
			Time   float64 `json:"time"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("trace line is not JSON (%v): %.300s", err, l)
		}
		if line.Result == "error" {
			errs = append(errs, line.Error)
		}
	}
	return errs
}

// TestHostile_files: devices, named pipes and files too big, wherever btrun
// reads a file.
func TestHostile_files(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "fixtures", "alarm"), dir)
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.toml")
	data, _ := os.ReadFile(cfg)
	pipeTree := filepath.Join(dir, "pipe-tree.toml")
	os.WriteFile(pipeTree, bytes.Replace(data, []byte(`file = "ai/sentry.xml"`), []byte(`file = "ai/with-pipe.xml"`), 1), 0o644)
	os.WriteFile(filepath.Join(dir, "ai", "with-pipe.xml"), []byte("<behaviorTree>\n  <sequence id='root'>\n    <subtree>../pipe</subtree>\n  </sequence>\n</behaviorTree>\n"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"tree /dev/zero", []string{"tree", "/dev/zero"}, 2, "cannot read tree file: a character device, not a regular file; a tree file must be a regular file"},
		{"tree /dev/urandom", []string{"tree", "/dev/urandom"}, 2, "cannot read tree file: a character device"},
		{"tree a named pipe", []string{"tree", fifo}, 2, "pipe: cannot read tree file: a named pipe, not a regular file"},
		{"config /dev/zero", []string{"run", "-config", "/dev/zero"}, 2, "/dev/zero: cannot read the config: a character device, not a regular file; a config must be a regular file"},
		{"config a named pipe", []string{"validate", "-config", fifo}, 2, "cannot read the config: a named pipe"},
		{"subtree a named pipe", []string{"validate", "-config", pipeTree}, 2, "ai/with-pipe.xml:3:5: cannot read subtree file pipe: a named pipe, not a regular file"},
		{"load /dev/urandom", []string{"run", "-config", cfg, "-load", "/dev/urandom", "-quiet"}, 1, "/dev/urandom: a character device, not a regular file; a save file must be a regular file"},
		{"load a named pipe", []string{"run", "-config", cfg, "-load", fifo, "-quiet"}, 1, "a named pipe, not a regular file"},
		{"save over /dev/null", []string{"run", "-config", cfg, "-save", "/dev/null", "-quiet"}, 1, "cannot save to /dev/null: it is a character device, not a regular file; a save replaces only a regular file (or creates one)"},
		{"save over a folder", []string{"run", "-config", cfg, "-save", dir, "-quiet"}, 1, "it is a folder, not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runWithin(t, hangGuard, dir, c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d (want %d); stderr:\n%.1000s\nwant it to contain %q", r.code, c.code, r.stderr, c.want)
			}
		})
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("/dev/null is no longer a character device: %v %v", fi.Mode(), err)
	}
}

// TestHostile_staleSaveTemporariesAreRemoved: runs killed while saving left
// .NAME.tmp-* files; the next save removes those of dead processes.
func TestHostile_staleSaveTemporariesAreRemoved(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "fixtures", "alarm"), dir)
	dead := exec.Command("true")
	dead.Run()
	stale := []string{".run.save.tmp-" + strconv.Itoa(dead.Process.Pid) + "-ab12", ".run.save.tmp-3849205817"}
	for _, s := range stale {
		os.WriteFile(filepath.Join(dir, s), []byte("half a save"), 0o644)
	}
	r := runWithin(t, hangGuard, dir, "run", "-config", "config.toml", "-save", "run.save", "-quiet")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".run.save.tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestHostile_config: counts, durations and dt that would exhaust memory,
// panic or make times that are not numbers, and a million bad entries.
func TestHostile_config(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "fixtures", "alarm"), dir)
	data, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	variant := func(name, old, new string) string {
		p := filepath.Join(dir, name+".toml")
		os.WriteFile(p, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644)
		return p
	}
	var million strings.Builder
	million.Write(data)
	for range 1_000_000 {
		million.WriteString("[[signals]]\nat = -1\nsignal = \"S\"\nto = [\"all\"]\n")
	}
	millionPath := filepath.Join(dir, "million.toml")
	os.WriteFile(millionPath, []byte(million.String()), 0o644)
	for _, c := range []struct {
		name, config string
		args         []string
		want         []string
	}{
		{"a billion agents", variant("billion", "count = 3", "count = 1000000000"), nil,
			[]string{"billion.toml:13: agents[0]: count = 1000000000: a game has at most 1000000 agents"}},
		{"the largest count", variant("maxint", "count = 3", "count = 9223372036854775807"), nil,
			[]string{"agents[0]: count = 9223372036854775807: a game has at most 1000000 agents"}},
		{"a billion agents in validate", variant("billion2", "count = 3", "count = 1000000000"), []string{"validate"},
			[]string{"count = 1000000000: a game has at most 1000000 agents"}},
		{"lua_call_timeout 1ns", variant("ns", "dt = 0.1", "dt = 0.1\nlua_call_timeout = \"1ns\""), nil,
			[]string{`ns.toml:6: run.lua_call_timeout = "1ns": must be from 1ms to 1h0m0s`}},
		{"dt 1e300", variant("dt", "dt = 0.1", "dt = 1e300"), nil,
			[]string{"dt.toml:5: run.dt = 1e+300: must be a number of seconds from 1e-06 to 3600"}},
		{"type errors with other problems", variant("types", "dt = 0.1", "dt = 0.1\non_failure = \"halt\"\nplugin_call_timeout = \"100\"\nrunaway_limit = \"many\""), nil,
			[]string{`types.toml:6: run.on_failure = "halt": expected "restart" or "stop"`,
				`types.toml:7: run.plugin_call_timeout = "100": not a duration`,
				`types.toml:8: run.runaway_limit = "many": expected a whole number, not a string`, "3 problems"}},
		{"a million bad signals", millionPath, nil,
			[]string{"million.toml:15: 1000003 [[signals]] entries: a schedule holds at most 1000000",
				"million.toml:30: signals[3]: at = -1: must be a time in seconds, 0 or more",
				"million.toml: ... and 999901 more problems (only the first 100 are listed)", "1000001 problems"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := "run"
			if c.args != nil {
				cmd = c.args[0]
			}
			r := runWithin(t, hangGuard, dir, cmd, "-config", c.config)
			if r.code != 2 {
				t.Errorf("exit %d, want 2", r.code)
			}
			for _, w := range c.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not contain %q:\n%.2000s", w, r.stderr)
				}
			}
		})
	}
	r := runWithin(t, hangGuard, dir, "bench", "-config", "config.toml", "-agents", "1000000000")
	if r.code != 2 || !strings.Contains(r.stderr, "-agents is at most 1000000") {
		t.Errorf("bench -agents 1000000000: exit %d: %s", r.code, r.stderr)
	}
}

// TestHostile_luaSources: sources that overflowed gopher-lua's parser's
// stack (a fatal error) or kept it busy for minutes are load errors at
// their position.
func TestHostile_luaSources(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"nested tables", "local t = " + strings.Repeat("{", 100000) + strings.Repeat("}", 100000), "ai/act.lua:1:211: code nested more than 200 levels deep"},
		{"not chain", "local x = " + strings.Repeat("not ", 100000) + "true", "ai/act.lua:1:811: code nested more than 200 levels deep"},
		{"nested blocks", strings.Repeat("if true then\n", 20000) + strings.Repeat("end\n", 20000), "ai/act.lua:201:1: code nested more than 200 levels deep"},
		{"long .. chain", "local s = 'a'" + strings.Repeat(" .. 'a'", 100000), "ai/act.lua:1:7015: an expression chains more than 1000 operators"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := hostileGame(t, "rep.lua", 1, "")
			os.WriteFile(filepath.Join(filepath.Dir(cfg), "ai", "act.lua"), []byte(c.src), 0o644)
			r := runWithin(t, hangGuard, "", "validate", "-config", cfg)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d; stderr:\n%.1000s\nwant %q", r.code, r.stderr, c.want)
			}
		})
	}
}

// TestHostile_runawayScripts: scripts that exhausted memory or hung the
// game now fail their step with an error at their line, and the run goes
// on to its end.
func TestHostile_runawayScripts(t *testing.T) {
	for _, c := range []struct {
		name, script, runKeys, want string
		agents                      int
	}{
		{"catastrophic backtracking", "backtrack.lua", "", "ai/act.lua:5: script ran longer than the call timeout (100ms)", 1},
		{"string.rep of a terabyte", "rep.lua", "", "ai/act.lua:4: string.rep would make a string of 1099511627776 bytes or more; a string may be at most 32 MB", 1},
		{"string.format of a huge result", "format.lua", "", "ai/act.lua:4: string.format would make a string of", 1},
		{"a table that only grows", "hoard.lua", "lua_memory = \"8MB\"\nsteps = 60", "the Lua state holds 8 MB or more, over its memory budget of 8 MB (run.lua_memory)", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := hostileGame(t, c.script, c.agents, c.runKeys)
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			r := runWithin(t, hangGuard, "", "run", "-config", cfg, "-trace", trace, "-quiet")
			if r.code != 0 {
				t.Fatalf("exit %d: %.2000s", r.code, r.stderr)
			}
			data, _ := os.ReadFile(trace)
			errs := traceErrors(t, string(data))
			if len(errs) == 0 || !strings.Contains(errs[len(errs)-1], c.want) {
				t.Errorf("%d errors in the trace; the last: %.500v\nwant it to contain %q", len(errs), errs, c.want)
			}
			if !strings.Contains(r.stdout, "btrun: steps 1..") {
				t.Errorf("the run did not end with its summary:\n%.1000s", r.stdout)
			}
		})
	}
}

// TestHostile_broadcastsAreBounded: 1,000 agents each broadcasting 1,000
// signals a step (a billion deliveries; over 60 s a step before) end their
// steps with an error at their second broadcast, fast.
func TestHostile_broadcastsAreBounded(t *testing.T) {
	cfg := hostileGame(t, "broadcast.lua", 1000, "steps = 2")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	start := time.Now()
	r := runWithin(t, hangGuard, "", "run", "-config", cfg, "-trace", trace, "-quiet")
	t.Logf("took %v", time.Since(start))
	if r.code != 0 {
		t.Fatalf("exit %d: %.2000s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(trace)
	errs := traceErrors(t, string(data))
	want := `bt.broadcast("Ping"): game: agent t-1 sends a second signal to all agents in one step (signal "Ping"); an agent may send one signal to all a step`
	if len(errs) != 2000 || !strings.Contains(errs[0], want) || !strings.Contains(errs[0], "ai/act.lua:5:") {
		t.Errorf("%d errors; the first: %.500v\nwant 2000 containing ai/act.lua:5: ... %s", len(errs), errs, want)
	}
}

// TestHostile_directSignalsAreBounded: an agent sending signal after signal
// to another agent ends its step with an error at the one over the limit;
// the signals before it are delivered.
func TestHostile_directSignalsAreBounded(t *testing.T) {
	cfg := hostileGame(t, "chatter.lua", 3, "steps = 2")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	r := runWithin(t, hangGuard, "", "run", "-config", cfg, "-trace", trace, "-quiet")
	if r.code != 0 {
		t.Fatalf("exit %d: %.2000s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(trace)
	errs := traceErrors(t, string(data))
	want := `game: agent t-2 sends more than 256 signals to other agents in one step (signal "Ping" to "t-1")`
	// t-1 sends to itself: those apply at once and are not counted.
	if len(errs) != 4 || !strings.Contains(strings.Join(errs, "\n"), want) || !strings.Contains(errs[0], "ai/act.lua:5:") {
		t.Errorf("%d errors: %.1000v\nwant 4 (t-2 and t-3, two steps), containing ai/act.lua:5: ... %s", len(errs), errs, want)
	}
}

// TestHostile_longErrorTextsAreCut: a 3 MB error() message at every step
// shows cut in the trace and the output, and whole once on stderr.
func TestHostile_longErrorTextsAreCut(t *testing.T) {
	cfg := hostileGame(t, "shout.lua", 1, "steps = 20")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	r := runWithin(t, hangGuard, "", "run", "-config", cfg, "-trace", trace)
	if r.code != 0 {
		t.Fatalf("exit %d: %.2000s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(trace)
	errs := traceErrors(t, string(data))
	if len(errs) != 20 || len(data) > 20*3000 {
		t.Errorf("%d errors, %d bytes of trace; want 20 errors in at most 60 KB", len(errs), len(data))
	}
	if !strings.Contains(errs[0], "ai/act.lua:5: xxxx") || !strings.Contains(errs[0], "[... 2998") {
		t.Errorf("error text %.300s...", errs[0])
	}
	if len(r.stdout) > 20*3000 {
		t.Errorf("%d bytes of output", len(r.stdout))
	}
	if n := strings.Count(r.stderr, "the whole text of an error cut short"); n != 1 || len(r.stderr) > 1<<20+2000 {
		t.Errorf("stderr: %d whole texts in %d bytes; want one, cut at 1 MB", n, len(r.stderr))
	}
}

// TestHostile_signalsStopARunCleanly: SIGTERM or SIGINT lets the step in
// progress finish, writes the save asked for, ends the trace on a whole
// line and exits with 128 + the signal's number; the save continues.
func TestHostile_signalsStopARunCleanly(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			trace, save := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "run.save")
			cmd := command("run", "-config", "../config.toml", "-steps", "100000000", "-trace", trace, "-save", save, "-quiet")
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			for deadline := time.Now().Add(2 * time.Minute); ; { // a hang guard
				if fi, err := os.Stat(trace); err == nil && fi.Size() > 200_000 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no trace after 2 minutes")
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(2 * time.Minute): // a hang guard: the step in progress takes milliseconds
				t.Fatal("still running 2 minutes after the signal")
			}
			if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, 128+int(sig), errOut.String())
			}
			if !strings.Contains(errOut.String(), "stopping after the step in progress") {
				t.Errorf("stderr:\n%s", errOut.String())
			}
			data, _ := os.ReadFile(trace)
			if len(data) == 0 || data[len(data)-1] != '\n' {
				t.Fatalf("the trace does not end on a whole line: ...%q", data[max(0, len(data)-80):])
			}
			traceErrors(t, string(data))
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			var last struct{ Step int }
			json.Unmarshal([]byte(lines[len(lines)-1]), &last)
			// The save holds the last step traced: a run from it goes on at the next.
			r := runWithin(t, hangGuard, "", "run", "-config", "../config.toml", "-load", save, "-steps", "1", "-trace", "-", "-quiet")
			if r.code != 0 || !strings.HasPrefix(r.stdout, `{"step":`+strconv.Itoa(last.Step+1)+",") {
				t.Errorf("continuing from the save: exit %d, %.200s (the trace ended at step %d)\n%s", r.code, r.stdout, last.Step, r.stderr)
			}
		})
	}
}

// TestHostile_secondSignalStopsAtOnce: a second signal does not wait for
// the step in progress. The step here lasts an hour (its call timeout): the
// test waits until the step has begun (the script says so), sends the first
// signal, waits until btrun says it will stop after the step, sends the
// second; btrun must then exit, which it could not do by finishing the
// step. The minute allowed for that is a hang guard, not a measure.
func TestHostile_secondSignalStopsAtOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := hostileGame(t, "stall.lua", 1, "steps = 1000000\nlua_call_timeout = \"1h\"")
	cmd := command("run", "-config", cfg, "-save", filepath.Join(dir, "run.save"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	outLines, errLines := lines(stdout), lines(stderr)
	var errText strings.Builder
	waitLine := func(from <-chan string, text string, keep *strings.Builder) {
		t.Helper()
		timeout := time.After(2 * time.Minute) // a hang guard
		for {
			select {
			case l, ok := <-from:
				if !ok {
					t.Fatalf("the output ended before %q; stderr:\n%s", text, errText.String())
				}
				if keep != nil {
					keep.WriteString(l + "\n")
				}
				if strings.Contains(l, text) {
					return
				}
			case <-timeout:
				t.Fatalf("no %q within the hang guard; stderr:\n%s", text, errText.String())
			}
		}
	}
	waitLine(outLines, "stalling in step 1", nil)
	cmd.Process.Signal(syscall.SIGTERM)
	waitLine(errLines, "stopping after the step in progress", &errText)
	cmd.Process.Signal(syscall.SIGTERM)
	// The rest of both outputs is read to its end, which comes when btrun
	// exits; only then is errText read, and Wait called (after the pipes'
	// last reads, as os/exec asks).
	go func() {
		for range outLines {
		}
	}()
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for l := range errLines {
			errText.WriteString(l + "\n")
		}
	}()
	select {
	case <-drained:
	case <-time.After(time.Minute): // the step in progress would take an hour
		t.Fatal("still running a minute after the second signal")
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 143 || !strings.Contains(errText.String(), "again: stopping now") {
		t.Errorf("exit %d; stderr:\n%s", code, errText.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "run.save")); err == nil {
		t.Errorf("a save was written after the second signal")
	}
}

// lines delivers what r says, line by line, until it ends.
func lines(r io.Reader) <-chan string {
	out := make(chan string, 64)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			out <- sc.Text()
		}
	}()
	return out
}
