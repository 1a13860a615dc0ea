package game

import "fmt"

// Stepping from a Go program's own loop: Advance is one step of what Run
// does, for a program whose loop owns time (a frame loop, a server tick).
// It does everything Run does around a step (a reload the watcher saw, the
// live view's commands, the pace of run.realtime) but the periodic saves
// and the summary, which are the program's to decide.

// StepGate is a Debugger that lets a program's own loop go on while the
// debugger holds the game (Advance asks it instead of calling Between): the
// live view made with liveview.Options{Embedded: true} is one.
type StepGate interface {
	// MayStep runs the requests the debugger has queued and says whether
	// the next step may run now: false while the debugger holds the game
	// paused. It never waits. quit reports that the debugger asks to end
	// the game (the live view's Quit button).
	MayStep() (step, quit bool)
}

// Advance runs the next step of the game (the world's tick, the scheduled
// signals due, every agent's step in order, the signals agents sent each
// other) and reports whether it ran. Before the step it applies what a
// watcher saw change (Watch) and lets an attached debugger act: a live view
// that holds the game paused makes Advance return false without a step, so
// that the program's loop goes on; one that asks to end the game makes it
// return ErrStopped. Options.BeforeStep and AfterStep run around the step;
// an error of theirs, or of the step, is returned as Run returns it;
// an agent's own error or failure is not an error of Advance (Outcome
// tells it). Call it from the goroutine that owns the game: a call while
// another Advance (or Signal, AddAgent...) runs returns ErrBusy, one after
// Close returns ErrClosed.
func (g *Game) Advance() (bool, error) {
	if err := g.enter("advance"); err != nil {
		return false, err
	}
	defer g.leave()
	if g.step >= MaxSteps {
		return false, fmt.Errorf("game: step %d is the last a run can reach", uint64(MaxSteps))
	}
	if g.debug != nil {
		if gate, ok := g.debug.(StepGate); ok {
			step, quit := gate.MayStep()
			if quit {
				return false, ErrStopped
			}
			if !step {
				return false, nil
			}
		} else if !g.debug.Between(MaxSteps) {
			return false, ErrStopped
		}
	}
	if g.stopRequested() {
		return false, ErrStopped
	}
	g.betweenSteps()
	_, err := g.hookedStep(false)
	return err == nil, err
}

// Outcome is how an agent's last step ended: its result and, for an
// error, the error (as the trace and output report it). A stopped agent
// (on_failure = "stop") steps no more.
type Outcome struct {
	Status  string // running, success, failure or error
	Err     error
	Stopped bool
}

// Outcome is how the agent with the given id ended its last step, and
// whether it is in the game.
func (g *Game) Outcome(id string) (Outcome, bool) {
	ga := g.byID[id]
	if ga == nil {
		return Outcome{}, false
	}
	return Outcome{Status: ga.status.String(), Err: ga.err, Stopped: ga.stopped}, true
}
