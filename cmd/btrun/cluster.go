package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/natsnet"
	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/internal/cputime"
	"github.com/btrun/btrun/internal/procmem"
	"github.com/btrun/btrun/internal/tempfile"
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
	workers := fs.Int("workers", 1, "threads to spread the shard's agents over, 0 for one per CPU core")
	quiet := fs.Bool("quiet", false, "the run prints only its summary (as the conductor's -quiet)")
	agents := fs.Int("agents", 0, "scale the config's agents to N, as the conductor's btrun bench -agents does")
	trace := fs.Bool("trace", false, "the run writes a trace (the conductor's -trace): the shard's lines of it cross")
	explain := fs.Bool("explain", false, "the run explains its steps (the conductor's -explain): the shard's step lines say why")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the shard's part of the run to this file (btrun bench -shards -cpuprofile)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: btrun shard -cluster nats://HOST:PORT -name RUN [-workers N] [-quiet] [-trace]")
		fmt.Fprintln(fs.Output(), "The game's files (config, trees, scripts, plugin programs) come from the run's conductor.")
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
	host, _ := os.Hostname()
	link, err := natsnet.Join(natsnet.Options{URL: *url, Run: *name, Version: clusterVersion(),
		Name: host + " pid " + strconv.Itoa(os.Getpid()), JoinTimeout: 5 * time.Minute,
		Stale: func(msg string) { fmt.Fprintln(stderr, "btrun shard:", msg) }})
	if err != nil {
		fmt.Fprintln(stderr, "btrun shard:", err)
		return exitRuntime
	}
	cfg, dir, err := shardConfig(link)
	if dir != "" {
		defer os.RemoveAll(dir)
	}
	if err != nil {
		link.Close()
		printProblems(stderr, err)
		return exitUsage
	}
	if *agents > 0 {
		cfg.ScaleAgents(*agents)
	}
	// AgentsFromSave: the conductor's checkpoint may hold agents added and
	// removed; it checked the save it sends. Shard: only the shard's agents
	// are made.
	g, err := game.Open(cfg, game.Options{Stdout: io.Discard, Stderr: stderr, Workers: workers, Quiet: *quiet, AgentsFromSave: true, Explain: *explain,
		Shard: &game.ShardOf{K: link.K(), N: link.Shards()}})
	if err != nil {
		link.Close()
		printProblems(stderr, err)
		return exitUsage
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			link.Close()
			fmt.Fprintln(stderr, "btrun shard:", err)
			return exitUsage
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	var sl cluster.ShardLink = link
	if f, ok := faultFor("shard" + strconv.Itoa(link.K())); ok {
		sl = faultyLink{link, f}
	}
	err = g.ServeShard(sl, link.K(), link.Shards(), game.ShardOptions{Trace: *trace, Moves: shardMoves(link.K()), Files: link.FileStore()})
	if cerr := g.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(stderr, "btrun shard:", err)
		return exitRuntime
	}
	return exitOK
}

// shardConfig writes the game's files that the shard fetched from the
// run's object store into a folder of its own (removed by the caller) and
// loads the config from there: a shard needs only the btrun binary.
func shardConfig(link *natsnet.ShardLink) (*game.Config, string, error) {
	if link.Config() == "" {
		return nil, "", fmt.Errorf("btrun shard: the conductor of the run sent no config")
	}
	dir, err := tempfile.Dir("btrun-shard") // removes those of shards killed before they could
	if err != nil {
		return nil, "", err
	}
	if err := natsnet.WriteFiles(dir, link.Files()); err != nil {
		return nil, dir, err
	}
	cfg, err := game.LoadConfig(filepath.Join(dir, filepath.FromSlash(link.Config())))
	return cfg, dir, err
}

