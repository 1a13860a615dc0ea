package game

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/natsnet"
)

// The test binary is also a game's shard process (go-plugin's helper
// process pattern): with BTRUN_GAME_SHARD set it opens the config the
// environment names, joins the run on NATS and serves its range of agents.
func TestMain(m *testing.M) {
	if os.Getenv("BTRUN_GAME_SHARD") != "" {
		os.Exit(gameShardProcess())
	}
	os.Exit(m.Run())
}

func gameShardProcess() int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "shard:", err)
		return 1
	}
	cfg, err := LoadConfig(os.Getenv("BTRUN_GAME_CONFIG"))
	if err != nil {
		return fail(err)
	}
	shards, _ := strconv.Atoi(os.Getenv("BTRUN_GAME_SHARDS"))
	link, err := natsnet.Join(natsnet.Options{URL: os.Getenv("BTRUN_GAME_URL"), Run: os.Getenv("BTRUN_GAME_RUN"), Version: "test",
		Name: "process " + strconv.Itoa(os.Getpid())})
	if err != nil {
		return fail(err)
	}
	g, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard, Shard: &ShardOf{K: link.K(), N: shards}})
	if err != nil {
		return fail(err)
	}
	defer g.Close()
	lo, hi := cluster.Cut(len(g.agents), shards).Range(link.K())
	sh, err := newShard(g, lo, hi, true)
	if err == nil {
		err = sh.start()
	}
	if err == nil {
		err = (&cluster.Shard{Host: sh, Link: link}).Run()
	}
	if err != nil {
		return fail(err)
	}
	return 0
}

// TestCluster_exampleGameOnShardProcesses: the example game with its
// shards as processes of their own, over NATS (the embedded server, or the
// one BTRUN_NATS_URL names: .ci/run starts Debian's nats-server): the
// trace, the output and the final save of one process.
func TestCluster_exampleGameOnShardProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the nav plugin, starts processes")
	}
	const steps, shards = 600, 2
	wantTrace, wantOut := singleRun(t, "example", steps)
	_, wantEnd := singleSave(t, "example", steps)

	url := os.Getenv("BTRUN_NATS_URL")
	if url == "" {
		srv, err := natsnet.StartServer(t.TempDir(), 0)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		url = srv.URL()
	}
	run := fmt.Sprintf("game-%d", os.Getpid())
	env := append(os.Environ(), "BTRUN_GAME_SHARD=1", "BTRUN_GAME_URL="+url, "BTRUN_GAME_RUN="+run,
		"BTRUN_GAME_CONFIG="+clusterConfig("example"), "BTRUN_GAME_SHARDS="+strconv.Itoa(shards))
	children, err := natsnet.StartChildren(shards, os.Args[0], func(int) []string { return []string{"-test.run=^$"} }, env, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer children.Stop()
	link, err := natsnet.Conduct(natsnet.Options{URL: url, Run: run, Version: "test", JoinTimeout: time.Minute}, shards)
	if err != nil {
		t.Fatal(err)
	}

	cfg, err := LoadConfig(clusterConfig("example"))
	if err != nil {
		t.Fatal(err)
	}
	var trace, out bytes.Buffer
	g, err := Open(cfg, Options{Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ch, err := newConductor(g, &trace, &out)
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster.Conductor{Host: ch, Link: link, Layout: cluster.Cut(len(g.agents), shards)}
	if err := ch.start(c); err != nil {
		t.Fatal(err)
	}
	for s := uint64(1); s <= steps; s++ {
		if err := c.Step(s); err != nil {
			t.Fatal(err)
		}
	}
	end, err := ch.save(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&Conductor{g: g, h: ch, c: c}).Finish(); err != nil {
		t.Fatal(err)
	}
	tr := link.Traffic()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := children.Wait(20 * time.Second); err != nil {
		t.Error(err)
	}
	if trace.String() != wantTrace {
		t.Errorf("trace differs:\n%s", lineDiff(trace.String(), wantTrace))
	}
	if out.String() != wantOut {
		t.Errorf("output differs:\n%s", lineDiff(out.String(), wantOut))
	}
	if !bytes.Equal(end, wantEnd) {
		t.Errorf("the final save differs")
	}
	t.Logf("%d steps on %d shard processes: %.1f messages and %.0f bytes a step", steps, shards,
		float64(tr.Sent+tr.Received)/steps, float64(tr.SentBytes+tr.ReceivedBytes)/steps)
}
