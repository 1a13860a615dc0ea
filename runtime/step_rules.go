package runtime

import (
	"errors"
	"fmt"
)

// The decisions of stepping, each written once: what a rule does when it
// runs, and what follows. The loop (step_loop.go) and its fast path
// (step_fast.go) both call these; they differ only in how they get from
// one run to the next.
//
//   - a rule's run, by kind (the loop's switch: an action's run there;
//     runList, runLeaf; runOrderedChoice in order.go, runParallel in
//     lanes.go).
//   - listEnters: whether a list rule entered (the cursor is on it) goes
//     into its children; enterList, listGoes.
//   - sequenceMove, choiceMove: what a sequence or a choice does after a
//     child finished; passDone: a pass that finished with success;
//     listMoves carries it out.
//   - resultFlags, actionResult: an action's result applied to the
//     agent's flags.
//   - testConds: a rule's conditions (evalCond: one condition).
//   - notFail: doNotFail.
//   - takeJump: whether a jump asked for during a call moves the cursor
//     (jumpNow moves it: lanes_jump.go).
//   - runawayAt: the run-away check after a run.
//   - pastRoot: the step walking past the root.
//   - letIn and ruleFinished (active.go): a rule let in at its first run,
//     and a let-in rule that finished.

// A rule's run (the loop's switch on its kind, step_loop.go) returns
// Success, Failure, Running or statusMoved, before doNotFail; errPaused
// when a call is pending, errSwitched when a parallel gives the turn to
// another context; any other error ends the step. An action's run is
// written out in the loop (its answer, its conditions, then callAction);
// the other kinds are here (runList, runLeaf), in order.go
// (runOrderedChoice) and in lanes.go (runParallel).