// clusterFiles are the game's files for natsnet.Options: what its shards
// open the game from.
func clusterFiles(g *game.Game) ([]natsnet.File, string, error) {
	src, config, err := g.ClusterFiles()
	if err != nil {
		return nil, "", err
	}
	files := make([]natsnet.File, len(src))
	for i, f := range src {
		files[i] = natsnet.File{Path: f.Path, Data: f.Data, Exec: f.Exec}
	}
	return files, config, nil
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
	resume        bool         // go on from the run's last checkpoint (-resume)
	feed          *inputFeed   // -inputs (cluster_inputs.go)
	debug         debugOptions // -debug: the live view on the conductor (cluster_debug.go)
	live          liveOptions  // -watch, -explain, -realtime (cluster_reload.go)
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
	fmt.Fprintf(people, "btrun: %d steps on %d shards (%d rounds, %d delivery batches%s%s)\n", st.Steps, r.shards, st.Rounds, st.Batches, s.recovered(), moved(s.moves))
	return exitOK
}

// processesCPU is the CPU time this process (first) and pids have used, or
// nil where it cannot be read.
func processesCPU(pids []int) []time.Duration {
	self, ok := cputime.Self()
	if !ok {
		return nil
	}
	out := []time.Duration{self}
	for _, pid := range pids {
		d, ok := cputime.Of(pid)
		if !ok {
			return nil
		}
		out = append(out, d)
	}
	return out
}

// processesPeak is the peak memory of this process (first) and pids, or
// nil where it cannot be read.
func processesPeak(pids []int) []uint64 {
	var out []uint64
	for _, pid := range append([]int{0}, pids...) {
		p, ok := procmem.Peak(pid)
		if !ok {
			return nil
		}
		out = append(out, p)
	}
	return out
}

