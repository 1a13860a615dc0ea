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
func (a *Agent) Step(dt float64) (Status, error) {
	st, err, _ := a.runSiblings(a.time+dt, 0, stepBegins) // StepAt, written out: one call
	return st, err
}

// StepAt is Step with the agent's new time given rather than its increment,
// so that a game loop can keep time as step × dt instead of a running sum.
func (a *Agent) StepAt(t float64) (Status, error) {
	// The commonest step, of a tree without features that nothing
	// observes from a cursor runSiblings runs, begins and ends there: one
	// call. Every other step begins there too and goes on in loopTracked
	// or loopLean.
	st, err, _ := a.runSiblings(t, 0, stepBegins)
	return st, err
}

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
	a.env.runs = append(a.env.runs[:0], a.ext.runs...)
}

// loop is the step's state machine. Everything it needs to continue lives in
// the agent (cursor, flagBubbling and childRes, condIdx, count), which is
// what lets a step pause at a call and resume later.
//
// Trees that use none of the features of interruption, choice orders,
// parallels, gates and log parameters step in loopLean (step_lean.go):
// Drag[en]gine's stepping and nothing else. Trees that use them step in
// loopTracked (step_tracked.go), the same state machine that also tells
// active.go when rules are entered and finish.
func (a *Agent) loop() (Status, error) {
	b := a.bound
	if b.feats != nil {
		return a.loopTracked()
	}
	return a.loopLean(int(a.count))
}

// stopped ends the loop on an error from a run: errPaused pauses the step
// (keeping its runs so far), anything else ends it with that error.
func (a *Agent) stopped(err error) (Status, error) {
	if err == errPaused {
		x := a.extra()
		x.runs = append(x.runs[:0], a.env.runs...)
		return Paused, nil
	}
	return a.abort(err)
}

// runRule runs rule r (rule is &bound.rules[r]) once. It returns Success,
// Failure, Running or statusMoved, before doNotFail (the loop applies it);
// errPaused when a call is pending; any other error ends the step.
func (a *Agent) runRule(r int32, rule *boundRule) (Status, error) {
	switch rule.kind {
	case KindAction:
		return a.runAction(r, rule)
	case KindSequence, KindChoice:
		return a.runList(r, rule)
	case KindFailure:
		return Failure, nil
	case kindOrderedChoice:
		return a.runOrderedChoice(r, rule)
	case KindParallel:
		return a.runParallel(r, rule)
	}
	ok, err := a.checkConds(r, rule)
	if err != nil {
		return 0, err
	}
	if !ok {
		return Failure, nil
	}
	switch rule.kind {
	case KindSuccess:
		return Success, nil
	case KindRunning:
		a.flags &^= flagFirstRun // its next runs are not first runs (RuleRun.Arrived)
		return Running, nil
	default: // KindYield
		if a.flags&flagFirstRun != 0 {
			a.flags &^= flagFirstRun
			return Running, nil
		}
		return Success, nil
	}
}

func (a *Agent) runAction(r int32, rule *boundRule) (Status, error) {
	if a.flags&flagActionAnswered != 0 {
		a.flags &^= flagActionAnswered
		return a.actionResult(r, a.childRes)
	}
	ok, err := a.checkConds(r, rule)
	if err != nil {
		return 0, err
	}
	if !ok {
		if err := a.cancelRunning(); err != nil {
			return 0, err
		}
		return Failure, nil
	}
	return a.callAction(r, rule)
}

// callAction calls rule r's action once its conditions held: Start first
// on the first run after arrival, then Run.
func (a *Agent) callAction(r int32, rule *boundRule) (Status, error) {
	if rule.action == nil { // unknown action under lenient binding
		a.flags &^= flagFirstRun
		return Failure, nil
	}
	if a.flags&flagFirstRun != 0 && rule.starter != nil {
		if err := rule.starter.Start(a, rule.params); err != nil {
			if err == ErrPending {
				err = errors.New("Start may not return ErrPending")
			}
			return 0, a.ruleError(r, nil, "start of "+a.actionWhat(), err)
		}
	}
	st, err := rule.action.Run(a, rule.params)
	if err != nil {
		return 0, a.actionFailed(r, err)
	}
	return a.actionResult(r, st)
}

// actionFailed is the error of an action's run: ErrPending pauses the step.
func (a *Agent) actionFailed(r int32, err error) error {
	if err == ErrPending {
		a.phase = phaseWaitAction
		return errPaused
	}
	return a.ruleError(r, nil, a.actionWhat(), err)
}

// actionResult applies an action's result st to the agent's flags; a
// result other than success, failure or running is an error.
func (a *Agent) actionResult(r int32, st Status) (Status, error) {
	a.flags &^= flagFirstRun
	switch st {
	case Running:
		a.flags |= flagActionRunning
		return Running, nil
	case Success, Failure:
		a.flags &^= flagActionRunning
		return st, nil
	}
	a.flags &^= flagActionRunning
	return 0, a.ruleError(r, nil, a.actionWhat(), fmt.Errorf("returned %s; an action returns success, failure or running", st))
}

