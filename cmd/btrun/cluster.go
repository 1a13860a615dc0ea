package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/natsnet"
	"github.com/btrun/btrun/game"
)

// clusterVersion is what a shard must share with its conductor: btrun's
// version and the source revision.
func clusterVersion() string { return Version + revision() }

// runShard is `btrun shard`: join a run's cluster and serve its conductor.
func runShard(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("cluster", "", "the NATS server or cluster (nats://HOST:PORT[,...])")
	name := fs.String("name", "", "the run's name")
	config := fs.String("config", "config.toml", "the game config (the conductor's own)")
	workers := fs.Int("workers", 1, "threads to spread the shard's agents over, 0 for one per CPU core")
	quiet := fs.Bool("quiet", false, "the run prints only its summary (as the conductor's -quiet)")
	agents := fs.Int("agents", 0, "scale the config's agents to N, as the conductor's btrun bench -agents does")
	trace := fs.Bool("trace", false, "the run writes a trace (the conductor's -trace): the shard's lines of it cross")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: btrun shard -cluster nats://HOST:PORT -name RUN [-config F] [-workers N] [-quiet] [-trace]")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if code, ok := wantArgs(fs, stderr, 0, ""); !ok {
		return code
	}
	if *url == "" || *name == "" {
		fmt.Fprintln(stderr, "btrun shard: -cluster and -name are needed")
		fs.Usage()
		return exitUsage
	}
	cfg, err := game.LoadConfig(*config)
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	if *agents > 0 {
		cfg.ScaleAgents(*agents)
	}
	host, _ := os.Hostname()
	link, err := natsnet.Join(natsnet.Options{URL: *url, Run: *name, Version: clusterVersion(),
		Name: host + " pid " + strconv.Itoa(os.Getpid())})
	if err != nil {
		fmt.Fprintln(stderr, "btrun shard:", err)
		return exitRuntime
	}
	g, err := game.Open(cfg, game.Options{Stdout: io.Discard, Stderr: stderr, Workers: workers, Quiet: *quiet})
	if err != nil {
		link.Close()
		printProblems(stderr, err)
		return exitUsage
	}
	var sl cluster.ShardLink = link
	if f, ok := faultFor("shard" + strconv.Itoa(link.K())); ok {
		sl = faultyLink{link, f}
	}
	err = g.ServeShard(sl, link.K(), link.Shards(), game.ShardOptions{Trace: *trace})
	if cerr := g.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(stderr, "btrun shard:", err)
		return exitRuntime
	}
	return exitOK
}

// clusterRun is `btrun run -shards N`: an embedded NATS server (unless
// -cluster names one), N shard processes of this binary on this machine
// (unless -cluster: then shards join with `btrun shard`), and this process
// as their conductor.
type clusterRun struct {
	cfg           *game.Config
	shards        int
	url, name     string
	config, trace string
	save, load    string
	steps         int
	workers       int
	quiet         bool
	resume        bool // go on from the run's last checkpoint (-resume)
}

func (r clusterRun) run(stdout, stderr io.Writer) int {
	cfg := r.cfg
	if r.trace == "" && cfg.Trace.File != "" { // [trace] file, as btrun run
		r.trace = cfg.Trace.File
		if r.trace != "-" {
			r.trace = cfg.Abs(r.trace)
		}
	}
	url, name := r.url, r.name
	if url == "" {
		store := cfg.Abs(cfg.Cluster.Store) // [cluster] store, beside the config by default
		if err := os.MkdirAll(store, 0o755); err != nil {
			fmt.Fprintln(stderr, "btrun:", err)
			return exitRuntime
		}
		srv, err := natsnet.StartServer(store, 0)
		if err != nil {
			fmt.Fprintln(stderr, "btrun:", err)
			return exitRuntime
		}
		defer srv.Close()
		url = srv.URL()
		if name == "" {
			name = "run-" + strconv.Itoa(os.Getpid())
		}
	}
	s, err := openSession(r, url, name, r.url == "", stderr)
	if err != nil {
		fmt.Fprintln(stderr, "btrun:", err)
		return exitRuntime
	}
	defer s.close()
	people := stdout
	if r.trace == "-" {
		people = stderr
		s.trace = newStreamWriter(stdout)
	} else if r.trace != "" {
		if s.trace, err = newFileWriter(r.trace, r.resume); err != nil {
			fmt.Fprintln(stderr, "btrun:", err)
			return exitRuntime
		}
	}
	s.out = newStreamWriter(people)
	st, err := s.run()
	err = errors.Join(err, s.out.Close())
	if s.trace != nil {
		err = errors.Join(err, s.trace.Close())
	}
	if err == nil {
		err = s.drop() // the run ended: nothing to resume
	}
	if err != nil {
		fmt.Fprintln(stderr, "btrun:", err)
		return exitRuntime
	}
	fmt.Fprintf(people, "btrun: %d steps on %d shards (%d rounds, %d delivery batches%s)\n", st.Steps, r.shards, st.Rounds, st.Batches, s.recovered())
	return exitOK
}