// benchCluster is `btrun bench -shards N`: the config's game with agents
// agents on N shard processes (each with workers workers) over an embedded
// NATS server, no trace and no output, and what the coordination costs:
// agent-steps per second, messages and bytes per step, and per shard the
// time the conductor waited for it at the barriers.
//
// With cpuProfile, each shard process writes a CPU profile of its part of
// the run (its start and its steps) to cpuProfile.shardK, K in the order
// the processes started, and the conductor one of its measured steps to
// cpuProfile.conductor.
func benchCluster(config string, agents, steps, shards, workers int, rebalance bool, cpuProfile string, stdout, stderr io.Writer) int {
	cfg, err := game.LoadConfig(config)
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	cfg.ScaleAgents(agents)
	cfg.Cluster.Rebalance = cfg.Cluster.Rebalance || rebalance
	store, err := tempfile.Dir("btrun-bench-store")
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
	children, err := natsnet.StartChildren(shards, self, func(k int) []string {
		args := []string{"shard", "-cluster", srv.URL(), "-name", name, "-workers", strconv.Itoa(workers),
			"-quiet", "-agents", strconv.Itoa(agents)}
		if cpuProfile != "" {
			args = append(args, "-cpuprofile", cpuProfile+".shard"+strconv.Itoa(k))
		}
		return args
	}, nil, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	defer children.Stop()
	g, err := game.Open(cfg, game.Options{Quiet: true, Stdout: io.Discard, Stderr: stderr, Conductor: true})
	if err != nil {
		printProblems(stderr, err)
		return exitRuntime
	}
	defer g.Close()
	files, fconfig, err := clusterFiles(g)
	if err != nil {
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	link, err := natsnet.Conduct(natsnet.Options{URL: srv.URL(), Run: name, Version: clusterVersion(), JoinTimeout: 5 * time.Minute,
		Files: files, Config: fconfig}, shards)
	if err != nil {
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	c, err := g.Conduct(link, nil, io.Discard)
	if err == nil {
		err = c.Start()
	}
	if err == nil {
		// The shards run the game's start (the world's spawn) as they
		// join, and the first step waits for it: a step run first keeps
		// that out of what is measured, as one process's bench keeps its
		// start out.
		err = c.Run(1)
	}
	if err != nil {
		link.Close()
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	var moves balanceReport // the windows after the first step (cluster_rebalance.go)
	moves.watch(c.Balancer())
	before, waits, stats := link.Traffic(), append([]time.Duration(nil), link.Waits()...), c.Stats()
	stopProfile, err := profileConductor(cpuProfile) // bench_conductor.go
	if err != nil {
		link.Close()
		fmt.Fprintln(stderr, err)
		return exitRuntime
	}
	cpu := processesCPU(children.Pids())
	start := time.Now()
	err = c.Run(steps)
	wall := time.Since(start)
	err = errors.Join(err, stopProfile())
	cpuAfter := processesCPU(children.Pids())
	after := link.Traffic()
	for k, w := range link.Waits() {
		waits[k] = w - waits[k]
	}
	peaks := processesPeak(children.Pids()) // before the checkpoint's gathering of every agent on the conductor
	var cost checkpointCost
	if err == nil {
		cost, err = measureCheckpoint(c, srv.URL(), name)
	}
	err = errors.Join(err, c.Stop(), children.Wait(30*time.Second))
	if err != nil {
		fmt.Fprintln(stderr, "btrun bench:", err)
		return exitRuntime
	}
	n := g.AgentCount() // the conductor lists every agent and holds none
	per := func(v uint64) float64 { return float64(v) / float64(steps) }
	fmt.Fprintf(stdout, "config %s: %d agents on %d shards of %d worker(s), %d steps after a first one\n", config, n, shards, workers, steps)
	fmt.Fprintf(stdout, "stepping took %s: %.0f agent-steps/s, %.2f ms a step\n", wall, float64(n*steps)/wall.Seconds(), wall.Seconds()*1e3/float64(steps))
	fmt.Fprintf(stdout, "per step: %.1f messages, %.0f bytes (%.0f to the shards, %.0f back)\n",
		per(after.Sent+after.Received-before.Sent-before.Received), per(after.SentBytes+after.ReceivedBytes-before.SentBytes-before.ReceivedBytes),
		per(after.SentBytes-before.SentBytes), per(after.ReceivedBytes-before.ReceivedBytes))
	statsAfter := c.Stats()
	var kinds []string
	for k := cluster.Request; k < cluster.AgentSave; k++ {
		if d := statsAfter.Items[k] - stats.Items[k]; d > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %.1f (%.0f bytes of payload)", k, per(d), per(statsAfter.ItemBytes[k]-stats.ItemBytes[k])))
		}
	}
	if len(kinds) > 0 {
		fmt.Fprintf(stdout, "items per step: %s; %.1f rounds\n", strings.Join(kinds, ", "), per(statsAfter.Rounds-stats.Rounds))
	}
	if cpu != nil && cpuAfter != nil {
		ms := func(i int) float64 { return (cpuAfter[i] - cpu[i]).Seconds() * 1e3 / float64(steps) }
		total := 0.0
		var each []string
		for i := range cpu {
			total += ms(i)
			if i > 0 {
				each = append(each, fmt.Sprintf("%.2f", ms(i)))
			}
		}
		fmt.Fprintf(stdout, "CPU time stepping: %.2f ms a step in all (the conductor %.2f, the shard processes %s; plugins apart)\n",
			total, ms(0), strings.Join(each, ", "))
	}
	if peaks != nil {
		var each []string
		for _, p := range peaks[1:] {
			each = append(each, fmt.Sprintf("%.0f", float64(p)/(1<<20)))
		}
		fmt.Fprintf(stdout, "peak memory (VmHWM): the conductor %.0f MiB, the shard processes %s MiB\n", float64(peaks[0])/(1<<20), strings.Join(each, ", "))
	}
	cost.print(stdout, n)
	moves.print(stdout, c.Balancer(), c.Layout())
	layout := c.Layout()
	for k := range shards {
		lo, hi := layout.Range(k)
		fmt.Fprintf(stdout, "  shard %d: %d agents, the conductor waited %.3f ms a step for it\n", k, hi-lo, waits[k].Seconds()*1e3/float64(steps))
	}
	return exitOK
}
