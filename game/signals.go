package game

import "fmt"

// MaxSignalsPerStep bounds the signals one agent sends to other agents in
// one step, of which at most MaxBroadcastsPerStep go to "all". Every such
// signal is delivered to its receivers, traced and shown, and one to "all"
// costs as much as one to each agent; a script sending them in a loop
// (1,000 agents each broadcasting 1,000 signals a step: a billion
// deliveries) would stall the run for hours. A real agent sends a few.
// Signals an agent sends to itself are not counted: they cost a few
// variable writes.
const (
	MaxSignalsPerStep    = 256
	MaxBroadcastsPerStep = 1
)

// countSent counts a signal from ga in the current step and refuses the
// one over the limit with an error of the sender's step.
func (g *Game) countSent(ga *gameAgent, to, signal string) error {
	if ga == nil {
		return nil
	}
	if ga.sentStep != g.step {
		ga.sentStep, ga.sent, ga.sentAll = g.step, 0, 0
	}
	if ga.sent++; ga.sent > MaxSignalsPerStep {
		return fmt.Errorf("game: agent %s sends more than %d signals to other agents in one step (signal %q to %q); an agent may send at most %d a step",
			ga.a.ID(), MaxSignalsPerStep, signal, to, MaxSignalsPerStep)
	}
	if to == "all" {
		if ga.sentAll++; ga.sentAll > MaxBroadcastsPerStep {
			return fmt.Errorf("game: agent %s sends a second signal to all agents in one step (signal %q); an agent may send one signal to all a step, which reaches every agent",
				ga.a.ID(), signal)
		}
	}
	return nil
}
