package main

// -callgrind: the table in instructions, counted by valgrind's callgrind,
// which are exact whatever else the machine runs (CPU times on a shared
// machine moved by a factor of two from run to run).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// count is one engine's instructions: the run with the calls less the run
// without them, over the log's calls.
type count struct {
	engine      string
	calls       int
	errors      int
	with, base  int64 // whole-program instructions of the two runs
	checksum    string
	description string // what the base run leaves out
}

func (c count) perCall() float64 { return float64(c.with-c.base) / float64(max(c.calls, 1)) }

// runGame opens the game and runs steps of it, with no hook: what
// -callgrind counts for btrun (steps, less 0 steps). It leaves the game
// open, its plugin process running until the command exits: callgrind 3.19
// aborts on the signal a child's exit sends (as on Go's preemption
// signals, kept away by GODEBUG=asyncpreemptoff=1; -nav keeps away the
// children that building the plugin would start).
func runGame(config, nav string, agents, steps int) error {
	g, err := openGame(config, nav, agents)
	if err != nil {
		return err
	}
	for range steps {
		if _, err := g.Advance(); err != nil {
			return err
		}
	}
	return nil
}

// countAll records the log, then counts btrun's stepping (a run of the
// game's steps less a run that only opens and closes it) and each engine's
// replay (replay.lua's loop with the calls less the loop without them,
// each run after loading the log and scripts and a full collection).
func countAll(config, nav, dir string, agents, steps int) ([]count, error) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return nil, errors.New("-callgrind needs valgrind on PATH")
	}
	logPath := filepath.Join(dir, "calls.log")
	calls, err := record(config, nav, logPath, agents, steps)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	game := func(n int) []string {
		args := []string{self, "-config", config, "-agents", strconv.Itoa(agents), "-run-steps", strconv.Itoa(n)}
		if nav != "" {
			args = append(args, "-nav", nav)
		}
		return args
	}
	with, err := callgrind(game(steps))
	if err != nil {
		return nil, fmt.Errorf("btrun: %w", err)
	}
	base, err := callgrind(game(0))
	if err != nil {
		return nil, fmt.Errorf("btrun: %w", err)
	}
	rows := []count{{engine: "btrun (whole agent-steps)", calls: calls, with: with, base: base, description: "the game opened and closed"}}
	script := filepath.Join(dir, "replay.lua")
	if err := writeScript(script); err != nil {
		return nil, err
	}
	for _, p := range peerEngines(config, dir) {
		c := count{engine: p.name, description: "the replay loop without the calls"}
		for _, mode := range []string{"calls", "base"} {
			n, out, err := callgrindOut([]string{p.bin, script, logPath, "1", "-", mode})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.name, err)
			}
			if mode == "base" {
				c.base = n
				continue
			}
			c.with = n
			if c.calls, c.errors, c.checksum, err = parseOnly(out); err != nil {
				return nil, fmt.Errorf("%s: %w", p.name, err)
			}
		}
		rows = append(rows, c)
	}
	return rows, nil
}

type engine struct{ name, bin string }

// peerEngines are the engines found: the two gluas (built here) and C Lua
// 5.1 and LuaJIT where installed.
func peerEngines(config, dir string) []engine {
	var peers []engine
	if b := buildGlua(filepath.Join(filepath.Dir(config), "third_party", "gopher-lua"), filepath.Join(dir, "glua-patched")); b != "" {
		peers = append(peers, engine{"gopher-lua, patched (third_party), bare", b})
	}
	if b := upstreamGlua(dir); b != "" {
		peers = append(peers, engine{"gopher-lua v1.1.2 (upstream glua)", b})
	}
	for _, b := range []string{"lua5.1", "luajit"} {
		if p, err := exec.LookPath(b); err == nil {
			peers = append(peers, engine{b, p})
		}
	}
	return peers
}

var refsLine = regexp.MustCompile(`I\s+refs:\s+([\d,]+)`)

// callgrind runs args under callgrind and returns the program's
// instructions.
func callgrind(args []string) (int64, error) {
	n, _, err := callgrindOut(args)
	return n, err
}

// callgrindOut is callgrind with the program's standard output.
// asyncpreemptoff keeps Go's preemption signals away (callgrind 3.19
// aborts on them). GOMAXPROCS=1 makes a Go program's count depend less on
// timing: with idle processors the collector's idle workers and the
// scheduler's spinning threads run as much as the host lets them (two runs
// of the same replay differed by 4,400 instructions per call, with it by
// about 1,150: the collection Go forces every two minutes and the
// scavenger still depend on time). Neither means anything to the C engines.
func callgrindOut(args []string) (int64, string, error) {
	cmd := exec.Command("valgrind", append([]string{"--tool=callgrind", "--callgrind-out-file=/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1", "GOMAXPROCS=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, "", fmt.Errorf("%w: %s", err, tail(stderr.String()))
	}
	return parseRefs(stderr.String(), stdout.String())
}

// parseRefs reads callgrind's count from its report.
func parseRefs(report, out string) (int64, string, error) {
	m := refsLine.FindStringSubmatch(report)
	if m == nil {
		return 0, "", fmt.Errorf("no instruction count in callgrind's report: %s", tail(report))
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	return n, out, err
}

var onlyLine = regexp.MustCompile(`calls calls (\d+) errors (\d+) checksum (\d+)`)

// parseOnly reads the line replay.lua prints after its calls loop alone.
func parseOnly(out string) (calls, errors int, checksum string, err error) {
	m := onlyLine.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, "", fmt.Errorf("no result in its output: %s", tail(out))
	}
	calls, _ = strconv.Atoi(m[1])
	errors, _ = strconv.Atoi(m[2])
	return calls, errors, m[3], nil
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

// printCounts writes the table in instructions per call.
func printCounts(w io.Writer, rows []count) {
	fastest := 0.0
	for _, r := range rows {
		if p := r.perCall(); fastest == 0 || p < fastest {
			fastest = p
		}
	}
	fmt.Fprintln(w, "| engine | calls | calls that raised | instructions per call | ratio to the fastest | subtracted run (instructions) | checksum |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %d | %d | %.0f | %.1f | %s: %d | %s |\n", r.engine, r.calls, r.errors, r.perCall(), r.perCall()/fastest, r.description, r.base, r.checksum)
	}
}
