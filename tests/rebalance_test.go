package tests

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// rebalanceConfig is recoverConfig's example game with [cluster]
// rebalance = true.
func rebalanceConfig(t *testing.T) string {
	t.Helper()
	config := recoverConfig(t)
	f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("rebalance = true\n") // [cluster] is the file's last table
	f.Close()
	return config
}

// runEnv runs btrun with env added to this process's environment.
func runEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := command(args...)
	cmd.Env = append(os.Environ(), env...)
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
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// TestRebalance_shardProcessesSameAsOneProcess: `btrun run -shards N` with
// [cluster] rebalance = true, shard processes reporting costs that make
// agents move (BTRUN_TEST_COST: one shard's agents cost 3 times the
// others'), writes the trace, the output and the save of one process: on 2
// shards, and on 3 of 2 workers each. The summary counts the moves.
func TestRebalance_shardProcessesSameAsOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := rebalanceConfig(t)
	dir := t.TempDir()
	trace, save, out := oneProcess(t, config, dir)
	for _, c := range []struct {
		tag, cost string
		args      []string
	}{
		{"two", "1:3", []string{"-shards", "2"}},
		{"three", "0:3", []string{"-shards", "3", "-workers", "2"}},
	} {
		r := runEnv(t, []string{"BTRUN_TEST_COST=" + c.cost}, append([]string{"run", "-config", config, "-steps", "600",
			"-trace", filepath.Join(dir, c.tag+".jsonl"), "-save", filepath.Join(dir, c.tag+".sav")}, c.args...)...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", c.tag, r.code, r.stderr)
		}
		if !strings.Contains(r.stdout, " moves of ") {
			t.Errorf("%s: no moves in the summary %q", c.tag, r.stdout[max(0, len(r.stdout)-200):])
		}
		if beforeSummary(r.stdout) != beforeSummary(out) {
			t.Errorf("%s: the output differs from one process's", c.tag)
		}
		sameFiles(t, c.tag, dir, trace, save)
	}
}

// TestRebalance_killMidMove: a shard process killed as a move reaches it
// (BTRUN_TEST_FAULT="shardK:move:STEP"; the injected costs move agents at
// steps 10, 20 and 30, first from shard 1 to shard 0) is replaced, the run
// goes back to its checkpoint and replays, moving again, and its trace,
// save and output are one process's.
func TestRebalance_killMidMove(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := rebalanceConfig(t)
	dir := t.TempDir()
	trace, save, out := oneProcess(t, config, dir)
	for _, fault := range []string{"shard1:move:20", "shard0:move:30"} {
		tag := strings.ReplaceAll(fault, ":", "-")
		r := runEnv(t, []string{"BTRUN_TEST_COST=1:3", "BTRUN_TEST_FAULT=" + fault}, "run", "-config", config, "-steps", "600", "-shards", "2",
			"-trace", filepath.Join(dir, tag+".jsonl"), "-save", filepath.Join(dir, tag+".sav"))
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", fault, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "going back to the checkpoint of step 0 and replaying") || !strings.Contains(r.stderr, "moving agents at the end of step "+fault[len(fault)-2:]) {
			t.Errorf("%s: no recovery from the move in %q", fault, r.stderr)
		}
		if !strings.Contains(r.stdout, " from a checkpoint; ") || !strings.Contains(r.stdout, " moves of ") {
			t.Errorf("%s: summary %q", fault, r.stdout[max(0, len(r.stdout)-200):])
		}
		if beforeSummary(r.stdout) != beforeSummary(out) {
			t.Errorf("%s: the output differs from one process's", fault)
		}
		sameFiles(t, tag, dir, trace, save)
	}
}
