package game

import (
	"fmt"

	"github.com/btrun/btrun/runtime"
)

// Signals a Go program sends: to an agent or to all, between steps, with
// data. The agents' own signals to each other need no Router of the
// program's: the game routes them as `btrun run` does (a signal to another
// agent is delivered after every agent has stepped, in the order sent), so a
// program that steps the game with Advance gets the same order.

// GoSender is the sender the trace names for signals a Go program sends
// (Signal).
const GoSender = "game"

// Limits of a signal's data.
const (
	MaxSignalDataDepth = 16       // tables nested in tables
	MaxSignalDataSize  = 64 << 10 // bytes, once encoded
)

// Signal sends a signal to the agent with id to, or to every agent with to
// "all", now: between two steps, at the game's current step and time, as
// the world script's game.signal does. The trace names the sender "game".
// data is the signal's data: nil (the zero Value: no data), a boolean, a
// number, a string, or a table of those with string or integer keys,
// nested at most MaxSignalDataDepth deep and at most MaxSignalDataSize
// bytes once encoded; other data is an error and nothing is sent. (Until
// the runtime keeps the data of signals, receivers see the signal alone.)
// Call it between steps; from an action during a step use Agent.Send,
// which the game delivers after every agent has stepped.
func (g *Game) Signal(to, name string, data runtime.Value) error {
	if err := g.notStepping("send a signal from Go"); err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("game: a signal needs a name")
	}
	if err := CheckSignalData(data); err != nil {
		return fmt.Errorf("game: signal %q to %q: %w", name, to, err)
	}
	s, t := g.step, g.Time(g.step)
	if to == "all" {
		for _, ga := range g.agents {
			g.deliver(ga, name, GoSender, s, t)
		}
		return nil
	}
	ga := g.byID[to]
	if ga == nil {
		return fmt.Errorf("game: no agent %q to send %q to", to, name)
	}
	if ga.stopped {
		return fmt.Errorf("game: agent %s is stopped (on_failure = \"stop\"): it receives no signal", to)
	}
	g.deliver(ga, name, GoSender, s, t)
	return nil
}

// CheckSignalData reports whether v can be a signal's data: nil, a
// boolean, a number, a string, or a table of those whose keys are strings
// or integers, at most MaxSignalDataDepth deep and MaxSignalDataSize bytes
// once encoded.
func CheckSignalData(v runtime.Value) error {
	if err := checkData(v, "data", 0); err != nil {
		return err
	}
	if v.Kind != runtime.TableValue {
		if len(v.Str) > MaxSignalDataSize {
			return fmt.Errorf("data of %d bytes: a signal's data is at most %d bytes", len(v.Str), MaxSignalDataSize)
		}
		return nil
	}
	e := runtime.NewEncoder()
	e.Value(v)
	size := len(e.Bytes())
	for _, s := range e.Strings() {
		size += len(s)
	}
	if size > MaxSignalDataSize {
		return fmt.Errorf("data of %d bytes once encoded: a signal's data is at most %d bytes", size, MaxSignalDataSize)
	}
	return nil
}

func checkData(v runtime.Value, path string, depth int) error {
	switch v.Kind {
	case runtime.NilValue, runtime.BoolValue, runtime.NumberValue, runtime.StringValue:
		return nil
	case runtime.TableValue:
		if depth >= MaxSignalDataDepth {
			return fmt.Errorf("%s: tables nested more than %d deep", path, MaxSignalDataDepth)
		}
		for _, f := range v.Table {
			var key string
			switch k := f.Key; {
			case k.Kind == runtime.StringValue:
				key = path + "." + k.Str
			case k.Kind == runtime.NumberValue && k.Num == float64(int64(k.Num)):
				key = fmt.Sprintf("%s[%d]", path, int64(k.Num))
			default:
				return fmt.Errorf("%s: a key of kind %d; keys are strings or integers", path, k.Kind)
			}
			if err := checkData(f.Val, key, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: a value of unknown kind %d", path, v.Kind)
}
