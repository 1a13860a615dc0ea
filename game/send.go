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

// Signal sends a signal to the agent with id to, or to every agent with to
// "all", now: between two steps, at the game's current step and time, as
// the world script's game.signal does. The trace names the sender "game".
// data is the signal's data: nil (the zero Value: no data), a boolean, a
// number, a string, or a table of those with string or integer keys,
// nested at most runtime.MaxDataDepth deep and at most runtime.MaxDataSize
// bytes once encoded (runtime.CheckData); other data is an error and
// nothing is sent, and so is a signal whose stimulus a receiver cannot hold
// (runtime.ErrStimuli: run.stimulus_memory). Each receiver gets the data as its stimulus.
// Call it between steps; from an action during a step use Agent.Send,
// which the game delivers after every agent has stepped. The game of a
// cluster's conductor or shard refuses it: send with Conductor.Signal.
func (g *Game) Signal(to, name string, data runtime.Value) error {
	if err := g.enterCall("send a signal from Go"); err != nil {
		return err
	}
	defer g.leave()
	if err := g.notStepping("send a signal from Go"); err != nil {
		return err
	}
	if g.cl != nil { // this process holds a part of the run (cluster_refuse.go)
		return errClusterSignal
	}
	if name == "" {
		return fmt.Errorf("game: a signal needs a name")
	}
	if err := runtime.CheckData(data); err != nil {
		return fmt.Errorf("game: signal %q to %q: %w", name, to, err)
	}
	g.syncWorkerEnvs() // workers.go: the trace's observer reaches every worker's agents before the first step too
	s, t := g.step, g.Time(g.step)
	if to == "all" {
		if err := g.refuses(name, data, g.agents...); err != nil {
			return fmt.Errorf("game: signal %q to all: %w", name, err)
		}
		for _, ga := range g.agents {
			g.deliver(ga, name, data, GoSender, s, t)
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
	if err := g.refuses(name, data, ga); err != nil {
		return fmt.Errorf("game: signal %q to %q: %w", name, to, err)
	}
	g.deliver(ga, name, data, GoSender, s, t)
	return nil
}