// benchCluster is `btrun bench -shards N`: the config's game with agents
// agents on N shard processes (each with workers workers) over an embedded
// NATS server, no trace and no output, and what the coordination costs:
// agent-steps per second, messages and bytes per step, and per shard the
// time the conductor waited for it at the barriers.
func benchCluster(config string, agents, steps, shards, workers int, stdout, stderr io.Writer) int {
	cfg, err := game.LoadConfig(config)
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	cfg.ScaleAgents(agents)
	store, err := os.MkdirTemp("", "btrun-cluster-")
	if err != nil {
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	defer os.RemoveAll(store)
	srv, err := natsnet.StartServer(store, 0)
	if err != nil {
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	defer srv.Close()
	name := "bench-" + strconv.Itoa(os.Getpid())
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	children, err := natsnet.StartChildren(shards, self, func(int) []string {
		return []string{"shard", "-cluster", srv.URL(), "-name", name, "-config", config, "-workers", strconv.Itoa(workers),
			"-quiet", "-agents", strconv.Itoa(agents)}
	}, nil, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	defer children.Stop()
	link, err := natsnet.Conduct(natsnet.Options{URL: srv.URL(), Run: name, Version: clusterVersion(), JoinTimeout: 5 * time.Minute}, shards)
	if err != nil {
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	g, err := game.Open(cfg, game.Options{Quiet: true, Stdout: io.Discard, Stderr: stderr})
	if err != nil {
		link.Close()
		printProblems(stderr, err)
		return exitRuntime
	}
	defer g.Close()
	c, err := g.Conduct(link, nil, io.Discard)
	if err == nil {
		err = c.Start()
	}
	if err != nil {
		link.Close()
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	before, waits := link.Traffic(), append([]time.Duration(nil), link.Waits()...)
	start := time.Now()
	err = c.Run(steps)
	wall := time.Since(start)
	after := link.Traffic()
	for k, w := range link.Waits() {
		waits[k] = w - waits[k]
	}
	var cost checkpointCost
	if err == nil {
		cost, err = measureCheckpoint(c, srv.URL(), name)
	}
	err = errors.Join(err, c.Stop(), children.Wait(30*time.Second))
	if err != nil {
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	n := len(g.Agents())
	per := func(v uint64) float64 { return float64(v) / float64(steps) }
	fmt.Fprintf(stdout, "config %s: %d agents on %d shards of %d worker(s), %d steps\n", config, n, shards, workers, steps)
	fmt.Fprintf(stdout, "stepping took %s: %.0f agent-steps/s, %.2f ms a step\n", wall, float64(n*steps)/wall.Seconds(), wall.Seconds()*1e3/float64(steps))
	fmt.Fprintf(stdout, "per step: %.1f messages, %.0f bytes (%.0f to the shards, %.0f back)\n",
		per(after.Sent+after.Received-before.Sent-before.Received), per(after.SentBytes+after.ReceivedBytes-before.SentBytes-before.ReceivedBytes),
		per(after.SentBytes-before.SentBytes), per(after.ReceivedBytes-before.ReceivedBytes))
	cost.print(stdout, n)
	layout := cluster.Cut(n, shards)
	for k := range shards {
		lo, hi := layout.Range(k)
		fmt.Fprintf(stdout, "  shard %d: %d agents, the conductor waited %.3f ms a step for it\n", k, hi-lo, waits[k].Seconds()*1e3/float64(steps))
	}
	return exitOK
}
