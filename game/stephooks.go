package game

import "fmt"

// The program's own per-step work (damage, world events, signals from Go,
// field updates) given to the game as callbacks (Options.BeforeStep and
// AfterStep) rather than run between two calls of Advance: the game calls
// them around each step, and calls them again when the live view's time
// travel replays a step, so that the steps it shows are the ones the game
// had. Code the program runs between two Advance calls is not replayed.

// StepInfo is what a BeforeStep or AfterStep callback is told of the step.
type StepInfo struct {
	Step uint64  // the step about to run (BeforeStep) or just run (AfterStep)
	Time float64 // its game time, in seconds (Step × dt)
	// Replay is true when the live view's time travel runs the step again:
	// the callback must change the game as it did the first time, and
	// should skip what is not the game's (network, files, metrics).
	Replay bool
}

// StepHooks reports whether the game has a BeforeStep or AfterStep
// callback: the live view's time travel then replays the program's
// between-step code with btrun's steps; without, it replays btrun's part only.
func (h *debugHost) StepHooks() bool {
	g := (*Game)(h)
	return g.opts.BeforeStep != nil || g.opts.AfterStep != nil
}

// hookedStep runs the next step with the program's callbacks around it.
func (g *Game) hookedStep(replay bool) (int, error) {
	defer g.regroupedInStep()
	if err := g.callHook(g.opts.BeforeStep, "BeforeStep", g.step+1, replay); err != nil {
		return 0, err
	}
	n, err := g.runStep()
	if err != nil {
		return n, err
	}
	return n, g.callHook(g.opts.AfterStep, "AfterStep", g.step, replay)
}

// callHook calls a callback with the game open to its calls (Signal,
// AddAgent, RemoveAgent, Save), which the guard of Advance would refuse
// otherwise (lifecycle.go).
func (g *Game) callHook(f func(*Game, StepInfo) error, name string, s uint64, replay bool) error {
	if f == nil {
		return nil
	}
	old := g.life.state.Swap(lifeHook)
	defer g.life.state.Store(old)
	if err := f(g, StepInfo{Step: s, Time: g.Time(s), Replay: replay}); err != nil {
		return fmt.Errorf("game: %s of step %d: %w", name, s, err)
	}
	return nil
}

// agentsChanged tells the debugger that the game's agents changed (AddAgent,
// RemoveAgent). From a step callback it tells it once the step is over: the
// live view's time travel then starts afresh after the step, from a state
// that holds the change, and never replays the callback that made it (it
// would add the agent a second time).
func (g *Game) agentsChanged() {
	switch {
	case g.debug == nil:
	case g.life.state.Load() == lifeHookBusy:
		g.regrouped = true
	default:
		g.debug.Reloaded()
	}
}

// regroupedInStep tells the debugger of the agents' changes that step
// callbacks made.
func (g *Game) regroupedInStep() {
	if g.regrouped {
		g.regrouped = false
		g.debug.Reloaded()
	}
}
