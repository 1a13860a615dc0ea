package game

import "fmt"

// MaxSignalsPerStep bounds the signals one agent sends to other agents in
// one step (a signal to "all" counts once). Every such signal is delivered
// to its receivers, traced and shown; a script sending them in a loop
// (1,000 agents each broadcasting 1,000 signals a step) would stall the run
// for minutes. A real agent sends a few. Signals an agent sends to itself
// are not counted: they cost a few variable writes.
const MaxSignalsPerStep = 16

// countSent counts a signal from ga in the current step and refuses the
// one over the limit with an error of the sender's step.
func (g *Game) countSent(ga *gameAgent, to, signal string) error {
	if ga == nil {
		return nil
	}
	if ga.sentStep != g.step {
		ga.sentStep, ga.sent = g.step, 0
	}
	if ga.sent++; ga.sent > MaxSignalsPerStep {
		return fmt.Errorf("game: agent %s sends more than %d signals to other agents in one step (signal %q to %q); an agent may send at most %d a step",
			ga.a.ID(), MaxSignalsPerStep, signal, to, MaxSignalsPerStep)
	}
	return nil
}
