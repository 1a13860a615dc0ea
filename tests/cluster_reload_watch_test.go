package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCluster_watchAfterGoingBackOverAReload: a conductor killed during a
// reload (conductor:reload:12), then resumed with -watch, goes back to the
// checkpoint before the reload and opens a copy of its files; it watches
// the run's folder all the same: aim.lua, edited there while no conductor
// ran, is reloaded at the step after the replayed reload, as one process
// whose inputs reload it there. The trace and save are that process's.
func TestCluster_watchAfterGoingBackOverAReload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "config.toml")
	out := t.TempDir()
	writeReloadGame(t, dir)
	oneInputs := filepath.Join(dir, "one-inputs.txt")
	if err := os.WriteFile(oneInputs, []byte("12 reload ai/g.xml edits/g-renamed.xml\n13 reload ai/aim.lua edits/aim-v2.lua\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace, save, one := oneProcessRun(t, out, "-config", config, "-inputs", oneInputs)
	if !strings.Contains(one.stdout, "reload: ai/aim.lua: 9 agents kept their place") {
		t.Fatalf("one process did not reload aim.lua:\n%s", one.stdout)
	}

	writeReloadGame(t, dir) // the files as they were before the reloads
	inputs := filepath.Join(dir, "cluster-inputs.txt")
	if err := os.WriteFile(inputs, []byte("12 reload ai/g.xml edits/g-renamed.xml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "-shards", "2", "-name", "watchreload", "-config", config, "-inputs", inputs,
		"-trace", filepath.Join(out, "watched.jsonl"), "-save", filepath.Join(out, "watched.sav")}
	if r := runFault(t, "conductor:reload:12", args...); r.code == 0 {
		t.Fatal("the conductor was not killed")
	}
	editAim(t, dir) // while no conductor runs
	r := run(t, "", append(args, "-resume", "-watch")...)
	if r.code != 0 {
		t.Fatalf("resumed: exit %d: %s", r.code, r.stderr)
	}
	if want := "resuming run watchreload from its checkpoint at step 0"; !strings.Contains(r.stderr, want) {
		t.Errorf("%q lacks %q", r.stderr, want)
	}
	if !strings.Contains(r.stdout, "reload: ai/aim.lua: 9 agents kept their place") {
		t.Errorf("the resumed run did not reload aim.lua:\n%s", r.stdout)
	}
	sameFiles(t, "watched", out, trace, save)
}
