package host

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/runtime"
)

// waitDead waits for a process to exit (up to a minute: a hang guard).
func waitDead(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	t.Errorf("pid %d still alive", pid)
}

// TestUpdate_newBuildServesAfterCommit: the old process serves until the
// update is committed (agents mid-action keep their state bytes); then the
// new one answers the same sites, and the old one is stopped.
func TestUpdate_newBuildServesAfterCommit(t *testing.T) {
	w := newWorld(t, countTree, []Spec{helperSpec("test", "plugin")}, Options{}, 1, func(int) fields { return fields{} })
	oldPid := w.set.Plugins()[0].Pid
	w.step() // count = 1, running
	u, err := w.set.Prepare(t0(), []string{"test"})
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Restarted(); len(got) != 1 || got[0] != "test" {
		t.Fatalf("restarted %v", got)
	}
	w.step() // still the old process: count = 2
	if pid := w.set.Plugins()[0].Pid; pid != oldPid {
		t.Fatalf("the new process serves before Commit (pid %d, old %d)", pid, oldPid)
	}
	u.Commit()
	newPid := w.set.Plugins()[0].Pid
	if newPid == oldPid || !alive(newPid) {
		t.Fatalf("pid %d after Commit, old %d", newPid, oldPid)
	}
	out := w.step() // the new process, with the state bytes the old one wrote: count = 3, success
	if out[0].Err != nil || w.agents[0].UserData().(fields)["count"] != 3.0 {
		t.Fatalf("after Commit: %+v, data %v", out[0], w.agents[0].UserData())
	}
	waitDead(t, oldPid)
	if !strings.Contains(w.logs.text(), "info: plugin test: its new build serves: 13 actions, 1 condition") {
		t.Errorf("log:\n%s", w.logs.text())
	}
}

// TestUpdate_abortKeepsTheOldProcess: an aborted update stops its new
// process; the old one never stopped serving.
func TestUpdate_abortKeepsTheOldProcess(t *testing.T) {
	w := newWorld(t, countTree, []Spec{helperSpec("test", "plugin")}, Options{}, 1, func(int) fields { return fields{} })
	oldPid := w.set.Plugins()[0].Pid
	u, err := w.set.Prepare(t0(), []string{"test"})
	if err != nil {
		t.Fatal(err)
	}
	newPid := u.next[0].inst.pid
	u.Abort()
	waitDead(t, newPid)
	if out := w.step(); out[0].Err != nil || w.set.Plugins()[0].Pid != oldPid {
		t.Errorf("after Abort: %+v, pid %d (old %d)", out[0], w.set.Plugins()[0].Pid, oldPid)
	}
}

// TestUpdate_registersWhatTheNewBuildDeclares: trees bound through the
// update see the new build's names; a failed build is an error and starts
// nothing; an unknown name is an error.
func TestUpdate_registersWhatTheNewBuildDeclares(t *testing.T) {
	w := newWorld(t, countTree, []Spec{helperSpec("test", "plugin")}, Options{}, 1, func(int) fields { return fields{} })
	p := w.set.plugins[0]
	p.spec.Env = append(p.spec.Env, prefixEnv+"=v2.")
	u, err := w.set.Prepare(t0(), []string{"test"})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Abort()
	reg := runtime.NewRegistry()
	if err := u.Register(reg); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.LookupAction("v2.count"); !ok {
		t.Error("the new build's action is not registered")
	}
	if _, ok := reg.LookupAction("test.count"); ok {
		t.Error("the old build's action is still registered")
	}

	if _, err := w.set.Prepare(t0(), []string{"nope"}); err == nil || !strings.Contains(err.Error(), `no plugin "nope"`) {
		t.Errorf("unknown plugin: %v", err)
	}
}

// TestUpdate_failedBuildKeepsTheOldProcess: a plugin whose Go package does
// not compile any more reports the compiler's errors; the old process
// serves on.
func TestUpdate_failedBuildKeepsTheOldProcess(t *testing.T) {
	w := newWorld(t, countTree, []Spec{helperSpec("test", "plugin")}, Options{CacheDir: t.TempDir()}, 1, func(int) fields { return fields{} })
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/broken\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { undefinedThing() }\n"), 0o644)
	w.set.plugins[0].spec.Path = dir
	_, err := w.set.Prepare(t0(), []string{"test"})
	if !errors.Is(err, ErrBuild) || !strings.Contains(err.Error(), "undefined: undefinedThing") {
		t.Fatalf("got %v", err)
	}
	if out := w.step(); out[0].Err != nil {
		t.Errorf("the old process does not serve: %v", out[0].Err)
	}
}
