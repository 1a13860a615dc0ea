package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/internal/tempfile"
)

// runView is `btrun view FILE`: the live view on a recorded run, a save or
// a trace, to travel through it. A save is loaded and the page opens
// paused at its step. A trace is replayed: a run is deterministic, so the
// config run again writes the same lines; btrun runs it once quietly to
// check that (and to find the first step where it departs, when the trees
// or scripts changed since), then again under the live view, as fast as it
// can, to the trace's last step (or the step where it departed), where the
// page opens paused with every step before it on the time slider.
func runView(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "config.toml", "the game config the file was recorded with")
	addr := fs.String("debug", "127.0.0.1:7070", "serve the live view on this address")
	load := fs.String("load", "", "for a trace of a run that continued a save: that save")
	steps := fs.Int("steps", -1, "for a save: steps the page may run after it (default: the config's run.steps)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: btrun view [-config F] [-debug ADDR] [-load SAVE] [-steps N] FILE (a trace or a save)")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if code, ok := wantArgs(fs, stderr, 1, "FILE (a trace or a save to view)"); !ok {
		return code
	}
	file := fs.Arg(0)
	cfg, err := game.LoadConfig(*config)
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	isSave, err := isSaveFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "btrun view: %v\n", err)
		return exitUsage
	}
	v := viewer{cfg: cfg, file: file, addr: *addr, load: *load, stdout: stdout, stderr: stderr}
	if isSave {
		if *load != "" {
			fmt.Fprintln(stderr, "btrun view: -load goes with a trace; FILE is a save already")
			return exitUsage
		}
		n := cfg.Run.Steps
		if *steps >= 0 {
			n = *steps
		}
		v.load = file
		return v.show(n, false, true)
	}
	rec, err := readTraceSteps(file)
	if err != nil {
		fmt.Fprintf(stderr, "btrun view: %v\n", err)
		return exitUsage
	}
	if rec.first > 1 && *load == "" {
		fmt.Fprintf(stderr, "btrun view: %s starts at step %d: it continues a save; give that save with -load\n", file, rec.first)
		return exitUsage
	}
	depart, msg, err := v.replay(rec)
	if err != nil {
		fmt.Fprintf(stderr, "btrun view: %v\n", err)
		return exitRuntime
	}
	fmt.Fprintln(stdout, "btrun view:", msg)
	return v.show(int(depart-rec.first+1), rec.explain, false)
}

// viewer opens the game of a recorded file.
type viewer struct {
	cfg            *game.Config
	file, addr     string
	load           string // the save to start from ("": the config's start)
	stdout, stderr io.Writer
}

// open opens and starts the game, from v.load when set; trace is its
// trace file ("": none).
func (v viewer) open(trace string, explain bool) (*game.Game, error) {
	g, err := game.Open(v.cfg, game.Options{Trace: trace, Quiet: true, Stdout: v.stdout, Stderr: v.stderr, SaveEvery: -1, Explain: explain})
	if err != nil {
		return nil, err
	}
	if err := g.OpenTrace(); err != nil {
		g.Close()
		return nil, err
	}
	if err := g.Start(); err != nil {
		g.Close()
		return nil, err
	}
	if v.load != "" {
		if _, err := g.Load(v.load); err != nil {
			g.Close()
			return nil, err
		}
	}
	return g, nil
}

// replay runs the config to the trace's last step, quietly, and compares
// the lines it writes with the trace's: it returns the last step to show
// (the trace's last, or the first whose lines differ) and what it found.
func (v viewer) replay(rec traceSteps) (uint64, string, error) {
	tmp, err := tempfile.Dir("btrun-view")
	if err != nil {
		return 0, "", err
	}
	defer os.RemoveAll(tmp)
	again := filepath.Join(tmp, "trace.jsonl")
	g, err := v.open(again, rec.explain)
	if err != nil {
		return 0, "", err
	}
	runErr := g.Run(int(rec.last - rec.first + 1))
	if err := errors.Join(runErr, g.Close()); err != nil {
		return 0, "", err
	}
	step, line, want, got, err := firstDifference(v.file, again)
	if err != nil {
		return 0, "", err
	}
	if line == 0 {
		return rec.last, fmt.Sprintf("%s: steps %d to %d; the config run again writes every line of it, so the page shows that run", v.file, rec.first, rec.last), nil
	}
	return step, fmt.Sprintf("%s:%d: the config run again departs from the trace at step %d (the trees, scripts or config changed since it was written, or the run took commands from a live view); the page stops there\n  trace: %s\n  now:   %s",
		v.file, line, step, clip(want), clip(got)), nil
}

