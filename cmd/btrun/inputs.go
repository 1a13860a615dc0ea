package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/runtime"
)

// `btrun run -inputs FILE` sends signals and adds and removes agents from
// outside the game between two steps, as a Go program's Game.Signal,
// AddAgent and RemoveAgent do: one per line,
//
//	AFTER signal TO NAME [DATA]
//	AFTER add ID TREE
//	AFTER remove ID
//	AFTER reload [PATH FROM]
//
// AFTER the step it follows (0: before the first step), TO an agent's id
// or "all", DATA JSON (a number, a string, true or false, an object or an
// array). reload loads the game's files again (Game.Reload), after
// writing the content of file FROM over file PATH when they are given (both
// relative to the config's folder: a scripted edit); it comes first among
// the lines of its step (cluster_reload_inputs.go). Lines come in the
// order of their steps; # starts a comment.
// One process and a cluster apply them alike, a cluster journaling each
// before it applies it (docs/cluster.md, "Inputs from outside").

// inputLimit bounds an inputs file, and maxInputs its lines.
const (
	inputLimit = 16 << 20
	maxInputs  = 1 << 20
)

// runInput is one line of an inputs file.
type runInput struct {
	line     int
	after    uint64
	op       string // "signal", "add", "remove"
	to, name string // signal: receiver, signal; add: id, tree; remove: id
	data     runtime.Value
}

// readInputs reads an inputs file.
func readInputs(path string) ([]runInput, error) {
	b, err := readfile.Read(path, inputLimit, "inputs file")
	if err != nil {
		return nil, err
	}
	var ins []runInput
	for n, line := range bytes.Split(b, []byte("\n")) {
		pos := fmt.Sprintf("%s:%d", path, n+1)
		text := strings.TrimSpace(string(line))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if len(ins) == maxInputs {
			return nil, fmt.Errorf("%s: more than %d inputs", pos, maxInputs)
		}
		in, err := parseInput(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pos, err)
		}
		if len(ins) > 0 && in.after < ins[len(ins)-1].after {
			return nil, fmt.Errorf("%s: after step %d comes after a line of step %d: the lines go in the order of their steps", pos, in.after, ins[len(ins)-1].after)
		}
		if err := reloadFirst(in, ins); err != nil { // cluster_reload_inputs.go
			return nil, fmt.Errorf("%s: %w", pos, err)
		}
		in.line = n + 1
		ins = append(ins, in)
	}
	return ins, nil
}

// parseInput reads one line.
func parseInput(text string) (runInput, error) {
	var in runInput
	f := strings.Fields(text)
	usage := fmt.Errorf("%q: an input is AFTER signal TO NAME [DATA], AFTER add ID TREE, AFTER remove ID or AFTER reload [PATH FROM]", text)
	if len(f) == 2 && f[1] == "reload" {
		f = append(f, "")
	}
	if len(f) < 3 {
		return in, usage
	}
	after, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil || after > game.MaxSteps {
		return in, fmt.Errorf("%q: the step an input follows is a number from 0 to %d", f[0], uint64(game.MaxSteps))
	}
	in.after, in.op, in.to = after, f[1], f[2]
	switch {
	case in.op == "add" && len(f) == 4, in.op == "signal" && len(f) == 4:
		in.name = f[3]
	case in.op == "remove" && len(f) == 3 && in.to != "", in.op == "reload" && len(f) == 3 && in.to == "":
	case in.op == "reload" && len(f) == 4: // PATH FROM
		if !filepath.IsLocal(filepath.FromSlash(in.to)) {
			// The line writes over PATH: only the game's own files, never
			// a file elsewhere that an inputs file should not reach.
			return in, fmt.Errorf("%q: a reload's PATH is a file inside the config's folder, relative to it (not absolute, no ..)", in.to)
		}
		in.name = f[3]
	case in.op == "signal" && len(f) > 4:
		in.name = f[3]
		// The data is the rest of the line, spaces and all. Fields cut at
		// unicode.IsSpace: so must this, or a field ended by another space
		// (a no-break space, a vertical tab) would leave no blank to find.
		rest := text
		for range 4 {
			rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
			rest = rest[strings.IndexFunc(rest, unicode.IsSpace):]
		}
		rest = strings.TrimSpace(rest)
		if in.data, err = parseData(in.name, rest); err != nil {
			return in, err
		}
	default:
		return in, usage
	}
	return in, nil
}

// parseData reads a signal's data: one JSON value.
func parseData(name, text string) (runtime.Value, error) {
	var v any
	d := json.NewDecoder(strings.NewReader(text))
	if err := d.Decode(&v); err != nil || d.More() {
		return runtime.Value{}, fmt.Errorf("signal %s's data %q: not one JSON value", name, text)
	}
	data, err := runtime.DataFromDecoded(v)
	if err != nil {
		return data, fmt.Errorf("signal %s's %w", name, err)
	}
	if err := runtime.CheckData(data); err != nil {
		return data, fmt.Errorf("signal %s's data: %w", name, err)
	}
	return data, nil
}

