package runtime

import (
	"errors"
	"fmt"
	"strings"
)

// errPaused is internal: the rule being run waits for an answer.
var errPaused = errors.New("paused")

// errSwitched is internal: a parallel gave the turn to one of its lanes, or
// a lane's turn ended and its parallel goes on (lanes.go). The loop runs the
// context now being run; nothing finished. It travels as an error so that
// the loop tests for it only where runs that did not finish go anyway.
var errSwitched = errors.New("switched")

// Step advances the agent's time by dt and runs its tree as SPEC §2 says,
// until a rule returns Running, the tree finishes (Success or Failure), an
// error ends the step (Errored, with the error), or a call returns ErrPending
// (Paused: resume with CompleteAction or CompleteCondition).
//
// After an error the agent is reset: an action interrupted while running is
// cancelled and the cursor returns to the root.
func (a *Agent) Step(dt float64) (Status, error) { return a.stepTo(a.time + dt) }

// StepAt is Step with the agent's new time given rather than its increment,
// so that a game loop can keep time as step × dt instead of a running sum.
func (a *Agent) StepAt(t float64) (Status, error) { return a.stepTo(t) }

// CompleteAction resumes a step paused at an action call with the action's
// result (or its error), and runs the step on until it ends or pauses again.
func (a *Agent) CompleteAction(st Status, err error) (Status, error) {
	if a.phase != phaseWaitAction {
		return Errored, &Error{Agent: a.id, Msg: "CompleteAction: the agent is not waiting for an action", Err: ErrBusy}
	}
	a.resume()
	if err != nil {
		return a.abort(a.ruleError(a.cursor, nil, a.actionWhat(), err))
	}
	a.childRes = st // a leaf waits, so childRes is free to carry the answer
	a.flags |= flagActionAnswered
	return a.loop()
}

// CompleteCondition resumes a step paused at a condition call with the
// condition's value (or its error).
func (a *Agent) CompleteCondition(ok bool, err error) (Status, error) {
	if a.phase != phaseWaitCond && a.phase != phaseWaitCheck {
		return Errored, &Error{Agent: a.id, Msg: "CompleteCondition: the agent is not waiting for a condition", Err: ErrBusy}
	}
	r := a.Rule()
	checking := a.phase == phaseWaitCheck
	a.resume()
	if err != nil {
		c := &a.bound.conds[a.bound.rules[r].condStart+int32(a.condIdx)]
		a.condIdx = 0
		return a.abort(a.ruleError(r, c.src, "condition "+fmt.Sprintf("%q", c.src.Name), err))
	}
	a.flags |= flagCondAnswered
	if ok {
		a.flags |= flagCondAnswer
	} else {
		a.flags &^= flagCondAnswer
	}
	if checking { // the start-of-step checks go on, then the loop
		a.phase = phaseChecking
		if st, err, done := a.runChecks(); done {
			return st, err
		}
	}
	return a.loop()
}

func (a *Agent) resume() {
	a.phase = phaseStep
	a.env.setRuns(a.ext.runs)
}

// stopped ends the loop on an error from a run: errPaused pauses the step
// (keeping its runs so far), anything else ends it with that error.
func (a *Agent) stopped(err error) (Status, error) {
	if err == errPaused {
		x := a.extra()
		x.runs = append(x.runs[:0], a.runsSoFar()...)
		return Paused, nil
	}
	return a.abort(err)
}

// finish ends a step that did not fail with an error.
func (a *Agent) finish(st Status) (Status, error) {
	a.phase = phaseIdle
	flags := a.flags
	a.flags = flags &^ (flagBubbling | flagQuiet) // between steps an agent is neither
	if o := a.env.Observer; o != nil && flags&flagQuiet == 0 {
		o.StepDone(a, a.runsSoFar(), st, nil)
	}
	return st, nil
}

// abort ends a step with an error and resets the agent (SPEC §2: the agent
// is never left half-updated; the failure policy decides what comes next).
func (a *Agent) abort(err error) (Status, error) {
	a.toMain() // a lane may have been running: the agent's own context is reset
	a.endParallelRuns()
	a.phase = phaseIdle
	a.jump, a.condIdx = -1, 0
	a.flags &^= flagBubbling | flagCondAnswered | flagActionAnswered
	if a.ext != nil {
		a.ext.scoreNext = 0
	}
	if cerr := a.cancelRunning(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	a.leaveAll(leftReset) // every active rule is left at once: cooldowns start
	a.arrive(Root)
	a.last = Errored
	if o := a.env.Observer; o != nil && a.flags&flagQuiet == 0 {
		o.StepDone(a, a.runsSoFar(), Errored, err)
	}
	a.flags &^= flagQuiet
	return Errored, err
}

func (a *Agent) actionWhat() string {
	return fmt.Sprintf("action %q", a.bound.Tree.Rules[a.cursor].Action)
}

// ruleError wraps an error raised by an action, condition or hook with the
// agent, the rule's label and its position in the tree file.
func (a *Agent) ruleError(r int32, c *Cond, what string, err error) error {
	rule := &a.bound.Tree.Rules[r]
	pos := rule.Pos
	if c != nil {
		pos = c.Pos
	}
	return &Error{Pos: pos, Label: rule.Label, Agent: a.id, Msg: what + ": " + err.Error(), Err: fmt.Errorf("%w: %w", ErrAction, err)}
}

func (a *Agent) runawayError(r int32) error {
	rules := a.bound.Tree.Rules
	labels := make([]string, a.count)
	for i, run := range a.runsSoFar() {
		labels[i] = rules[run.Rule].Label
	}
	msg := fmt.Sprintf("run-away step: %d rules run without one returning running (limit %d): %s",
		a.count, a.env.limit(), describeRuns(labels))
	return &Error{Pos: rules[r].Pos, Label: rules[r].Label, Agent: a.id, Msg: msg, Err: ErrRunaway}
}

// describeRuns lists labels in order, folding a cycle that repeats at the
// end ("root, (loop, tick) x 49") so that a run-away message stays readable.
func describeRuns(labels []string) string {
	for p := 1; p <= 16 && 3*p <= len(labels); p++ {
		n := len(labels)
		k := 1
		for n-(k+1)*p >= 0 && equalRun(labels[n-(k+1)*p:n-k*p], labels[n-p:]) {
			k++
		}
		if k >= 3 {
			head := strings.Join(labels[:n-k*p], ", ")
			cycle := "(" + strings.Join(labels[n-p:], ", ") + fmt.Sprintf(") x %d", k)
			if head == "" {
				return cycle
			}
			return head + ", " + cycle
		}
	}
	return strings.Join(labels, ", ")
}

func equalRun(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