// runLeaf runs a success, running or yield rule.
func (a *Agent) runLeaf(r int32, h *hotRule) (Status, error) {
	ok, err := a.testConds(r, h)
	if err != nil {
		return 0, err
	}
	if !ok {
		return Failure, nil
	}
	if h.hooks&hookStart != 0 {
		if err := a.start(r); err != nil {
			return 0, err
		}
	}
	switch h.kind {
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

// callAction calls rule r's action once its conditions held: Start first
// on the first run after arrival (the rule has just been let in and passed
// its conditions: it starts, hooks.go), then Run.
func (a *Agent) callAction(r int32, rule *boundRule) (Status, error) {
	if a.flags&flagFirstRun != 0 && a.bound.hot[r].hooks&hookStart != 0 {
		if err := a.start(r); err != nil {
			return 0, err
		}
	}
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

// actionResult applies an action's result st to the agent's flags
// (resultFlags). A result other than success, failure or running is an
// error.
func (a *Agent) actionResult(r int32, st Status) (Status, error) {
	flags, ok := resultFlags(a.flags, st)
	a.flags = flags
	if !ok {
		return 0, a.badResult(r, st)
	}
	return st, nil
}

// resultFlags are flags after an action returned st: it has had its first
// run, and is running (and active: it was let in) or not. ok is false when
// st is not success, failure or running (an error: badResult).
func resultFlags(flags agentFlags, st Status) (agentFlags, bool) {
	flags &^= flagActionRunning | flagFirstRun
	if st == Running {
		flags |= flagActionRunning | flagActive
	}
	return flags, st-Success <= Running-Success
}

// badResult is the error of an action that returned st, which is not a
// result.
func (a *Agent) badResult(r int32, st Status) error {
	return a.ruleError(r, nil, a.actionWhat(), fmt.Errorf("returned %s; an action returns success, failure or running", st))
}

// runList runs a sequence or a choice: entered, or after its child (the
// cursor) finished with childRes.
func (a *Agent) runList(r int32, h *hotRule) (Status, error) {
	if a.flags&flagBubbling == 0 {
		return a.enterList(r, h)
	}
	next := a.bound.hot[a.cursor].next // the cursor is the child that finished
	m := choiceMove(a.childRes, next >= 0, h.bits)
	if h.kind == KindSequence {
		m = sequenceMove(a.childRes, next >= 0, h.bits)
	}
	return a.listMoves(r, h, m, next, h.firstChild)
}

// listMove is what a sequence or a choice does after a child finished.
type listMove uint8

const (
	moveNext    listMove = iota // on to the next child
	moveFirst                   // back to the first child (of its order)
	moveSucceed                 // finish with success
	moveFail                    // finish with failure
	movePass                    // a pass of a list with repeat succeeded: passMove says moveFirst or moveSucceed
)

// sequenceMove is what a sequence does after a child finished with res:
// it fails when the child did not succeed; else it moves on to the next
// child, or, past its last one, its pass is done. bits are its hotBits.
func sequenceMove(res Status, hasNext bool, bits hotBits) listMove {
	switch {
	case res != Success:
		return moveFail
	case hasNext:
		return moveNext
	}
	return passDone(bits)
}

// choiceMove is what a choice does after a child finished with res: its
// pass is done when the child succeeded; else it moves on to the next
// child of its order, or, past its last one, it fails.
func choiceMove(res Status, hasNext bool, bits hotBits) listMove {
	switch {
	case res == Success:
		return passDone(bits)
	case hasNext:
		return moveNext
	}
	return moveFail
}

// passDone is what a sequence or choice whose pass finished with success
// does: a looping one goes back to its first child, one with repeat counts
// the pass (movePass, which listMoves resolves with passMove, active.go),
// another succeeds. Every loop decides here.
func passDone(bits hotBits) listMove {
	switch {
	case bits&hotLoop != 0:
		return moveFirst
	case bits&hotRepeat != 0:
		return movePass
	}
	return moveSucceed
}

// listMoves carries out move m of list rule r after a child finished (a
// pass, movePass, is resolved here: passMove): first its conditions are
// checked again when it moves on or back (and, for a sequence, when it
// finishes after its last child succeeded), and it fails if they fail;
// then the cursor moves to next or first, or goes back to r as it
// finishes (the loop applies doNotFail). A pass that starts the rule again
// is counted only then: a step paused at the conditions comes back here
// and must decide the same move.
func (a *Agent) listMoves(r int32, h *hotRule, m listMove, next, first int32) (Status, error) {
	pass := m == movePass
	if pass {
		m = a.passMove(r)
	}
	if m == moveNext || m == moveFirst || m == moveSucceed && h.kind == KindSequence {
		ok, err := a.testConds(r, h)
		if err != nil {
			return 0, err
		}
		if !ok {
			m = moveFail
		}
	}
	if pass && m == moveFirst {
		a.countPass(r)
	}
	to, st := m.target(next, first)
	return a.listGoes(r, to, st), nil
}

// target is where move m takes a list: to its child next or first, or,
// when it finishes (-1), its result.
func (m listMove) target(next, first int32) (int32, Status) {
	switch m {
	case moveNext:
		return next, statusMoved
	case moveFirst:
		return first, statusMoved
	case moveSucceed:
		return -1, Success
	}
	return -1, Failure
}

// listGoes moves the cursor of list rule r to its child to, or, when to
// is -1, finishes r with st: the cursor goes back to r itself.
func (a *Agent) listGoes(r, to int32, st Status) Status {
	if to >= 0 {
		r, st = to, statusMoved
	}
	a.arrive(r)
	return st
}

// listEnters decides whether list rule r, entered (the cursor is r), goes
// into its children: not when it has none, nor when its conditions fail
// (it then fails). Every list rule's entry is decided here (a sequence's,
// a choice's of any order, a parallel's): this is where a list rule is
// known to have been let in and passed its conditions.
func (a *Agent) listEnters(r int32, h *hotRule) (bool, error) {
	if h.firstChild < 0 {
		return false, nil
	}
	ok, err := a.testConds(r, h)
	if ok && h.hooks&hookStart != 0 {
		err = a.start(r) // it starts (hooks.go)
	}
	return ok, err
}

// enterList runs a sequence or a choice as it is entered: into its first
// child (listEnters), or it fails.
func (a *Agent) enterList(r int32, h *hotRule) (Status, error) {
	ok, err := a.listEnters(r, h)
	if err != nil {
		return 0, err
	}
	if !ok {
		return a.listGoes(r, -1, Failure), nil
	}
	return a.listGoes(r, h.firstChild, 0), nil
}

// notFail applies doNotFail to a rule's result.
func notFail(h *hotRule, st Status) Status {
	if st == Failure {
		return h.failed
	}
	return st
}

// testConds evaluates rule r's conditions (h is hot[r]) in the rule's
// mode. The common shapes (none; one variable; one ConditionFunc) are
// decided here; the others, and the answer to a paused condition, in
// checkConds, which evaluates each condition with evalCond. Every
// condition of a rule a step evaluates goes through here (the fast path
// evaluates the one-condition shapes itself, the same way).
func (a *Agent) testConds(r int32, h *hotRule) (bool, error) {
	if h.conds == condNone {
		return true, nil
	}
	return a.testSomeConds(r, h)
}

// testSomeConds is testConds for a rule that has conditions.
func (a *Agent) testSomeConds(r int32, h *hotRule) (bool, error) {
	switch {
	case a.flags&flagCondAnswered != 0 || h.conds == condOther || a.env.Explain: // explain.go
	case h.conds == condOneVar:
		return a.VarAt(h.slot) != h.flip, nil
	default: // condOneFunc
		v, err := h.test(a, *h.params)
		if err != nil {
			return false, a.condFailed(r, 0, err)
		}
		return v != h.flip, nil
	}
	return a.checkConds(r, &a.bound.rules[r])
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
		if a.env.Explain {
			a.whyCond(r, c, v)
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
		a.phase = phaseWaitCond // phaseWaitCheck in the checks (checkCall)
		return errPaused
	}
	a.condIdx = 0
	c := &a.bound.conds[a.bound.rules[r].condStart+i]
	return a.ruleError(r, c.src, "condition "+fmt.Sprintf("%q", c.src.Name), err)
}

// evalCond evaluates one condition (before its negation).
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
	case condCmp:
		return a.evalCompare(c), nil
	}
	return false, nil // condUnknown
}

// takeJump takes the jump asked for during a call of rule self's (its
// run, its conditions, its check): the target, and whether it moves the
// cursor. A jump to the rule being run, self, changes nothing (its result
// bubbles up as usual), wherever it was asked for: in a loop, self is the
// rule run (a parent re-checking its conditions, not the child that
// finished); in the checks at the start of a step, the rule whose
// conditions are evaluated; between steps (Agent.JumpTo), the cursor of
// the target's context.
func (a *Agent) takeJump(self int32) (int32, bool) {
	target := a.jump
	a.jump = -1
	return target, target != self
}

// runawayAt reports whether the step has reached the run-away limit after
// a run that did not return running.
func (a *Agent) runawayAt(limit uint16) bool { return a.count >= limit }

// pastRoot ends a run of the root that finished with st (after doNotFail):
// the step walks past the root and ends with st, the cursor on the root
// as an arrival, so that the next step enters the tree afresh.
func (a *Agent) pastRoot(r int32, st Status) {
	a.arrive(r)
	a.last = st
}
