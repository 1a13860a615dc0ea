package runtime

// The step loop of trees without features (no interruption, choice
// orders, parallels, gates or log parameters): Drag[en]gine's stepping and
// nothing else. It is the same state machine as runRule and its helpers
// (step.go) run in loopTracked, written out in one function over a compact
// copy of the rules (hotRule: one 64-byte cache line per rule) that Bind
// makes, so that a step reads little memory and makes no call but the
// tree's own actions and conditions in the common cases:
//
//   - a rule with no condition, or one condition that is a variable or a
//     registered ConditionFunc (called directly, not through the Condition
//     interface), its negation and the rule's mode folded into one flip
//     flag at bind time;
//   - an action that is a registered ActionFunc;
//   - sequences and choices.
//
// Everything else (several conditions, timestamps, actions with Start or
// Cancel, the success/failure/running/yield rules, answers to a paused
// call, errors) goes through the helpers loopTracked uses, so the two loops
// cannot drift apart: TestLoop_trackedStepsPlainTreesAsLoopDoes and
// TestLoopLean_* hold them to the same traces.
//
// A quiet step (nothing observes it) runs a choice without conditions over
// such actions in runSiblings (step_siblings.go); TestRunSiblings_* hold it
// to loopTracked's calls, results, errors and state.

// hotRule is what loopLean reads of a rule on every run: 64 bytes.
type hotRule struct {
	kind  Kind
	bits  hotBits
	conds condShape
	// flip: with one condition, the rule's conditions hold when the
	// condition's value differs from flip (its negation and an
	// anyFalse/allFalse mode folded in).
	flip bool
	// parent, firstChild and next are as in boundRule.
	parent     int32
	firstChild int32
	next       int32
	slot       int32 // condOneVar: the variable's slot
	// failed is the rule's result when it fails: Failure, or Success
	// with doNotFail.
	failed Status
	// up and upFailed are, for a rule runSiblings runs (hotSibling), what
	// it reads of the parent choice once the rule finished: its loop bit
	// and whether it is the root (upRoot), and its failed.
	up       hotBits
	upFailed Status
	// run is the action when it is an ActionFunc (which has no Start or
	// Cancel); nil: loopLean calls the action through callAction.
	run func(*Agent, Params) (Status, error)
	// test is the rule's one condition when conds is condOneFunc.
	test   func(*Agent, Params) (bool, error)
	params Params
}

type hotBits uint8

const (
	hotLoop      hotBits = 1 << iota // a looping list
	hotDoNotFail                     // failure counts as success
)

// condShape is how loopLean checks a rule's conditions.
type condShape uint8

const (
	condNone    condShape = iota // no condition: they hold
	condOneFunc                  // one ConditionFunc: hotRule.test
	condOneVar                   // one variable: hotRule.slot
	condOther                    // checkConds
)

// bindHot makes the compact copy of the rules that loopLean steps, for a
// tree without features.
func (b *BoundTree) bindHot() {
	if b.feats != nil {
		return
	}
	b.hot = make([]hotRule, len(b.rules))
	for i := range b.rules {
		r := &b.rules[i]
		h := &b.hot[i]
		*h = hotRule{kind: r.kind, parent: r.parent, firstChild: r.firstChild, next: r.next, params: r.params}
		if r.loop {
			h.bits |= hotLoop
		}
		h.failed = Failure
		if r.doNotFail {
			h.bits |= hotDoNotFail
			h.failed = Success
		}
		switch n := r.condEnd - r.condStart; {
		case n == 0:
			h.conds = condNone
		case n > 1:
			h.conds = condOther
		default:
			c := &b.conds[r.condStart]
			f, isFunc := c.cond.(ConditionFunc)
			switch {
			case c.kind == condCall && isFunc && f != nil:
				h.conds, h.test = condOneFunc, f
			case c.kind == condVar:
				h.conds, h.slot = condOneVar, c.slot
			default:
				h.conds = condOther
			}
			if c.negate != (r.mode == AnyFalse || r.mode == AllFalse) {
				h.flip = true
			}
		}
		if f, ok := r.action.(ActionFunc); ok && f != nil {
			h.run = f
		}
	}
	markSiblings(b.hot)
}

