package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster/natsnet"
)

// recoverConfig is the example game with a short [cluster] deadline (a
// shard silent for 2s is lost, which on a busy machine may happen once
// more than a test asks: the results are the same; a dead conductor's
// lease runs out after 2s) and a checkpoint every 100 steps, written beside config.toml (its
// paths are relative to it); it is removed with the run's store.
func recoverConfig(t *testing.T) string {
	t.Helper()
	return exampleClusterConfig(t, "recover-test-*.toml", "checkpoint_every = 100\ndeadline = \"2s\"\n")
}

// runFault runs btrun with BTRUN_TEST_FAULT set to fault ("" none).
func runFault(t *testing.T, fault string, args ...string) result {
	t.Helper()
	return runEnv(t, []string{"BTRUN_TEST_FAULT=" + fault}, args...)
}

// oneProcess is the single run's trace, save and output for 600 steps.
func oneProcess(t *testing.T, config, dir string) (trace, save []byte, out string) {
	t.Helper()
	trace, save, r := oneProcessRun(t, dir, "-config", config, "-steps", "600")
	return trace, save, r.stdout
}

// sameFiles holds a cluster run's trace and save to the single run's.
func sameFiles(t *testing.T, tag, dir string, trace, save []byte) {
	t.Helper()
	gotTrace, _ := os.ReadFile(filepath.Join(dir, tag+".jsonl"))
	gotSave, _ := os.ReadFile(filepath.Join(dir, tag+".sav"))
	if len(trace) == 0 || !bytes.Equal(gotTrace, trace) {
		t.Errorf("%s: the trace differs from one process's (%d and %d bytes)", tag, len(gotTrace), len(trace))
	}
	if len(save) == 0 || !bytes.Equal(gotSave, save) {
		t.Errorf("%s: the save differs from one process's (%d and %d bytes)", tag, len(gotSave), len(save))
	}
}

// TestRecover_lostShardReplays: a shard process killed at a chosen point
// (as its step 250's report arrives: mid-round; once it wrote its part of
// the checkpoint of step 200 and before the commit: mid-checkpoint, so the
// run goes back to step 100; as step 333 starts) or stopped past the deadline (SIGSTOP at step
// 150's start) is replaced, the run goes back to its last checkpoint and
// replays, and its trace, save and output are one process's, byte for
// byte.
func TestRecover_lostShardReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := recoverConfig(t)
	dir := t.TempDir()
	trace, save, out := oneProcess(t, config, dir)
	for _, c := range []struct{ fault, back string }{
		{"shard1:report:250", "step 200"},
		{"shard0:checkpoint:200", "step 100"},
		{"shard1:step start:333", "step 300"},
		{"shard1:stop:150", "step 100"},
	} {
		tag := strings.NewReplacer(":", "-", " ", "-").Replace(c.fault)
		tmp := shortTempDir(t)
		r := runTo(t, []string{"BTRUN_TEST_FAULT=" + c.fault, "TMPDIR=" + tmp}, dir, tag, "run", "-config", config, "-steps", "600", "-shards", "2")
		// The killed shard's copy of the game's files (and its plugins'
		// sockets) went with the shard that replaced it.
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s: left in the temporary folder: %v", c.fault, left)
		}
		if !recoveredAs(r.stderr, "going back to the checkpoint of "+c.back+" and replaying") {
			t.Errorf("%s: no recovery from %s in %q", c.fault, c.back, r.stderr)
		}
		if !strings.Contains(r.stdout, "btrun: 600 steps on 2 shards (") || !strings.Contains(r.stdout, " from a checkpoint)") {
			t.Errorf("%s: summary %q", c.fault, r.stdout[max(0, len(r.stdout)-200):])
		}
		sameOutput(t, c.fault, r.stdout, out)
		sameFiles(t, tag, dir, trace, save)
	}
}