// inputFeed hands out an inputs file's lines after their steps.
type inputFeed struct {
	path string
	ins  []runInput
	next int // the first not yet sent
	cfg  *game.Config
}

// inputTarget is what takes the inputs: a game, or a cluster's conductor.
type inputTarget interface {
	Signal(to, name string, data runtime.Value) error
	AddAgent(id, tree string, data runtime.AgentData) error
	RemoveAgent(id string) error
	// Reload writes from over path when given, then reloads the game's
	// files (cluster_reload_inputs.go).
	Reload(path, from string) error
}

// gameInputs is a game as an inputTarget.
type gameInputs struct {
	*game.Game
	cfg *game.Config // where a reload line's paths are (cluster_reload_inputs.go)
}

func (g gameInputs) AddAgent(id, tree string, data runtime.AgentData) error {
	_, err := g.Game.AddAgent(id, tree, data)
	return err
}

// apply applies the line to t.
func (in *runInput) apply(t inputTarget) error {
	switch in.op {
	case "add":
		return t.AddAgent(in.to, in.name, nil)
	case "remove":
		return t.RemoveAgent(in.to)
	case "reload":
		return t.Reload(in.to, in.name)
	}
	return t.Signal(in.to, in.name, in.data)
}

// send sends the inputs that follow step s, those before it passed by (a
// -load's steps, or a resumed run's checkpoint). again sends those of
// step s once more (the live view's time travel replays the step). An
// input's error is the game's answer (reported, and the run goes on, as a
// refused Game.Signal leaves the game as it was) unless fatal says it is
// not.
func (f *inputFeed) send(s uint64, again bool, t inputTarget, fatal func(error) bool, report func(error)) error {
	if f == nil {
		return nil
	}
	i := f.next
	if again {
		i = 0
	}
	for ; i < len(f.ins) && f.ins[i].after <= s; i++ {
		in := f.ins[i]
		if in.after < s {
			continue
		}
		if err := in.apply(t); err != nil {
			if fatal(err) {
				f.next = max(f.next, i+1)
				return err
			}
			report(fmt.Errorf("%s:%d: %w", f.path, in.line, err))
		}
	}
	f.next = max(f.next, i)
	return nil
}

// skip passes by the inputs of steps before s and then those journaled
// (a resumed run's checkpoint and journal hold them), matched in order by
// step, receiver and signal: a line the game refused before it was
// journaled (no such agent) is passed by too.
func (f *inputFeed) skip(s uint64, reloaded bool, journaled []cluster.Input) {
	f.next = 0
	for f.next < len(f.ins) && f.ins[f.next].after < s {
		f.next++
	}
	// A checkpoint taken after the reload lines of its step holds them
	// (cluster_reload.go): they come first among the step's lines.
	for reloaded && f.next < len(f.ins) && f.ins[f.next].after == s && f.ins[f.next].op == "reload" {
		f.next++
	}
	for _, j := range journaled {
		// An input no line is (the live view's, -watch's reload) passes
		// by no line (cluster_reload_inputs.go).
		if k := f.find(&j); k >= 0 {
			f.next = k + 1
		}
	}
}

// is reports whether the line is the journaled input j.
func (in *runInput) is(j *cluster.Input) bool {
	kind := map[string]cluster.InputKind{"signal": cluster.InputSignal, "add": cluster.InputAdd, "remove": cluster.InputRemove, "reload": cluster.InputReload}[in.op]
	if kind == cluster.InputReload {
		return in.after == j.Step && kind == j.Kind && in.reloads(j) // cluster_reload_inputs.go
	}
	return in.after == j.Step && kind == j.Kind && in.to == j.To && in.name == j.Name
}

// openFeed reads the inputs file at path ("": none).
func openFeed(path string, cfg *game.Config) (*inputFeed, error) {
	if path == "" {
		return nil, nil
	}
	ins, err := readInputs(path)
	if err != nil {
		return nil, err
	}
	return &inputFeed{path: path, ins: ins, cfg: cfg}, nil
}

// beforeStep sends the inputs of one process's run (game.Options.BeforeStep).
func (f *inputFeed) beforeStep(stderr io.Writer) func(*game.Game, game.StepInfo) error {
	if f == nil {
		return nil
	}
	return func(g *game.Game, si game.StepInfo) error {
		return f.send(si.Step-1, si.Replay, gameInputs{g, f.cfg}, func(error) bool { return false },
			func(err error) { fmt.Fprintln(stderr, "btrun:", err) })
	}
}
