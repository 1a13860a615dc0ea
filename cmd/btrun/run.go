package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/btrun/btrun/game"
)

// runRun is `btrun run` (and plain `btrun`): run a game config.
func runRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "config.toml", "the game config")
	steps := fs.Int("steps", -1, "steps to run (default: the config's run.steps)")
	trace := fs.String("trace", "", `write the JSON Lines trace to this file, or "-" for stdout`)
	explain := fs.Bool("explain", false, `with a trace: add to each step line why it went as it did (key "why": conditions and what they read, scores, weights, orders, refusals)`)
	seed := fs.Int64("seed", 0, "seed for bt.random (default: the config's run.seed)")
	quiet := fs.Bool("quiet", false, "print only the closing summary")
	save := fs.String("save", "", "save the run to this file at the end (and every save.every steps)")
	load := fs.String("load", "", "continue the run saved in this file")
	watch := fs.Bool("watch", false, "reload trees, scripts and plugins when their files change, between two steps")
	realtime := fs.Bool("realtime", false, "run no faster than one step every dt seconds of wall time (default: the config's run.realtime)")
	debug := fs.String("debug", "", "serve the live view on this address (for example 127.0.0.1:7070; docs/debug.md)")
	paused := fs.Bool("paused", false, "with -debug: start paused, before the first step")
	edit := fs.Bool("edit", false, "with -debug: the page edits the tree files too (saving writes a file and reloads the game)")
	workers := fs.Int("workers", 1, "threads to spread the agents over, 0 for one per CPU core (default: the config's run.workers)")
	shards := fs.Int("shards", 0, "run the agents on N shard processes, over NATS (docs/cluster.md)")
	clusterURL := fs.String("cluster", "", "with -shards: an existing NATS server or cluster (nats://HOST:PORT); shards join with `btrun shard`")
	runName := fs.String("name", "", "with -shards: the run's name on NATS")
	resume := fs.Bool("resume", false, "with -shards and -name: go on with the run from its last checkpoint, after its conductor died")
	inputs := fs.String("inputs", "", "send the signals this file lists between steps (one a line: AFTER signal TO NAME [DATA]; docs/cli.md)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: btrun run [-config F] [-steps N] [-trace F|-] [-explain] [-save F] [-load F] [-inputs F] [-seed N] [-quiet] [-watch] [-realtime] [-workers N] [-debug ADDR [-paused] [-edit]]")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if code, ok := wantArgs(fs, stderr, 0, ""); !ok {
		return code
	}
	stepsSet := false
	fs.Visit(func(f *flag.Flag) { stepsSet = stepsSet || f.Name == "steps" })
	if stepsSet && *steps < 0 {
		fmt.Fprintf(stderr, "btrun run: -steps %d: the number of steps must be 0 or more\n", *steps)
		fs.Usage()
		return exitUsage
	}
	if *workers < 0 || *workers > game.MaxWorkers {
		fmt.Fprintf(stderr, "btrun run: -workers %d: must be from 0 (one per CPU core) to %d\n", *workers, game.MaxWorkers)
		fs.Usage()
		return exitUsage
	}
	if *paused && *debug == "" {
		fmt.Fprintln(stderr, "btrun run: -paused needs -debug ADDR (it starts the live view paused)")
		fs.Usage()
		return exitUsage
	}
	if *edit && *debug == "" {
		fmt.Fprintln(stderr, "btrun run: -edit needs -debug ADDR (the live view's page is the editor)")
		fs.Usage()
		return exitUsage
	}
	if *shards < 0 || *shards > game.MaxShards {
		fmt.Fprintf(stderr, "btrun run: -shards %d: must be from 0 (one process) to %d\n", *shards, game.MaxShards)
		return exitUsage
	}
	cfg, err := game.LoadConfig(*config)
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	feed, err := openFeed(*inputs, cfg) // inputs.go
	if err != nil {
		fmt.Fprintln(stderr, "btrun run:", err)
		return exitUsage
	}
	shardsSet := false
	fs.Visit(func(f *flag.Flag) { shardsSet = shardsSet || f.Name == "shards" })
	if !shardsSet {
		*shards = cfg.Cluster.Shards
	}
	if *shards > 0 {
		if *resume && *runName == "" {
			fmt.Fprintln(stderr, "btrun run: -resume needs the run's -name")
			return exitUsage
		}
		return clusterRun{cfg: cfg, shards: *shards, url: *clusterURL, name: *runName, config: *config, trace: *trace,
			save: *save, load: *load, steps: map[bool]int{true: *steps, false: -1}[stepsSet], workers: *workers, quiet: *quiet, resume: *resume, feed: feed,
			debug: debugOptions{addr: *debug, paused: *paused, edit: *edit}, live: liveOptions{watch: *watch, explain: *explain, realtime: *realtime}}.run(stdout, stderr)
	}
	if *clusterURL != "" || *runName != "" || *resume {
		fmt.Fprintln(stderr, "btrun run: -cluster, -name and -resume go with -shards N (or [cluster] shards)")
		return exitUsage
	}
	in := watchInterrupts(stderr)
	defer in.release()
	opts := game.Options{Trace: *trace, Quiet: *quiet, Stdout: stdout, Stderr: stderr, Timing: true,
		SavePath: *save, SaveEvery: -1, Progress: *trace != "-" && isTerminal(stdout), Stop: in.stop,
		Realtime: *realtime, Explain: *explain, BeforeStep: feed.beforeStep(stderr)}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "seed" {
			opts.Seed = seed
		}
		if f.Name == "workers" {
			opts.Workers = workers
		}
	})
	g, err := game.Open(cfg, opts)
	if err != nil {
		printProblems(stderr, err)
		if code := in.exitCode(); code != 0 {
			return code // a plugin build the signal cancelled
		}
		if errors.Is(err, game.ErrPluginStart) {
			return exitRuntime
		}
		return exitUsage
	}
	if err := g.OpenTrace(); err != nil {
		fmt.Fprintln(stderr, "btrun:", err)
		g.Close()
		return exitRuntime
	}
	people := stdout
	if *trace == "-" {
		people = stderr
	}
	if err := g.Start(); err != nil {
		fmt.Fprintln(stderr, "btrun:", err)
		g.Close()
		return exitRuntime
	}
	if *load != "" {
		warnings, err := g.Load(*load)
		if err != nil {
			fmt.Fprintln(stderr, "btrun:", err)
			g.Close()
			return exitRuntime
		}
		for _, w := range warnings {
			fmt.Fprintln(people, "warning:", w)
		}
	}
	for _, w := range g.Warnings() {
		fmt.Fprintln(people, "warning:", w)
	}
	if *watch {
		if err := g.Watch(); err != nil {
			fmt.Fprintln(stderr, "btrun:", err)
			g.Close()
			return exitRuntime
		}
	}
	n := cfg.Run.Steps
	if stepsSet {
		n = *steps
	}
	stopDebug, err := startDebug(g, debugOptions{addr: *debug, paused: *paused, edit: *edit}, people, in.stop)
	if err != nil {
		fmt.Fprintln(stderr, "btrun:", err)
		g.Close()
		return exitRuntime
	}
	runErr := g.Run(n)
	stopDebug()
	closeErr := g.Close()
	stopped := errors.Is(runErr, game.ErrStopped)
	if runErr == nil || stopped {
		g.WriteSummary()
	}
	if stopped {
		runErr = nil
	}
	if err := errors.Join(runErr, closeErr); err != nil {
		fmt.Fprintln(stderr, "btrun:", err)
		return exitRuntime
	}
	if stopped {
		return in.exitCode()
	}
	return exitOK
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