// TestRecover_deadConductorResumes: a conductor killed (with its embedded
// NATS server and, by their parent-death signal, its shards) before step
// 250, or at the checkpoint of step 200 between storing it and committing
// it, is resumed by `btrun run -name RUN -resume` from the store on disk:
// once its lease ran out, the new conductor cuts the trace back to the
// last checkpoint and ends the run with one process's trace and save.
func TestRecover_deadConductorResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := recoverConfig(t)
	dir := t.TempDir()
	trace, save, _ := oneProcess(t, config, dir)
	for _, c := range []struct{ fault, from string }{
		{"conductor:step:250", "step 200"},
		{"conductor:commit:200", "step 100"},
	} {
		tag := strings.ReplaceAll(c.fault, ":", "-")
		args := []string{"run", "-config", config, "-steps", "600", "-shards", "2", "-name", tag,
			"-trace", filepath.Join(dir, tag+".jsonl"), "-save", filepath.Join(dir, tag+".sav")}
		r := runFault(t, c.fault, args...)
		if r.code != 137 && r.code != -1 {
			t.Fatalf("%s: the conductor was not killed: exit %d: %s", c.fault, r.code, r.stderr)
		}
		r = run(t, "", append(args, "-resume")...)
		if r.code != 0 {
			t.Fatalf("%s: -resume: exit %d: %s", c.fault, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "resuming run "+tag+" from its checkpoint at "+c.from) {
			t.Errorf("%s: %q", c.fault, r.stderr)
		}
		sameFiles(t, tag, dir, trace, save)
		// The run ended: nothing is left to resume.
		r = run(t, "", append(args, "-resume")...)
		if r.code == 0 || !strings.Contains(r.stderr, "run "+tag+" has no checkpoint to resume from") {
			t.Errorf("%s: a second -resume: exit %d: %s", c.fault, r.code, r.stderr)
		}
	}
}

