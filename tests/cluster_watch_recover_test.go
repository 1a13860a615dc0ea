package tests

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCluster_watchLosesNoEditOverARecovery: `btrun run -shards 2 -watch`
// loses no edit when a process is lost outside a reload. aim.lua is
// edited while the run is stopped for a recovery:
//   - while no conductor runs (conductor:step:30, then -resume -watch): the
//     run goes back to the checkpoint of step 20, replays from the
//     checkpoint's files (not the edited folder), and reloads aim.lua at the
//     replay's end, after step 20 (nothing was journaled after it);
//   - while a shard is stopped (shard1:stop:30): the conductor's watcher
//     sees the edit, and the conductor loses the shard past its deadline;
//     it goes back to the checkpoint of step 20 and reloads aim.lua after
//     the step the lost link reached (what it wrote to the output, a
//     stream, is written again up to there) or, if the watcher saw the
//     edit only after the loss (a busy machine), at the step it saw it:
//     never before step 30, where the edit was made.
//
// The trace and save are those of one process whose inputs reload aim.lua
// after the same step (read from the run's reload line, so that the test
// does not depend on when the watcher saw the edit).
func TestCluster_watchLosesNoEditOverARecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	const reloadLine = "reload: ai/aim.lua: 9 agents kept their place"
	game := func(t *testing.T) (dir, config string) {
		dir = t.TempDir()
		writeReloadGame(t, dir)
		config = filepath.Join(dir, "config.toml")
		text := strings.Replace(reloadGame["config.toml"], "checkpoint_every = 100", "checkpoint_every = 20", 1)
		if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir, config
	}
	// One process whose inputs reload aim.lua after step at.
	oneProcess := func(t *testing.T, at int) (trace, save []byte, stdout string) {
		t.Helper()
		dir, config := game(t)
		inputs := filepath.Join(dir, "one-inputs.txt")
		if err := os.WriteFile(inputs, []byte(strconv.Itoa(at)+" reload ai/aim.lua edits/aim-v2.lua\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		trace, save, one := oneProcessRun(t, dir, "-config", config, "-inputs", inputs)
		if !strings.Contains(one.stdout, reloadLine) {
			t.Fatalf("one process did not reload aim.lua:\n%s", one.stdout)
		}
		return trace, save, one.stdout
	}
	// The run's output is one process's but for -watch's line and the
	// summary; a resumed run's starts at its checkpoint (the lost
	// conductor's stream went with it).
	sameOutput := func(t *testing.T, got, want string, resumed bool) {
		t.Helper()
		body := func(s string) string {
			if i := strings.Index(s, "\nbtrun: "); i >= 0 {
				return s[:i+1]
			}
			return s
		}
		if first, rest, _ := strings.Cut(got, "\n"); strings.HasPrefix(first, "btrun: watching") {
			got = rest
		}
		got, want = body(got), body(want)
		if got == "" || got != want && (!resumed || !strings.HasSuffix(want, got)) {
			t.Errorf("the output is not one process's (%d and %d bytes):\n%s", len(got), len(want), got)
		}
	}
	args := func(dir, config, name string) []string {
		return []string{"run", "-shards", "2", "-watch", "-name", name, "-config", config,
			"-trace", filepath.Join(dir, name+".jsonl"), "-save", filepath.Join(dir, name+".sav")}
	}

	t.Run("conductor", func(t *testing.T) {
		trace, save, stdout := oneProcess(t, 20) // the checkpoint's step: nothing was journaled after it
		dir, config := game(t)
		a := args(dir, config, "watchresume")
		if r := runFault(t, "conductor:step:30", a...); r.code == 0 {
			t.Fatal("the conductor was not killed")
		}
		editAim(t, dir) // while no conductor runs
		r := run(t, "", append(a, "-resume")...)
		if r.code != 0 {
			t.Fatalf("resumed: exit %d: %s", r.code, r.stderr)
		}
		if want := "resuming run watchresume from its checkpoint at step 20"; !strings.Contains(r.stderr, want) {
			t.Errorf("%q lacks %q", r.stderr, want)
		}
		if !strings.Contains(r.stdout, reloadLine) {
			t.Errorf("the resumed run did not reload aim.lua:\n%s", r.stdout)
		}
		sameOutput(t, r.stdout, stdout, true)
		sameFiles(t, "watchresume", dir, trace, save)
	})

	t.Run("shard", func(t *testing.T) {
		if _, err := os.Stat("/proc/self/stat"); err != nil {
			t.Skip("needs Linux's /proc to see a process stopped")
		}
		dir, config := game(t)
		cmd := command(args(dir, config, "watchshard")...)
		cmd.Env = append(os.Environ(), "BTRUN_TEST_FAULT=shard1:stop:30")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		t.Cleanup(func() { cmd.Process.Kill() })
		for !stoppedChild(cmd.Process.Pid) {
			select {
			case err := <-done:
				t.Fatalf("the run ended before its shard stopped: %v: %s", err, stderr.String())
			default:
			}
			time.Sleep(10 * time.Millisecond) // waits for a state; judges nothing by time
		}
		editAim(t, dir) // while the shard is stopped: the conductor waits for it past its deadline
		if err := <-done; err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
		if want := "going back to the checkpoint of step 20"; !strings.Contains(stderr.String(), want) {
			t.Errorf("%q lacks %q", stderr.String(), want)
		}
		at := reloadStep(t, stdout.String(), reloadLine, 0.01)
		if at < 30 {
			t.Errorf("aim.lua reloaded after step %d, before the edit at step 30", at)
		}
		trace, save, want := oneProcess(t, at)
		sameOutput(t, stdout.String(), want, false)
		sameFiles(t, "watchshard", dir, trace, save)
	})
}

// stoppedChild reports whether a child of process pid is stopped
// (SIGSTOP), from Linux's /proc.
func stoppedChild(pid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state, ppid, ...
		if len(f) > 1 && f[0] == "T" && f[1] == strconv.Itoa(pid) && stopped(child) {
			return true
		}
	}
	return false
}

// reloadStep is the step after which a run's output says it reloaded with
// line ("t=0.30 reload: ..." after step 30 at dt 0.01); it fails t when
// there is no such line.
func reloadStep(t *testing.T, out, line string, dt float64) int {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(l, "t=")
		if !ok || !strings.HasSuffix(l, line) {
			continue
		}
		at, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		return int(math.Round(at / dt))
	}
	t.Fatalf("the run did not reload (%q):\n%s", line, out)
	return 0
}
