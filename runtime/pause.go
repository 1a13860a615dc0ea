package runtime

import "fmt"

// Pause is what a paused step waits for (Agent.PausedAt).
type Pause uint8

const (
	// PauseNone: the agent's step is not paused.
	PauseNone Pause = iota
	// PauseAction: an action's call; Agent.CompleteAction answers it.
	PauseAction
	// PauseCondition: a condition's call, of a rule or of the checks at
	// the start of a step; Agent.CompleteCondition answers it.
	PauseCondition
	// PauseScorer: a scorer's call; Agent.CompleteScore answers it.
	PauseScorer
	// PauseGate: the take of a gate; the end of the round decides it
	// (Gates.EndRound) and Gates.Continue resumes the step.
	PauseGate
)

var pauseNames = [...]string{"nothing", "an action's call", "a condition's call", "a scorer's call", "the take of a gate"}

func (p Pause) String() string {
	if int(p) < len(pauseNames) {
		return pauseNames[p]
	}
	return fmt.Sprintf("Pause(%d)", p)
}

// PausedAt says what the agent's paused step waits for: PauseNone when it
// is not paused (Paused is false).
func (a *Agent) PausedAt() Pause {
	switch a.phase {
	case phaseWaitAction:
		return PauseAction
	case phaseWaitCond, phaseWaitCheck:
		return PauseCondition
	case phaseWaitScore:
		return PauseScorer
	case phaseWaitGate:
		return PauseGate
	}
	return PauseNone
}

// FailPaused ends the agent's paused step with err, whatever it waits for,
// as an error of that call or take: the agent is reset as after any error
// of a step (the failure policy decides what comes next), and a take of a
// gate it waited for is given up (a take the round granted already is
// released at the end of the round). It is for a host that cannot answer
// what the step waits for and must not leave the agent stuck. An agent
// that is not paused gets an ErrBusy error and is left as it is.
func (a *Agent) FailPaused(err error) (Status, error) {
	switch a.PausedAt() {
	case PauseAction:
		return a.CompleteAction(0, err)
	case PauseCondition:
		return a.CompleteCondition(false, err)
	case PauseScorer:
		return a.CompleteScore(0, err)
	case PauseGate:
		a.giveUpTake()
		a.resume()
		g := a.bound.Tree.Gates[a.bound.feats[a.cursor].gate].Name
		return a.abort(a.ruleError(a.cursor, nil, fmt.Sprintf("take of gate %q", g), err))
	}
	return Errored, &Error{Agent: a.id, Msg: "FailPaused: the agent's step is not paused", Err: ErrBusy}
}