// TestRecover_oneConductorPerRun: while a conductor holds a run's lease,
// `btrun run -name RUN` on the same NATS is refused, naming the holder.
func TestRecover_oneConductorPerRun(t *testing.T) {
	srv, err := natsnet.StartServer(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	store, err := natsnet.OpenStore(natsnet.Options{URL: srv.URL(), Run: "siege"}, natsnet.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.TakeLease("the first conductor", time.Hour, time.Now); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", "run", "-config", fixture("alarm"), "-shards", "1", "-cluster", srv.URL(), "-name", "siege")
	if r.code != 1 || !strings.Contains(r.stderr, "run siege has a conductor: the first conductor") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}

// TestRecover_randomKills: a loop of runs on 2 shards, each killing one
// process at a point drawn at random (a shard as a step starts or reports,
// once it wrote its part of a checkpoint, or as the final save gathers its
// agents; the conductor
// before a step or before a checkpoint's commit, then -resume): each
// run's trace and save are one process's. The draws come from
// BTRUN_RECOVER_SEED, or a seed the log names to replay them.
func TestRecover_randomKills(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	rng := recoverRand(t)
	config := recoverConfig(t)
	dir := t.TempDir()
	trace, save, _ := oneProcess(t, config, dir)
	for i := range 3 {
		fault := randomFault(rng, 7, true)
		tag := "random-" + strconv.Itoa(i)
		r := runRecovered(t, dir, tag, fault, "run", "-config", config, "-steps", "600", "-shards", "2", "-name", tag)
		t.Logf("%s: %s", fault, strings.TrimSpace(r.stderr))
		sameFiles(t, tag, dir, trace, save)
	}
}

// recoverRand draws from BTRUN_RECOVER_SEED, or from a seed it logs (to
// replay the draws with).
func recoverRand(t *testing.T) *rand.Rand {
	t.Helper()
	seed, err := strconv.ParseUint(os.Getenv("BTRUN_RECOVER_SEED"), 10, 64)
	if err != nil {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("BTRUN_RECOVER_SEED=%d", seed)
	return rand.New(rand.NewPCG(seed, 37))
}

// randomFault draws a process of a 600-step run on 2 shards to kill, and
// where: a shard as a step starts or reports, or once it wrote its part of
// a checkpoint (of step 0, 100, .. up to 100*(checkpoints-1); of step 600:
// the final save); the conductor before a step, or, with commits, before a
// checkpoint's commit.
func randomFault(rng *rand.Rand, checkpoints int, commits bool) string {
	kinds := 4
	if commits {
		kinds = 5
	}
	switch rng.IntN(kinds) {
	case 0:
		return fmt.Sprintf("shard%d:step start:%d", rng.IntN(2), 1+rng.IntN(600))
	case 1:
		return fmt.Sprintf("shard%d:report:%d", rng.IntN(2), 1+rng.IntN(600))
	case 2:
		fault := fmt.Sprintf("shard%d:checkpoint:%d", rng.IntN(2), 100*rng.IntN(checkpoints))
		if strings.HasSuffix(fault, ":600") {
			fault = strings.Replace(fault, "checkpoint", "save", 1) // 600 the final save
		}
		return fault
	case 3:
		return fmt.Sprintf("conductor:step:%d", 1+rng.IntN(600))
	default:
		return fmt.Sprintf("conductor:commit:%d", 100*(1+rng.IntN(5)))
	}
}

// shardCommand is `btrun shard` for run on url, in the folder of the
// example game's config.toml: the game of recoverConfig (its [cluster]
// table is the conductor's), whether the shard opens its game from there
// or from the files its conductor publishes.
func shardCommand(url, run string) *exec.Cmd {
	cmd := command("shard", "-cluster", url, "-name", run, "-trace", "-quiet")
	cmd.Dir = ".."
	return cmd
}

// stopped reports whether process pid is stopped (SIGSTOP), from Linux's
// /proc.
func stopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(s[i:], ") T")
}

// TestRecover_stoppedConductorStandsDown: a conductor on a NATS server of
// its own that stops (SIGSTOP before step 250) past its deadline loses its
// lease to `-resume`, which ends the run with one process's trace and
// save; when the stopped one goes on (SIGCONT), it says that it stands
// down and writes nothing: the trace and save stay the single run's.
func TestRecover_stoppedConductorStandsDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs Linux's /proc to see a process stopped")
	}
	srv, err := natsnet.StartServer(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	config := recoverConfig(t)
	dir := t.TempDir()
	trace, save, _ := oneProcess(t, config, dir)
	args := []string{"run", "-config", config, "-steps", "600", "-shards", "1", "-cluster", srv.URL(), "-name", "standdown",
		"-trace", filepath.Join(dir, "standdown.jsonl"), "-save", filepath.Join(dir, "standdown.sav"), "-quiet"}
	shard := func() *exec.Cmd {
		cmd := shardCommand(srv.URL(), "standdown")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	first := command(args...)
	first.Env = append(os.Environ(), "BTRUN_TEST_FAULT=conductor:stop:250")
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait in a goroutine: a conductor that ends before it stops (a busy
	// machine's shard lost, say) must fail the test, not leave it polling
	// a zombie's state for ever.
	firstDone := make(chan error, 1)
	go func() { firstDone <- first.Wait() }()
	t.Cleanup(func() { first.Process.Kill() })
	shard()
	for !stopped(first.Process.Pid) {
		select {
		case err := <-firstDone:
			t.Fatalf("the first conductor ended before it stopped: %v: %s", err, firstErr.String())
		default:
		}
		time.Sleep(10 * time.Millisecond) // waits for a state; judges nothing by time
	}
	shard()
	r := run(t, "", append(args, "-resume")...)
	if r.code != 0 {
		t.Fatalf("-resume: exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "resuming run standdown from its checkpoint at step 200") {
		t.Errorf("-resume: %q", r.stderr)
	}
	sameFiles(t, "standdown", dir, trace, save)
	first.Process.Signal(syscall.SIGCONT)
	err = <-firstDone
	if first.ProcessState.ExitCode() != 1 || !strings.Contains(firstErr.String(), "this conductor of run standdown stands down") {
		t.Errorf("the stale conductor: %v: %s", err, firstErr.String())
	}
	sameFiles(t, "standdown", dir, trace, save)
}

// TestRecover_clusterWaitsForShards: with -cluster, a shard killed at step
// 250 ends the run's link; the conductor says that it waits for its shards
// to join again, and once two new `btrun shard` processes joined, the run
// replays from the checkpoint of step 200 to one process's trace and save.
func TestRecover_clusterWaitsForShards(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	srv, err := natsnet.StartServer(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	config := recoverConfig(t)
	dir := t.TempDir()
	trace, save, _ := oneProcess(t, config, dir)
	shard := func(env ...string) {
		cmd := shardCommand(srv.URL(), "waits")
		cmd.Env = append(os.Environ(), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	conductor := command("run", "-config", config, "-steps", "600", "-shards", "2", "-cluster", srv.URL(), "-name", "waits",
		"-trace", filepath.Join(dir, "waits.jsonl"), "-save", filepath.Join(dir, "waits.sav"), "-quiet")
	stderr, err := conductor.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := conductor.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conductor.Process.Kill(); conductor.Wait() })
	// Whichever joins as shard 1 dies as step 250's report arrives.
	shard("BTRUN_TEST_FAULT=shard1:report:250")
	shard("BTRUN_TEST_FAULT=shard1:report:250")
	var said strings.Builder
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		said.WriteString(lines.Text() + "\n")
		if strings.HasPrefix(lines.Text(), "btrun: waiting for 2 shards to join run waits") {
			shard()
			shard()
		}
	}
	if err := conductor.Wait(); err != nil {
		t.Fatalf("%v: %s", err, said.String())
	}
	if !recoveredAs(said.String(), "going back to the checkpoint of step 200 and replaying") || !strings.Contains(said.String(), "waiting for 2 shards") {
		t.Errorf("the conductor said %q", said.String())
	}
	sameFiles(t, "waits", dir, trace, save)
}

// shortTempDir is a temporary folder for one run's TMPDIR, short enough for
// the Unix sockets its plugins make there (t.TempDir's paths are long).
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "t")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