// loopLean is loop for trees without features (see the top of this file),
// after the count runs the step made so far.
//
// The rules run so far are stored at runs[count], in a buffer the Env keeps
// at least as long as the run-away limit (and longer than the runs of a
// paused step that resumes after the limit was lowered), so that a run is
// recorded without a check of its own; the Env's slice is cut to them when
// the step pauses or fails, or the observer is given them. A quiet step
// (flagQuiet) runs the rules runSiblings knows there, as long as two more
// runs fit under the limit.
func (a *Agent) loopLean(count int) (Status, error) {
	env := a.env
	if env.RunawayLimit != env.runsFor || cap(env.runs) <= count {
		env.sizeRuns(count)
	}
	limit := env.runLimit
	env.runs = env.runs[:cap(env.runs)]
	runs := env.runs
	hot := a.bound.hot
	for {
		r, began := a.cursor, a.flags
		bubbling := began&flagBubbling != 0
		if bubbling {
			r = hot[r].parent
		}
		h := &hot[r]
		if began&(flagBubbling|flagActive) == 0 {
			a.flags |= flagActive // r's first run lets it in: nothing refuses a rule without features
		}
		var st Status
		var err error
		switch h.kind {
		case KindAction:
			if a.flags&flagActionAnswered != 0 {
				st, err = a.runAction(r, &a.bound.rules[r])
				break
			}
			ok := true
			switch {
			case h.conds == condNone:
			case h.conds == condOneFunc && a.flags&flagCondAnswered == 0:
				var v bool
				v, err = h.test(a, h.params)
				if err != nil {
					err = a.condFailed(r, 0, err)
					break
				}
				ok = v != h.flip
			default:
				ok, err = a.leanConds(r, h)
			}
			if err != nil {
				break
			}
			if !ok {
				st = Failure
				if a.flags&flagActionRunning != 0 {
					err = a.cancelRunning()
				}
				break
			}
			if h.run == nil {
				st, err = a.callAction(r, &a.bound.rules[r])
				break
			}
			st, err = h.run(a, h.params)
			if err != nil {
				err = a.actionFailed(r, err)
				break
			}
			switch st {
			case Running:
				a.flags = (a.flags | flagActionRunning) &^ flagFirstRun
			case Success, Failure:
				a.flags &^= flagActionRunning | flagFirstRun
			default:
				st, err = a.actionResult(r, st)
			}
		case KindChoice:
			if h.conds != condNone {
				st, err = a.leanList(r, h, bubbling)
				break
			}
			if !bubbling { // entered: into the first child
				if h.firstChild < 0 {
					a.arrive(r)
					st = Failure
				} else {
					a.arrive(h.firstChild)
					st = statusMoved
				}
				break
			}
			// A choice without conditions after a child finished: the
			// most common list step, here without a call.
			next := hot[a.cursor].next
			switch {
			case a.childRes == Success && h.bits&hotLoop == 0:
				a.arrive(r)
				st = Success
			case a.childRes == Success:
				a.arrive(h.firstChild)
				st = statusMoved
			case next < 0:
				a.arrive(r)
				st = Failure
			default:
				a.arrive(next)
				st = statusMoved
			}
		case KindSequence:
			st, err = a.leanList(r, h, bubbling)
		case KindSuccess:
			if h.conds != condNone {
				st, err = a.runRule(r, &a.bound.rules[r])
				break
			}
			st = Success
		default:
			st, err = a.runRule(r, &a.bound.rules[r])
		}
		if err != nil {
			a.count = uint16(count)
			env.runs = runs[:count]
			return a.stopped(err)
		}
		if st == Success || st == Failure {
			a.flags &^= flagActive // r finished (the cursor is r, or arrived elsewhere)
		}
		if st == Failure && h.bits&hotDoNotFail != 0 {
			st = Success
		}
		runs[count] = RuleRun{r, st, began}
		count++
		if st != statusMoved {
			a.last = st
		}
		if a.jump >= 0 {
			target := a.jump
			a.jump = -1
			if target != r {
				if err := a.cancelRunning(); err != nil {
					a.count = uint16(count)
					env.runs = runs[:count]
					return a.abort(err)
				}
				a.moveTo(a.cursor, a.flags&flagActive != 0, target)
				a.flags &^= flagBubbling
				if st != Running {
					st = statusMoved
				}
			}
		}
		if st == Running {
			break
		}
		if count >= limit {
			a.count = uint16(count)
			env.runs = runs[:count]
			return a.abort(a.runawayError(r))
		}
		if st == statusMoved {
			a.flags &^= flagBubbling
			goto moved
		}
		if h.parent < 0 {
			a.arrive(r) // past the root: the next step enters the tree afresh
			break
		}
		// r finished and the cursor is on r: its parent runs next and sees st.
		a.childRes = st
		if p := &hot[h.parent]; p.kind == KindChoice && p.conds == condNone {
			// The parent is a choice without conditions, the most common
			// list: its run is written out here, without going round the
			// loop (it calls nothing, so no jump can come of it).
			pr := h.parent
			switch {
			case st == Success && p.bits&hotLoop == 0:
				a.arrive(pr)
			case st == Success:
				a.arrive(p.firstChild)
				st = statusMoved
			case h.next < 0:
				a.arrive(pr)
			default:
				a.arrive(h.next)
				st = statusMoved
			}
			if st == Failure && p.bits&hotDoNotFail != 0 {
				st = Success
			}
			runs[count] = RuleRun{pr, st, flagBubbling} // the parent runs on: not an arrival
			count++
			if st == statusMoved {
				if count >= limit {
					a.count = uint16(count)
					env.runs = runs[:count]
					return a.abort(a.runawayError(pr))
				}
				a.flags &^= flagBubbling // r may have been a list that ran after its child
				goto moved
			}
			a.last = st
			if count >= limit {
				a.count = uint16(count)
				env.runs = runs[:count]
				return a.abort(a.runawayError(pr))
			}
			if p.parent < 0 {
				a.arrive(pr)
				break
			}
			a.childRes = st
		}
		a.flags |= flagBubbling
		continue
	moved:
		// The cursor moved: a quiet step runs what runSiblings knows from
		// there. (A rule the loop is entered on runs here, whatever it
		// is: runSiblings stopped short of it, or the step resumed after
		// a pause, or began before the Env's buffer was sized.)
		if a.flags&flagQuiet != 0 && hot[a.cursor].bits&hotFast != 0 && count+2 <= limit {
			st, err, n := a.runSiblings(0, a.cursor, count)
			if err != nil {
				return a.leanStopped(n, err)
			}
			if st != statusMoved { // the step ended with st (a.last)
				a.flags &^= flagQuiet
				return st, nil
			}
			count = n
		}
	}
	// The step ended with a.last (finish, written out).
	a.count = uint16(count)
	a.phase = phaseIdle
	if o := env.Observer; o != nil && a.flags&flagQuiet == 0 {
		a.flags &^= flagBubbling
		env.runs = runs[:count]
		o.StepDone(a, env.runs, a.last, nil)
		return a.last, nil
	}
	a.flags &^= flagBubbling | flagQuiet
	return a.last, nil
}

