package tests

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRecover_resumeOnOtherShards: a run on 2 shards whose conductor is
// killed once every part of the checkpoint of step 300 is stored and
// before its commit is resumed on 3 shards: each new shard reads its
// range from the 2 old shards' parts of the checkpoint of step 200 (the
// stale parts of step 300's are pruned), and the run ends with one
// process's trace and save, byte for byte.
func TestRecover_resumeOnOtherShards(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := recoverConfig(t)
	dir := t.TempDir()
	trace, save, _ := oneProcess(t, config, dir)
	const fault, tag = "conductor:commit:300", "other-shards"
	args := []string{"run", "-config", config, "-steps", "600", "-name", tag,
		"-trace", filepath.Join(dir, tag+".jsonl"), "-save", filepath.Join(dir, tag+".sav")}
	r := runFault(t, fault, append(args, "-shards", "2")...)
	if r.code == 0 {
		t.Fatalf("%s: the conductor was not killed: %s", fault, r.stderr)
	}
	r = run(t, "", append(args, "-shards", "3", "-resume")...)
	if r.code != 0 {
		t.Fatalf("-resume on 3 shards: exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "resuming run "+tag+" from its checkpoint at step 200") {
		t.Errorf("-resume: %q", r.stderr)
	}
	if !strings.Contains(r.stdout, "on 3 shards") {
		t.Errorf("-resume: summary %q", r.stdout[max(0, len(r.stdout)-200):])
	}
	sameFiles(t, tag, dir, trace, save)
}

// TestRecover_benchWritesACheckpoint: btrun bench -shards 2 takes one
// checkpoint, its shards writing their parts, and prints its bytes and
// time per agent: every agent's save, deflated, and the conductor's part
// with its directory of ids, so more than 20 bytes an agent.
func TestRecover_benchWritesACheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	r := run(t, "", "bench", "-config", "../config.toml", "-agents", "400", "-steps", "5", "-shards", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	m := regexp.MustCompile(`a checkpoint: (\d+) bytes \((\d+) an agent\), written in [\d.]+ ms \([\d.]+ µs an agent; the shards write their agents in parallel\)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no checkpoint's figures in:\n%s", r.stdout)
	}
	if n, _ := strconv.Atoi(m[1]); n < 400*20 {
		t.Errorf("a checkpoint of 400 agents in %d bytes", n)
	}
}
