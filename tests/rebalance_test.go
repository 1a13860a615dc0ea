package tests

import (
	"os"
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

// TestRebalance_checkpointRightAfterAMove: with a checkpoint every 10
// steps, the checkpoints of steps 10, 20 and 30 are taken right after the
// moves of those steps; a shard killed at step 35 sends the run back to
// step 30's, which every new shard loads from the even cut, and the run
// ends with one process's trace, save and output.
func TestRebalance_checkpointRightAfterAMove(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := exampleClusterConfig(t, "rebalance-test-*.toml", "checkpoint_every = 10\ndeadline = \"2s\"\nrebalance = true\n")
	dir := t.TempDir()
	trace, save, out := oneProcess(t, config, dir)
	r := runTo(t, []string{"BTRUN_TEST_COST=1:3", "BTRUN_TEST_FAULT=shard1:report:35"}, dir, "k", "run", "-config", config, "-steps", "600", "-shards", "2")
	if !recoveredAs(r.stderr, "going back to the checkpoint of step 30 and replaying") {
		t.Errorf("no recovery from step 30's checkpoint in %q", r.stderr)
	}
	if !strings.Contains(r.stdout, " moves of ") {
		t.Errorf("summary %q", r.stdout[max(0, len(r.stdout)-200):])
	}
	sameOutput(t, "k", r.stdout, out)
	sameFiles(t, "k", dir, trace, save)
}

// runEnv runs btrun with env added to this process's environment.
func runEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := command(args...)
	cmd.Env = append(os.Environ(), env...)
	return runCmd(t, cmd)
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
		// The moves follow from the costs alone: on 2 shards, one agent at
		// steps 10, 20, 30 and 40.
		r := runTo(t, []string{"BTRUN_TEST_COST=" + c.cost}, dir, c.tag, append([]string{"run", "-config", config, "-steps", "600"}, c.args...)...)
		if !strings.Contains(r.stdout, " moves of ") || c.tag == "two" && !strings.Contains(r.stdout, "recover") && !strings.Contains(r.stdout, "; 4 moves of 4 agents)") {
			t.Errorf("%s: moves in the summary %q", c.tag, r.stdout[max(0, len(r.stdout)-200):])
		}
		sameOutput(t, c.tag, r.stdout, out)
		sameFiles(t, c.tag, dir, trace, save)
	}
}

// TestRebalance_killMidMove: a shard process killed as a move reaches it
// (BTRUN_TEST_FAULT="shardK:move:STEP"; the injected costs move agents at
// steps 10, 20, 30 and 40, one agent each from shard 1 to shard 0) is replaced, the run
// goes back to its checkpoint and replays, moving again, and its trace,
// save and output are one process's.
func TestRebalance_killMidMove(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := rebalanceConfig(t)
	dir := t.TempDir()
	trace, save, out := oneProcess(t, config, dir)
	for _, c := range []struct{ fault, moves string }{
		{"shard1:move:20", "; 5 moves of 5 agents)"}, // 1 before the kill, 4 in the replay
		{"shard0:move:30", "; 6 moves of 6 agents)"},
	} {
		fault := c.fault
		tag := strings.ReplaceAll(fault, ":", "-")
		r := runTo(t, []string{"BTRUN_TEST_COST=1:3", "BTRUN_TEST_FAULT=" + fault}, dir, tag, "run", "-config", config, "-steps", "600", "-shards", "2")
		if !recoveredAs(r.stderr, "going back to the checkpoint of step 0 and replaying") || !strings.Contains(r.stderr, "moving agents at the end of step "+fault[len(fault)-2:]) {
			t.Errorf("%s: no recovery from the move in %q", fault, r.stderr)
		}
		// (A busy machine may make a shard miss the 2s deadline once
		// more: then there are more recoveries, and more moves.)
		if !strings.Contains(r.stdout, " moves of ") || strings.Contains(r.stdout, "; 1 recovery from a checkpoint;") && !strings.Contains(r.stdout, c.moves) {
			t.Errorf("%s: summary %q", fault, r.stdout[max(0, len(r.stdout)-200):])
		}
		sameOutput(t, fault, r.stdout, out)
		sameFiles(t, tag, dir, trace, save)
	}
}

// TestRebalance_benchReportsMoves: `btrun bench -shards 2 -rebalance`
// moves agents (here by the injected costs, shard 1's agents 3 times
// dearer) and reports the moves, the shards' measured step times and the
// agents each holds at the end; without -rebalance nothing moves.
func TestRebalance_benchReportsMoves(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	for _, on := range []bool{true, false} {
		args := []string{"bench", "-config", "../config.toml", "-agents", "400", "-steps", "40", "-shards", "2"}
		if on {
			args = append(args, "-rebalance")
		}
		r := runEnv(t, []string{"BTRUN_TEST_COST=1:3"}, args...)
		if r.code != 0 {
			t.Fatalf("rebalance %v: exit %d: %s", on, r.code, r.stderr)
		}
		moved := strings.Contains(r.stdout, "moves: ") && strings.Contains(r.stdout, "measured step time per shard: ") &&
			!strings.Contains(r.stdout, "the shards now hold 200, 200 agents") && !strings.Contains(r.stdout, "shard 1: 200 agents")
		if moved != on {
			t.Errorf("rebalance %v:\n%s", on, r.stdout)
		}
	}
}
