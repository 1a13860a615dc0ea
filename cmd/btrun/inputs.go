package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/runtime"
)

// `btrun run -inputs FILE` sends signals from outside the game between two
// steps, as a Go program's Game.Signal does: one per line,
//
//	AFTER signal TO NAME [DATA]
//
// AFTER the step it follows (0: before the first step), TO an agent's id
// or "all", DATA JSON (a number, a string, true or false, an object or an
// array). Lines come in the order of their steps; # starts a comment.
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
	to, name string
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
		in.line = n + 1
		ins = append(ins, in)
	}
	return ins, nil
}

// parseInput reads "AFTER signal TO NAME [DATA]".
func parseInput(text string) (runInput, error) {
	var in runInput
	f := strings.SplitN(text, " ", 5)
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	if len(f) < 4 || f[1] != "signal" {
		return in, fmt.Errorf("%q: an input is AFTER signal TO NAME [DATA]", text)
	}
	after, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil || after > game.MaxSteps {
		return in, fmt.Errorf("%q: the step an input follows is a number from 0 to %d", f[0], uint64(game.MaxSteps))
	}
	in.after, in.to, in.name = after, f[2], f[3]
	if len(f) == 5 && f[4] != "" {
		var v any
		d := json.NewDecoder(strings.NewReader(f[4]))
		if err := d.Decode(&v); err != nil || d.More() {
			return in, fmt.Errorf("signal %s's data %q: not one JSON value", in.name, f[4])
		}
		if in.data, err = runtime.DataFromDecoded(v); err != nil {
			return in, fmt.Errorf("signal %s's %w", in.name, err)
		}
		if err := runtime.CheckData(in.data); err != nil {
			return in, fmt.Errorf("signal %s's data: %w", in.name, err)
		}
	}
	return in, nil
}

// inputFeed hands out an inputs file's lines after their steps.
type inputFeed struct {
	path string
	ins  []runInput
	next int // the first not yet sent
}

// sendFunc sends a signal; its error is a refusal (reported, and the run
// goes on, as a refused Game.Signal leaves the game as it was) unless
// fatal says otherwise.
type sendFunc func(to, name string, data runtime.Value) error

// send sends the inputs that follow step s, those before it passed by (a
// -load's steps, or a resumed run's checkpoint). again sends those of
// step s once more (the live view's time travel replays the step).
func (f *inputFeed) send(s uint64, again bool, signal sendFunc, fatal func(error) bool, report func(error)) error {
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
		if err := signal(in.to, in.name, in.data); err != nil {
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
func (f *inputFeed) skip(s uint64, journaled []cluster.Input) {
	f.next = 0
	for f.next < len(f.ins) && f.ins[f.next].after < s {
		f.next++
	}
	for _, j := range journaled {
		for f.next < len(f.ins) && !f.ins[f.next].is(&j) {
			f.next++
		}
		f.next = min(f.next+1, len(f.ins))
	}
}

// is reports whether the line is the journaled input j.
func (in *runInput) is(j *cluster.Input) bool {
	return in.after == j.Step && in.to == j.To && in.name == j.Name
}

// openFeed reads the inputs file at path ("": none).
func openFeed(path string) (*inputFeed, error) {
	if path == "" {
		return nil, nil
	}
	ins, err := readInputs(path)
	if err != nil {
		return nil, err
	}
	return &inputFeed{path: path, ins: ins}, nil
}

// beforeStep sends the inputs of one process's run (game.Options.BeforeStep).
func (f *inputFeed) beforeStep(stderr io.Writer) func(*game.Game, game.StepInfo) error {
	if f == nil {
		return nil
	}
	return func(g *game.Game, si game.StepInfo) error {
		return f.send(si.Step-1, si.Replay, g.Signal, func(error) bool { return false },
			func(err error) { fmt.Fprintln(stderr, "btrun:", err) })
	}
}
