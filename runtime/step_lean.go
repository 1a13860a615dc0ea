package runtime

// The step loop of trees without features (no interruption, choice
// orders, parallels, gates or log parameters): Drag[en]gine's stepping and
// nothing else. It is the same state machine as runRule and its helpers
// (step.go) run in loopTracked, written out in one function over a compact
// copy of the rules (hotRule, 32 bytes) and their conditions (hotCond, 16
// bytes) that Bind makes, so that a step reads a few cache lines and makes
// no call but the tree's own actions and conditions in the common cases:
//
//   - a rule with no condition, or one condition that is a variable or a
//     registered ConditionFunc (called directly, not through the Condition
//     interface), its negation and the rule's mode folded into one flip
//     bit at bind time;
//   - an action that is a registered ActionFunc;
//   - sequences and choices.
//
// Everything else (several conditions, timestamps, actions with Start or
// Cancel, the success/failure/running/yield rules, answers to a paused
// call, errors) goes through the helpers loopTracked uses, so the two loops
// cannot drift apart: TestLoop_trackedStepsPlainTreesAsLoopDoes holds them
// to the same traces.

// hotRule is what loopLean reads of a rule on every run.
type hotRule struct {
	kind       Kind
	bits       hotBits
	_          [2]uint8
	parent     int32
	firstChild int32
	next       int32
	condStart  int32 // first condition in BoundTree.hotConds (and conds)
	condCount  int32
	// run is the action when it is an ActionFunc (which has no Start or
	// Cancel); nil: loopLean calls the action through callAction.
	run func(*Agent, Params) (Status, error)
}

type hotBits uint8

const (
	hotLoop      hotBits = 1 << iota // a looping list
	hotDoNotFail                     // failure counts as success
	// hotFlip: with one condition, the rule's conditions hold when the
	// condition's value differs from this bit (its negation and an
	// anyFalse/allFalse mode folded in).
	hotFlip
)

// hotCond is what loopLean reads of a condition.
type hotCond struct {
	// test is the condition when it is a ConditionFunc; nil otherwise.
	test func(*Agent, Params) (bool, error)
	kind condKind
	_    [3]uint8
	slot int32 // condVar: the variable's slot
}

// bindHot makes the compact copy of the rules that loopLean steps, for a
// tree without features.
func (b *BoundTree) bindHot() {
	if b.feats != nil {
		return
	}
	b.hot = make([]hotRule, len(b.rules))
	b.hotConds = make([]hotCond, len(b.conds))
	for i := range b.conds {
		c := &b.conds[i]
		h := &b.hotConds[i]
		h.kind, h.slot = c.kind, c.slot
		if f, ok := c.cond.(ConditionFunc); ok && c.kind == condCall {
			h.test = f
		}
	}
	for i := range b.rules {
		r := &b.rules[i]
		h := &b.hot[i]
		*h = hotRule{kind: r.kind, parent: r.parent, firstChild: r.firstChild, next: r.next,
			condStart: r.condStart, condCount: r.condEnd - r.condStart}
		if r.loop {
			h.bits |= hotLoop
		}
		if r.doNotFail {
			h.bits |= hotDoNotFail
		}
		if h.condCount == 1 && b.conds[r.condStart].negate != (r.mode == AnyFalse || r.mode == AllFalse) {
			h.bits |= hotFlip
		}
		if f, ok := r.action.(ActionFunc); ok {
			h.run = f
		}
	}
}

// loopLean is loop for trees without features (see the top of this file).
// The runs of the step are kept in a local slice and stored in the Env
// whenever the loop returns or calls what may read them.
func (a *Agent) loopLean() (Status, error) {
	b := a.bound
	env := a.env
	limit := env.limit()
	hot := b.hot
	runs := env.runs
	for {
		r := a.cursor
		bubbling := a.flags&flagBubbling != 0
		if bubbling {
			r = hot[r].parent
		}
		h := &hot[r]
		var st Status
		var err error
		switch h.kind {
		case KindAction:
			if a.flags&flagActionAnswered != 0 {
				st, err = a.runAction(r, &b.rules[r])
				break
			}
			var ok bool
			if ok, err = a.leanConds(r, h); err != nil {
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
				st, err = a.callAction(r, &b.rules[r])
				break
			}
			a.flags |= flagInCall
			st, err = h.run(a, b.rules[r].params)
			a.flags &^= flagInCall
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
		case KindSequence, KindChoice:
			st, err = a.leanList(r, h, bubbling)
		default:
			st, err = a.runRule(r, &b.rules[r])
		}
		if err != nil {
			env.runs = runs
			return a.stopped(err)
		}
		a.count++
		if st == Failure && h.bits&hotDoNotFail != 0 {
			st = Success
		}
		runs = append(runs, RuleRun{r, st})
		if st != statusMoved {
			a.last = st
		}
		if a.jump >= 0 {
			target := a.jump
			a.jump = -1
			if target != r {
				if err := a.cancelRunning(); err != nil {
					env.runs = runs
					return a.abort(err)
				}
				a.arrive(target)
				a.flags &^= flagBubbling
				if st != Running {
					st = statusMoved
				}
			}
		}
		if st == Running {
			env.runs = runs
			return a.finish(Running)
		}
		if a.count >= limit {
			env.runs = runs
			return a.abort(a.runawayError(r))
		}
		if st == statusMoved {
			a.flags &^= flagBubbling
			continue
		}
		if h.parent < 0 {
			a.arrive(r) // past the root: the next step enters the tree afresh
			env.runs = runs
			return a.finish(st)
		}
		// r finished and the cursor is on r: its parent runs next and sees st.
		a.childRes = st
		a.flags |= flagBubbling
	}
}

// leanConds is checkConds for loopLean: a rule without conditions, or with
// one that is a variable or a ConditionFunc, is checked here; others go
// through checkConds.
func (a *Agent) leanConds(r int32, h *hotRule) (bool, error) {
	if h.condCount == 0 {
		return true, nil
	}
	if h.condCount != 1 || a.flags&flagCondAnswered != 0 {
		return a.checkConds(r, &a.bound.rules[r])
	}
	c := &a.bound.hotConds[h.condStart]
	var v bool
	switch {
	case c.test != nil:
		a.flags |= flagInCall
		var err error
		v, err = c.test(a, a.bound.rules[r].params)
		a.flags &^= flagInCall
		if err != nil {
			return false, a.condFailed(r, &a.bound.conds[h.condStart], 0, err)
		}
	case c.kind == condVar:
		v = a.VarAt(c.slot)
	default:
		return a.checkConds(r, &a.bound.rules[r])
	}
	return v != (h.bits&hotFlip != 0), nil
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