// show runs the game under the live view for n steps, as fast as it can
// (from the start when paused: the page steps it); at the last the page
// holds it paused until its Quit (or Ctrl-C).
func (v viewer) show(n int, explain, paused bool) int {
	in := watchInterrupts(v.stderr)
	defer in.release()
	g, err := v.open("", explain)
	if err != nil {
		fmt.Fprintln(v.stderr, "btrun view:", err)
		return exitRuntime
	}
	stop, err := startDebug(g, debugOptions{addr: v.addr, fast: !paused, paused: paused}, v.stdout, in.stop)
	if err != nil {
		fmt.Fprintln(v.stderr, "btrun view:", err)
		g.Close()
		return exitRuntime
	}
	runErr := g.Run(n)
	stop()
	if err := errors.Join(runErr, g.Close()); err != nil && !errors.Is(err, game.ErrStopped) {
		fmt.Fprintln(v.stderr, "btrun view:", err)
		return exitRuntime
	}
	return in.exitCode()
}

// isSaveFile reports whether file is a save (it begins with the saves'
// magic) rather than a trace.
func isSaveFile(file string) (bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(game.SaveMagic))
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == game.SaveMagic, nil
}

// traceSteps is what view needs of a trace: its first and last steps, and
// whether it was written with -explain.
type traceSteps struct {
	first, last uint64
	explain     bool
}

// maxTraceLine bounds one line of a trace read back (a step line with
// -explain of a large tree is long, never this long).
const maxTraceLine = 16 << 20

func readTraceSteps(file string) (traceSteps, error) {
	f, err := os.Open(file)
	if err != nil {
		return traceSteps{}, err
	}
	defer f.Close()
	var out traceSteps
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxTraceLine)
	for line := 1; sc.Scan(); line++ {
		var l struct {
			Step *uint64         `json:"step"`
			Why  json.RawMessage `json:"why"`
		}
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.Step == nil {
			return traceSteps{}, fmt.Errorf("%s:%d: not a trace line (a JSON object with a \"step\") nor a save", file, line)
		}
		if out.first == 0 {
			out.first = *l.Step
		}
		out.last = max(out.last, *l.Step)
		out.explain = out.explain || l.Why != nil
	}
	if err := sc.Err(); err != nil {
		return traceSteps{}, fmt.Errorf("%s: %w", file, err)
	}
	if out.last == 0 {
		return traceSteps{}, fmt.Errorf("%s: no step in it: an empty trace", file)
	}
	return out, nil
}

// firstDifference compares two traces line by line: the first line that
// differs (0 when none), its step (of the recorded trace's line, or the
// last step before it), and the two lines.
func firstDifference(recorded, again string) (step uint64, line int, want, got string, err error) {
	a, err := os.Open(recorded)
	if err != nil {
		return 0, 0, "", "", err
	}
	defer a.Close()
	b, err := os.Open(again)
	if err != nil {
		return 0, 0, "", "", err
	}
	defer b.Close()
	sa, sb := bufio.NewScanner(a), bufio.NewScanner(b)
	sa.Buffer(make([]byte, 64<<10), maxTraceLine)
	sb.Buffer(make([]byte, 64<<10), maxTraceLine)
	for line = 1; ; line++ {
		okA, okB := sa.Scan(), sb.Scan()
		if !okA && !okB {
			return 0, 0, "", "", errors.Join(sa.Err(), sb.Err())
		}
		want, got = sa.Text(), sb.Text()
		var l struct {
			Step uint64 `json:"step"`
		}
		if okA && json.Unmarshal(sa.Bytes(), &l) == nil && l.Step > 0 {
			step = l.Step
		}
		if okA != okB || want != got {
			if !okA {
				want = "(the trace ends here)"
			}
			if !okB {
				got = "(no more lines)"
			}
			return step, line, want, got, nil
		}
	}
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
