package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exampleClusterConfig is the example game's config.toml with a [cluster]
// table of keys and a store of its own, written beside config.toml (its
// paths are relative to it) under a name of pattern (os.CreateTemp's); it
// is removed with its store at the test's end.
func exampleClusterConfig(t *testing.T, pattern, keys string) string {
	t.Helper()
	return clusterConfigOf(t, "../config.toml", pattern, keys)
}

// clusterConfigOf is exampleClusterConfig for the config at base (a
// fixture's): written beside it, removed with its store at the test's end.
func clusterConfigOf(t *testing.T, base, pattern, keys string) string {
	t.Helper()
	text, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(filepath.Dir(base), pattern)
	if err != nil {
		t.Fatal(err)
	}
	path, _ := filepath.Abs(f.Name())
	f.Write(append(text, "\n[cluster]\n"+keys+"store = \""+filepath.Base(path)+".store\"\n"...))
	f.Close()
	t.Cleanup(func() { os.Remove(path); os.RemoveAll(path + ".store") })
	return path
}

// oneProcessRun is `btrun run args...` writing its trace and save into dir
// as one.jsonl and one.sav: those bytes, which sameFiles holds a cluster
// run's to, and the run's result; the test fails unless the run exits 0.
func oneProcessRun(t *testing.T, dir string, args ...string) (trace, save []byte, one result) {
	t.Helper()
	one = run(t, "", append([]string{"run", "-trace", filepath.Join(dir, "one.jsonl"), "-save", filepath.Join(dir, "one.sav")}, args...)...)
	if one.code != 0 {
		t.Fatalf("one process: exit %d: %s", one.code, one.stderr)
	}
	trace, _ = os.ReadFile(filepath.Join(dir, "one.jsonl"))
	save, _ = os.ReadFile(filepath.Join(dir, "one.sav"))
	return trace, save, one
}

// runRecovered is `btrun args...` with BTRUN_TEST_FAULT set to fault ("":
// none), writing its trace and save into dir as tag.jsonl and tag.sav
// (sameFiles's names). A conductor killed by the fault ("conductor:...")
// must have ended the run, which the same command with -resume then ends.
// The test fails unless the run, so ended, exits 0.
func runRecovered(t *testing.T, dir, tag, fault string, args ...string) result {
	t.Helper()
	args = append(args, "-trace", filepath.Join(dir, tag+".jsonl"), "-save", filepath.Join(dir, tag+".sav"))
	r := runFault(t, fault, args...)
	if strings.HasPrefix(fault, "conductor") {
		if r.code == 0 {
			t.Fatalf("%s: %s: the conductor was not killed", tag, fault)
		}
		r = run(t, "", append(args, "-resume")...)
	}
	if r.code != 0 {
		t.Fatalf("%s: %s: exit %d: %s", tag, fault, r.code, r.stderr)
	}
	return r
}

// runTo is `btrun args...` with env added to the environment, writing its
// trace and save into dir as tag.jsonl and tag.sav (sameFiles's names); the
// test fails unless it exits 0.
func runTo(t *testing.T, env []string, dir, tag string, args ...string) result {
	t.Helper()
	r := runEnv(t, env, append(args, "-trace", filepath.Join(dir, tag+".jsonl"), "-save", filepath.Join(dir, tag+".sav"))...)
	if r.code != 0 {
		t.Fatalf("%s: exit %d: %s", tag, r.code, r.stderr)
	}
	return r
}

// sameOutput holds a cluster run's output for people, up to its summary,
// to the single run's; tag starts the message.
func sameOutput(t *testing.T, tag, got, want string) {
	t.Helper()
	if g, w := beforeSummary(got), beforeSummary(want); g != w {
		t.Errorf("%s: the output differs from one process's: %s", tag, firstDifference(g, w))
	}
}

// editAim writes reloadGame's edited aim.lua (edits/aim-v2.lua) over
// ai/aim.lua in dir as an editor saves: beside it, then renamed over it, so
// that a watcher never sees the file half written.
func editAim(t *testing.T, dir string) {
	t.Helper()
	aim := filepath.Join(dir, "ai", "aim.lua")
	if err := os.WriteFile(aim+".new", []byte(reloadEdits["edits/aim-v2.lua"]), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(aim+".new", aim); err != nil {
		t.Fatal(err)
	}
}

// recoveredAs reports whether a cluster run's stderr says it recovered as
// want says. On a busy machine a shard may first be silent past the
// run's deadline (a loss the test did not cause), and the run then
// recovers from another checkpoint than the one the test's fault leads
// to: that counts too, when it recovered at all. The run's trace and
// save, which the tests compare with one process's, are what judge it.
func recoveredAs(stderr, want string) bool {
	if strings.Contains(stderr, want) {
		return true
	}
	return strings.Contains(stderr, "did not reply within") &&
		(strings.Contains(stderr, "going back to the checkpoint of") || strings.Contains(stderr, "starting the run again"))
}
