package tests

import (
	"path/filepath"
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
