package natsnet

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/internal/model"
)

// The test binary is also a model shard process (go-plugin's helper
// process pattern): with BTRUN_MODEL_SHARD set it joins the run the
// environment names and serves the model's agents of its range.
func TestMain(m *testing.M) {
	if os.Getenv("BTRUN_MODEL_SHARD") != "" {
		os.Exit(modelShardProcess())
	}
	os.Exit(m.Run())
}

func modelShardProcess() int {
	n, _ := strconv.Atoi(os.Getenv("BTRUN_MODEL_AGENTS"))
	shards, _ := strconv.Atoi(os.Getenv("BTRUN_MODEL_SHARDS"))
	l, err := Join(Options{URL: os.Getenv("BTRUN_MODEL_URL"), Run: os.Getenv("BTRUN_MODEL_RUN"), Version: "v1",
		Name: "process " + strconv.Itoa(os.Getpid())})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	lo, hi := cluster.Cut(n, shards).Range(l.K())
	host := &model.Shard{N: int32(n), Agents: model.NewAgents(lo, hi), Lo: lo}
	if err := (&cluster.Shard{Host: host, Link: l}).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startShardProcesses starts n model shard processes joining run on url.
func startShardProcesses(t *testing.T, url, run string, agents, n int) *Children {
	t.Helper()
	env := append(os.Environ(), "BTRUN_MODEL_SHARD=1", "BTRUN_MODEL_URL="+url, "BTRUN_MODEL_RUN="+run,
		"BTRUN_MODEL_AGENTS="+strconv.Itoa(agents), "BTRUN_MODEL_SHARDS="+strconv.Itoa(n))
	c, err := StartChildren(n, os.Args[0], func(int) []string { return []string{"-test.run=^$"} }, env, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

// runAgainstProcesses runs the model on shard processes and holds it to
// the single run.
func runAgainstProcesses(t *testing.T, url, run string, shards int) {
	const agents, steps = 23, 40
	want, states, err := model.Run(agents, steps)
	if err != nil {
		t.Fatal(err)
	}
	children := startShardProcesses(t, url, run, agents, shards)
	link, err := Conduct(Options{URL: url, Run: run, Version: "v1", JoinTimeout: 20 * time.Second}, shards)
	if err != nil {
		t.Fatal(err)
	}
	w := &model.World{N: agents}
	c := &cluster.Conductor{Host: w, Link: link, Layout: cluster.Cut(agents, shards)}
	for s := uint64(1); s <= steps; s++ {
		if err := c.Step(s); err != nil {
			t.Fatal(err)
		}
	}
	saves, err := c.Save(steps)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := children.Wait(10 * time.Second); err != nil {
		t.Error(err)
	}
	if got := w.Lines.String(); got != want {
		t.Errorf("lines differ from the single run's:\n%s", model.FirstDiff(got, want))
	}
	// The processes' agents come back in their saves: their states are the
	// single run's.
	local := model.NewAgents(0, agents)
	sh := &model.Shard{N: agents, Agents: local}
	if err := sh.Load(saves); err != nil {
		t.Fatal(err)
	}
	if got := model.States(local); got != states {
		t.Errorf("states differ:\n got %s\nwant %s", got, states)
	}
}

// Shards as separate processes, on the embedded server.
func TestNATS_shardProcesses(t *testing.T) {
	s := startServer(t)
	runAgainstProcesses(t, s.URL(), "processes", 3)
}

// Shards as separate processes, on a NATS server of its own: the one
// BTRUN_NATS_URL names (.ci/run starts Debian's nats-server), else
// nats-server from the PATH, else one built from the nats-server module.
func TestNATS_separateServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds or starts a NATS server")
	}
	runAgainstProcesses(t, separateServer(t), "separate", 2)
}

// A shard process killed mid-run is named as missing at the next step,
// within the reply timeout.
func TestNATS_killedShardIsNamed(t *testing.T) {
	s := startServer(t)
	const agents, shards = 12, 2
	children := startShardProcesses(t, s.URL(), "killed", agents, shards)
	link, err := Conduct(Options{URL: s.URL(), Run: "killed", Version: "v1", ReplyTimeout: 2 * time.Second, JoinTimeout: 20 * time.Second}, shards)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	c := &cluster.Conductor{Host: &model.World{N: agents}, Link: link, Layout: cluster.Cut(agents, shards)}
	if err := c.Step(1); err != nil {
		t.Fatal(err)
	}
	children.cmds[1].Process.Kill()
	<-children.Exited()
	err = c.Step(2)
	var se *cluster.ShardsError
	if !errors.As(err, &se) || len(se.Shards) != 1 || !errors.Is(err, ErrMissing) {
		t.Fatalf("got %v", err)
	}
	t.Log(err)
}

// separateServer is the URL of a NATS server in a process of its own,
// started for the test when BTRUN_NATS_URL does not name one.
func separateServer(t *testing.T) string {
	if url := os.Getenv("BTRUN_NATS_URL"); url != "" {
		return url
	}
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		bin = filepath.Join(t.TempDir(), "nats-server")
		build := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building nats-server: %v\n%s", err, out)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv := exec.Command(bin, "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", t.TempDir())
	srv.SysProcAttr = childAttr()
	logs, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Kill()
		srv.Wait()
	})
	// Ready when the server says so in its log, not after some time: a
	// server that exits first fails the test with what it printed.
	lines := bufio.NewScanner(logs)
	var seen strings.Builder
	for lines.Scan() {
		seen.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), "Server is ready") {
			go io.Copy(io.Discard, logs) // keep its later lines from blocking it
			return "nats://127.0.0.1:" + strconv.Itoa(port)
		}
	}
	t.Fatalf("nats-server on port %d ended before it was ready:\n%s", port, seen.String())
	return ""
}
