package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/internal/procmem"
)

// runBench is `btrun bench`: the config's trees, scripts and plugins with N
// agents, no output but the report.
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "config.toml", "the game config")
	agents := fs.Int("agents", 10000, "agents, spread over the config's [[agents]] in proportion")
	steps := fs.Int("steps", 100, "steps to run")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the stepping to this file (for go tool pprof)")
	workers := fs.Int("workers", 1, "threads to spread the agents over, 0 for one per CPU core (default: the config's run.workers)")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file after the run (go tool pprof -sample_index=alloc_objects -focus=runStep)")
	shards := fs.Int("shards", 0, "run the agents on N shard processes over an embedded NATS server (docs/cluster.md)")
	rebalance := fs.Bool("rebalance", false, "with -shards: move agents between shards as their step times differ, as [cluster] rebalance = true")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: btrun bench [-config F] [-agents N] [-steps N] [-workers N] [-shards N [-rebalance]] [-cpuprofile F] [-memprofile F]")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if code, ok := wantArgs(fs, stderr, 0, ""); !ok {
		return code
	}
	if *agents < 1 || *steps < 1 {
		fmt.Fprintf(stderr, "btrun bench: -agents %d -steps %d: both must be 1 or more\n", *agents, *steps)
		fs.Usage()
		return exitUsage
	}
	if *agents > game.MaxAgents || *steps > game.MaxSteps {
		fmt.Fprintf(stderr, "btrun bench: -agents is at most %d and -steps at most %d\n", game.MaxAgents, game.MaxSteps)
		return exitUsage
	}
	if *workers < 0 || *workers > game.MaxWorkers {
		fmt.Fprintf(stderr, "btrun bench: -workers %d: must be from 0 (one per CPU core) to %d\n", *workers, game.MaxWorkers)
		return exitUsage
	}
	var workersSet *int
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "workers" {
			workersSet = workers
		}
	})
	if *shards > 0 {
		return benchCluster(*config, *agents, *steps, *shards, *workers, *rebalance, *cpuProfile, stdout, stderr)
	}
	cfg, err := game.LoadConfig(*config)
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	var prof game.Profiles
	for _, p := range []struct {
		path string
		w    *io.Writer
	}{{*cpuProfile, &prof.CPU}, {*memProfile, &prof.Allocs}} {
		if p.path == "" {
			continue
		}
		f, err := os.Create(p.path)
		if err != nil {
			fmt.Fprintf(stderr, "btrun bench: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		*p.w = f
	}
	r, err := game.Bench(cfg, *agents, *steps, workersSet, prof)
	if err != nil {
		printProblems(stderr, err)
		return exitRuntime
	}
	fmt.Fprintf(stdout, "config %s: %d trees, %d agents over %d entries, %d steps of %g s\n",
		*config, len(cfg.Trees), r.Agents, len(cfg.Agents), r.Steps, cfg.Run.Dt)
	fmt.Fprintf(stdout, "stepping took %s for %d agent-steps on %d worker(s); %d allocations\n", r.Wall, r.AgentSteps, r.Workers, r.Allocs)
	if r.CPU > 0 {
		fmt.Fprintf(stdout, "CPU time stepping: %.2f ms a step (this process, every thread; plugins apart)\n", r.CPU.Seconds()*1e3/float64(r.Steps))
	}
	if p, ok := procmem.Peak(0); ok {
		fmt.Fprintf(stdout, "peak memory (VmHWM): %.0f MiB (this process)\n", float64(p)/(1<<20))
	}
	r.Phases.Write(stdout)
	fmt.Fprintln(stdout, r.Line())
	return exitOK
}