func (a *Agent) runList(r int32, rule *boundRule) (Status, error) {
	if a.flags&flagBubbling == 0 { // entered: the cursor is r
		if rule.firstChild < 0 {
			return a.finishList(r, rule, Failure), nil
		}
		ok, err := a.checkConds(r, rule)
		if err != nil {
			return 0, err
		}
		if !ok {
			return a.finishList(r, rule, Failure), nil
		}
		a.arrive(rule.firstChild)
		return statusMoved, nil
	}
	next := a.bound.rules[a.cursor].next // the cursor is the child that finished
	res := a.childRes
	if rule.kind == KindSequence {
		if res != Success {
			return a.finishList(r, rule, Failure), nil
		}
		ok, err := a.checkConds(r, rule)
		if err != nil {
			return 0, err
		}
		switch {
		case !ok:
			return a.finishList(r, rule, Failure), nil
		case next >= 0:
			a.arrive(next)
		case rule.loop:
			a.arrive(rule.firstChild)
		default:
			return a.finishList(r, rule, Success), nil
		}
		return statusMoved, nil
	}
	// choice
	if res == Success {
		if !rule.loop {
			return a.finishList(r, rule, Success), nil
		}
		next = rule.firstChild
	} else if next < 0 {
		return a.finishList(r, rule, Failure), nil
	}
	ok, err := a.checkConds(r, rule)
	if err != nil {
		return 0, err
	}
	if !ok {
		return a.finishList(r, rule, Failure), nil
	}
	a.arrive(next)
	return statusMoved, nil
}

// finishList ends a list rule: the cursor goes back to the rule itself. The
// loop applies doNotFail.
func (a *Agent) finishList(r int32, rule *boundRule, st Status) Status {
	a.arrive(r)
	return st
}

// notFail applies doNotFail to a rule's result.
func (a *Agent) notFail(rule *boundRule, st Status) Status {
	if st == Failure && rule.doNotFail {
		return Success
	}
	return st
}

// checkConds evaluates rule r's conditions in order, short-circuit, in the
// rule's mode. A pending condition pauses the step; the answer resumes the
// loop at the same condition (condIdx).
func (a *Agent) checkConds(r int32, rule *boundRule) (bool, error) {
	b := a.bound
	n := rule.condEnd - rule.condStart
	if n == 0 {
		return true, nil
	}
	mode := rule.mode
	for i := int32(a.condIdx); i < n; i++ {
		c := &b.conds[rule.condStart+i]
		var v bool
		if a.flags&flagCondAnswered != 0 {
			v = a.flags&flagCondAnswer != 0
			a.flags &^= flagCondAnswered | flagCondAnswer
		} else {
			var err error
			v, err = a.evalCond(c, rule)
			if err != nil {
				return false, a.condFailed(r, i, err)
			}
		}
		if c.negate {
			v = !v
		}
		switch mode {
		case AllTrue:
			if !v {
				a.condIdx = 0
				return false, nil
			}
		case AnyTrue:
			if v {
				a.condIdx = 0
				return true, nil
			}
		case AnyFalse:
			if !v {
				a.condIdx = 0
				return true, nil
			}
		case AllFalse:
			if v {
				a.condIdx = 0
				return false, nil
			}
		}
	}
	a.condIdx = 0
	return mode == AllTrue || mode == AllFalse, nil
}

// condFailed is the error of condition c, the rule's i-th: ErrPending
// pauses the step at it.
func (a *Agent) condFailed(r int32, i int32, err error) error {
	if err == ErrPending {
		a.condIdx = uint16(i)
		a.phase = phaseWaitCond
		return errPaused
	}
	a.condIdx = 0
	c := &a.bound.conds[a.bound.rules[r].condStart+i]
	return a.ruleError(r, c.src, "condition "+fmt.Sprintf("%q", c.src.Name), err)
}

func (a *Agent) evalCond(c *boundCond, rule *boundRule) (bool, error) {
	switch c.kind {
	case condVar:
		return a.VarAt(c.slot), nil
	case condStampSet:
		_, set := a.StampAt(c.slot)
		return set, nil
	case condStampLess:
		t, set := a.StampAt(c.slot)
		return set && a.time-t < c.limit, nil
	case condStampMore:
		t, set := a.StampAt(c.slot)
		if !set {
			return c.orNever, nil
		}
		return a.time-t > c.limit, nil
	case condCall:
		return c.cond.Test(a, rule.params)
	}
	return false, nil // condUnknown
}

// finish ends a step that did not fail with an error.
func (a *Agent) finish(st Status) (Status, error) {
	a.phase = phaseIdle
	a.flags &^= flagBubbling
	if o := a.env.Observer; o != nil {
		o.StepDone(a, a.env.runs, st, nil)
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
	a.leaveAll() // every active rule is left at once: cooldowns start
	a.arrive(Root)
	a.last = Errored
	if o := a.env.Observer; o != nil && a.flags&flagQuiet == 0 {
		o.StepDone(a, a.env.runs, Errored, err)
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
	labels := make([]string, len(a.env.runs))
	for i, run := range a.env.runs {
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
