// Command savebench saves and loads the example game so that callgrind can
// count the instructions of a save and of a load, the stable figure on a
// machine whose load changes timings (docs/performance.md):
//
//	go build -o /tmp/nav ./plugins/nav
//	go build -o /tmp/savebench ./game/internal/savebench
//	cg() { GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//	    /tmp/savebench -nav /tmp/nav -agents 10000 -steps 50 "$@" 2>&1 | grep 'refs'; }
//	cg -times 0; cg -times 10 -only save; cg -times 10 -only load
//
// A save's count is (the count with 10 saves - the count with none) / 10,
// and per agent / 10,000; the same for a load. The whole program is
// counted: callgrind's --toggle-collect loses its way in Go's stack
// switches and gives counts that make no sense, while the setup before the
// saves is the same instructions run after run. Each save writes its file
// and each load reads it (system calls are not counted).
//
// callgrind 3.19 aborts when a signal arrives: GODEBUG=asyncpreemptoff=1
// keeps Go's preemption signals away, and -nav (the nav plugin built
// beforehand) keeps away the children that building it would start, whose
// exits send signals. The game keeps running its plugin process until the
// command exits.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"time"

	"github.com/btrun/btrun/game"
)

func main() {
	config := flag.String("config", "config.toml", "the game config")
	nav := flag.String("nav", "", "the nav plugin's executable, built beforehand (else the config's path, built if it must be)")
	agents := flag.Int("agents", 10000, "agents, spread over the config's [[agents]] as btrun bench does")
	steps := flag.Int("steps", 50, "steps to run before saving")
	times := flag.Int("times", 2, "saves and loads (each a save to a file, then a load of it)")
	only := flag.String("only", "", "save or load: only -times saves, or only -times loads of one save")
	flag.Parse()
	if *only != "" && *only != "save" && *only != "load" {
		fmt.Fprintf(os.Stderr, "savebench: -only %q: want save or load\n", *only)
		os.Exit(2)
	}
	if err := run(*config, *nav, *agents, *steps, *times, *only); err != nil {
		fmt.Fprintln(os.Stderr, "savebench:", err)
		os.Exit(1)
	}
}

func run(config, nav string, agents, steps, times int, only string) error {
	cfg, err := game.LoadConfig(config)
	if err != nil {
		return err
	}
	cfg.ScaleAgents(agents)
	if nav != "" {
		for i := range cfg.Plugins {
			if cfg.Plugins[i].Name == "nav" {
				cfg.Plugins[i].Path = nav
			}
		}
	}
	g, err := game.Open(cfg, game.Options{Quiet: true, Stdout: io.Discard, Stderr: io.Discard, SaveEvery: -1})
	if err != nil {
		return err
	}
	if err := g.Start(); err != nil {
		return err
	}
	for range steps {
		if _, err := g.Advance(); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp("", "savebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "game.save")
	// One save and load first: the file, the plan and the buffers a game
	// keeps between loads exist before the counted ones. Then the garbage
	// collector is off: a collection would land in one count or another by
	// chance.
	if err := saveOnce(g, path); err != nil {
		return err
	}
	if err := loadOnce(g, path); err != nil {
		return err
	}
	goruntime.LockOSThread()
	goruntime.GC()
	debug.SetGCPercent(-1)
	var save, load time.Duration
	for range times {
		start := time.Now()
		if only != "load" {
			if err := saveOnce(g, path); err != nil {
				return err
			}
		}
		mid := time.Now()
		if only != "save" {
			if err := loadOnce(g, path); err != nil {
				return err
			}
		}
		save, load = save+mid.Sub(start), load+time.Since(mid)
	}
	n := float64(agents * times)
	fmt.Printf("savebench: %d agents, %d times:", agents, times)
	if only != "load" {
		fmt.Printf(" %.0f agents/s saved", n/save.Seconds())
	}
	if only != "save" {
		fmt.Printf(" %.0f agents/s loaded", n/load.Seconds())
	}
	fmt.Println(" (wall, file writes and reads included)")
	return nil
}

// saveOnce saves the game (not inlined: it shows in profiles).
//
//go:noinline
func saveOnce(g *game.Game, path string) error { return g.Save(path) }

// loadOnce loads the save (not inlined: it shows in profiles).
//
//go:noinline
func loadOnce(g *game.Game, path string) error {
	_, err := g.Load(path)
	return err
}
