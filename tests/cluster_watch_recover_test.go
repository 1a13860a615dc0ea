package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCluster_watchLosesNoEditOverARecovery: `btrun run -shards 2 -watch`
// loses no edit when a process is lost outside a reload. aim.lua is
// edited while the run is stopped for a recovery: while no conductor runs
// (conductor:step:30, then -resume -watch), and while a shard is stopped
// (shard1:stop:30: the conductor's watcher sees the edit, and the
// conductor loses the shard past its deadline before it reloads). Either
// way the run goes back to the checkpoint of step 20, replays from the
// checkpoint's files (not the edited folder), and reloads aim.lua at the
// step after the replay: the trace and save are those of one process whose
// inputs reload aim.lua after step 20.
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
	dir, config := game(t)
	out := t.TempDir()
	oneInputs := filepath.Join(dir, "one-inputs.txt")
	if err := os.WriteFile(oneInputs, []byte("20 reload ai/aim.lua edits/aim-v2.lua\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	one := run(t, "", "run", "-config", config, "-inputs", oneInputs, "-trace", filepath.Join(out, "one.jsonl"), "-save", filepath.Join(out, "one.sav"))
	if one.code != 0 {
		t.Fatalf("one process: exit %d: %s", one.code, one.stderr)
	}
	if !strings.Contains(one.stdout, reloadLine) {
		t.Fatalf("one process did not reload aim.lua:\n%s", one.stdout)
	}
	trace, _ := os.ReadFile(filepath.Join(out, "one.jsonl"))
	save, _ := os.ReadFile(filepath.Join(out, "one.sav"))
	edit := func(t *testing.T, dir string) { // as an editor saves
		t.Helper()
		aim := filepath.Join(dir, "ai", "aim.lua")
		if err := os.WriteFile(aim+".new", []byte(reloadEdits["edits/aim-v2.lua"]), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(aim+".new", aim); err != nil {
			t.Fatal(err)
		}
	}
	args := func(dir, config, name string) []string {
		return []string{"run", "-shards", "2", "-watch", "-name", name, "-config", config,
			"-trace", filepath.Join(dir, name+".jsonl"), "-save", filepath.Join(dir, name+".sav")}
	}

	t.Run("conductor", func(t *testing.T) {
		dir, config := game(t)
		a := args(dir, config, "watchresume")
		if r := runFault(t, "conductor:step:30", a...); r.code == 0 {
			t.Fatal("the conductor was not killed")
		}
		edit(t, dir) // while no conductor runs
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
		edit(t, dir) // while the shard is stopped: the conductor waits for it past its deadline
		if err := <-done; err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
		if want := "going back to the checkpoint of step 20"; !strings.Contains(stderr.String(), want) {
			t.Errorf("%q lacks %q", stderr.String(), want)
		}
		if !strings.Contains(stdout.String(), reloadLine) {
			t.Errorf("the run did not reload aim.lua:\n%s\n%s", stdout.String(), stderr.String())
		}
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