// leanStopped ends a step on an error of a run after count runs (stopped:
// errPaused pauses the step).
func (a *Agent) leanStopped(count int, err error) (Status, error) {
	a.count = uint16(count)
	a.env.runs = a.env.runs[:count]
	return a.stopped(err)
}

// leanConds is checkConds for loopLean's hotRule.
func (a *Agent) leanConds(r int32, h *hotRule) (bool, error) {
	if h.conds == condOther || a.flags&flagCondAnswered != 0 {
		return a.checkConds(r, &a.bound.rules[r])
	}
	var v bool
	switch h.conds {
	case condNone:
		return true, nil
	case condOneFunc:
		var err error
		v, err = h.test(a, h.params)
		if err != nil {
			return false, a.condFailed(r, 0, err)
		}
	default: // condOneVar
		v = a.VarAt(h.slot)
	}
	return v != h.flip, nil
}

// leanList is runList for loopLean.
func (a *Agent) leanList(r int32, h *hotRule, bubbling bool) (Status, error) {
	if !bubbling { // entered: the cursor is r
		if h.firstChild < 0 {
			a.arrive(r)
			return Failure, nil
		}
		ok, err := a.leanConds(r, h)
		if err != nil {
			return 0, err
		}
		if !ok {
			a.arrive(r)
			return Failure, nil
		}
		a.arrive(h.firstChild)
		return statusMoved, nil
	}
	next := a.bound.hot[a.cursor].next // the cursor is the child that finished
	if h.kind == KindSequence {
		if a.childRes != Success {
			a.arrive(r)
			return Failure, nil
		}
		ok, err := a.leanConds(r, h)
		if err != nil {
			return 0, err
		}
		switch {
		case !ok:
			a.arrive(r)
			return Failure, nil
		case next >= 0:
			a.arrive(next)
		case h.bits&hotLoop != 0:
			a.arrive(h.firstChild)
		default:
			a.arrive(r)
			return Success, nil
		}
		return statusMoved, nil
	}
	// choice
	if a.childRes == Success {
		if h.bits&hotLoop == 0 {
			a.arrive(r)
			return Success, nil
		}
		next = h.firstChild
	} else if next < 0 {
		a.arrive(r)
		return Failure, nil
	}
	ok, err := a.leanConds(r, h)
	if err != nil {
		return 0, err
	}
	if !ok {
		a.arrive(r)
		return Failure, nil
	}
	a.arrive(next)
	return statusMoved, nil
}
