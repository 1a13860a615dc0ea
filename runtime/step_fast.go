package runtime

import "unsafe"

// How a step begins, and its fast path. Every step begins in stepTo, which
// is also where the step chooses its code: there is one state machine
// (loop, step_loop.go), whose decisions are written once (step_rules.go,
// active.go), and one fast path for the commonest beginning of a step,
// here, which calls the same decisions. The choice is made once per step,
// at its beginning (fastAt), from what Bind decided per rule (hotFast,
// markSiblings) and what the step is (quiet, room under the run-away
// limit); a step that leaves the fast path goes on in the loop to its end.
//
// The commonest shape of a tree is a choice without conditions over
// actions that each have at most one simple condition (the Drag[en]gine
// example's root: try each behaviour in turn, the first that does not
// fail wins). The fast path runs such an action and, while it fails, the
// choice's move to the next child and that child, in one tight loop,
// without going round the generic loop for each run. It makes the same
// calls through the same decisions as the loop (resultFlags, notFail,
// takeJump and jumpNow, choiceMove, runawayAt); what it saves is the
// dispatch: it reads each next rule as the one after the last in memory,
// and it does not store the runs as it goes. It runs in quiet steps only
// (no Observer when the step began): every run is counted as the loop
// counts it, and only the rules run are kept, written out only where
// something reads them (sibRuns), which is all the run-away limit and the
// run-away message need. Whether an Observer is set changes nothing else:
// FuzzStep holds observed and quiet steps, and the fast path and the loop
// alone, to the same calls, results and state.

// hotSibling marks a child of a choice without conditions that the fast
// path runs: an action (called directly when it has no Start and Cancel:
// hotRule.run; else through callAction, as the loop calls it) with no
// condition or one that is a call or a variable, or a success or failure
// rule without conditions (a choice's usual last child); neither
// it nor its choice has hooks (step_hot.go), and they are not in a lane.
// hotEnters marks such a choice whose first child is such a rule:
// the fast path enters it.
const (
	hotSibling hotBits = 1 << 2
	hotEnters  hotBits = 1 << 3
	hotFast            = hotSibling | hotEnters
	// hotCalls marks a rule the fast path runs whose one condition is a
	// call (condOneFunc) and whose action has no Start and Cancel
	// (hotRule.run): the commonest child, run without looking further.
	hotCalls hotBits = 1 << 4
	// hotLean marks such a rule whose condition and action are both lean
	// (hotRule.ltest, lrun), instead of hotCalls.
	hotLean hotBits = 1 << 6
)

// sibAfter is what a choice the fast path runs does after a child
// finished with a given result: choiceMove's decision for that child and
// result, made once at bind time (markSiblings) so that the fast path
// reads one byte instead of deciding again. The low two bits say how
// (afterHow); a choice that finishes does so with the result in the bits
// above them (result).
type sibAfter uint8

const (
	afterNext  sibAfter = iota // on to the next child, which the fast path runs (moveNext)
	afterFirst                 // back to its first child (moveFirst: it loops)
	afterOut                   // on to the next child, which the fast path does not run
	afterUp                    // it finishes, and its parent runs next
	afterRoot                  // it finishes, and it is the root: the step ends
	afterHow   sibAfter = 7    // the bits of the above
)

// result is the finished choice's result (after its doNotFail).
func (s sibAfter) result() Status { return Status(s >> 3) }

// sibAfterOf is choiceMove's decision as a sibAfter, for a child with a
// next sibling or not (hasNext) of choice p that finished with res; ok is
// false for a move the fast path does not make (a pass of a list with
// repeat). A move to the next child is afterNext here; markSiblings makes
// it afterOut where that child is not one the fast path runs.
func sibAfterOf(res Status, hasNext bool, p *hotRule) (sibAfter, bool) {
	var how sibAfter
	switch choiceMove(res, hasNext, p.bits) {
	case moveNext:
		return afterNext, true
	case moveFirst:
		return afterFirst, true
	case moveSucceed:
		res = Success
	case moveFail:
		res = p.failed
	default:
		return 0, false
	}
	how = afterUp
	if p.parent < 0 {
		how = afterRoot
	}
	return how | sibAfter(res)<<3, true
}

// markSiblings sets hotSibling and hotEnters on the rules of hot that
// the fast path runs, and gives each such child what the fast path reads of
// its parent choice (hotRule.after). A tree whose steps have work before
// their cursor runs (b.begins: gates, checks at the start of a step) begin
// every step in the loop, which does that work: Bind marks none of its
// rules.
func markSiblings(hot []hotRule) {
	for i := range hot {
		h := &hot[i]
		action := h.kind == KindAction && h.conds != condOther
		leaf := (h.kind == KindSuccess || h.kind == KindFailure) && h.conds == condNone
		if !action && !leaf || h.parent < 0 || h.hooks != 0 {
			continue
		}
		// the fast path steps from a child to the next one, and from a
		// choice to its first child, as to the rule after it (sibNext):
		// in the tree's order a leaf's next sibling and a list's first
		// child come right after it. A rule for which that would not hold
		// is left to the generic loop.
		if h.next >= 0 && h.next != int32(i)+1 {
			continue
		}
		p := &hot[h.parent]
		if p.kind != KindChoice || p.conds != condNone || p.hooks != 0 || inLane(hot, h.parent) {
			continue
		}
		onFail, ok1 := sibAfterOf(Failure, h.next >= 0, p)
		onSuccess, ok2 := sibAfterOf(Success, h.next >= 0, p)
		if !ok1 || !ok2 {
			continue
		}
		h.bits |= hotSibling
		switch {
		case h.lrun != nil:
			h.bits |= hotLean
		case h.conds == condOneFunc && h.run != nil:
			h.bits |= hotCalls
		}
		h.after = [2]sibAfter{onFail, onSuccess} // indexed by Status&1: Failure is 2, Success 1
		if p.firstChild == int32(i) && h.parent == int32(i)-1 {
			p.bits |= hotEnters
		}
	}
	// A move on to a next child the fast path does not run hands the
	// step over (afterOut), so that the common move needs no check of it.
	for i := range hot {
		h := &hot[i]
		for k, after := range h.after {
			if h.bits&hotSibling != 0 && after == afterNext && hot[h.next].bits&hotSibling == 0 {
				h.after[k] = afterOut
			}
		}
	}
}

// inLane reports whether rule r is in a parallel's lane: a rule that
// returns running there ends its lane's turn, not the step.
func inLane(hot []hotRule, r int32) bool {
	for r = hot[r].parent; r >= 0; r = hot[r].parent {
		if hot[r].kind == KindParallel {
			return true
		}
	}
	return false
}

// stepTo begins a step at time t and runs it until it ends or pauses. A
// step whose tree has work before its cursor runs (gates, the checks at
// the start of a step), or whose cursor is not a rule the fast path runs,
// goes to the loop at once. Else, from the cursor (a choice arrived at, or
// a child arrived at or running on), the fast path runs the runs that
// follow while they have the shape it knows:
//
//   - a choice entered moves the cursor to its first child;
//   - the child is let in and runs: its condition, then its action,
//     or the success or failure rule;
//   - a jump asked for during its calls is applied;
//   - after the child failed or succeeded, its parent choice runs on: on
//     to the next child, or back to its first when it loops, or it
//     finishes (failure past its last child; success).
//
// It begins with room for at least two more runs under the run-away limit
// (fastAt), and runs a child only while that holds, so that the child's
// run and its parent's need no check of the limit between them. Where the
// runs stop having that shape (a move to a rule it does not run or has no
// room for, or a choice that finished below the root, whose parent runs
// next), it writes the runs so far out and the loop goes on with the step
// (sibMoved).
func (a *Agent) stepTo(t float64) (Status, error) {
	if a.phase != phaseIdle {
		return Errored, a.busyError()
	}
	a.dt = t - a.time
	a.time = t
	a.step++
	env := a.env
	// One check for the Env's three reasons to leave the fast path: the
	// run-away limit changed or leaves no room for two runs (runsFor), an
	// Observer sees the step, or the step is explained (explain.go): the
	// decisions are recorded in the loop, which every step then runs in.
	if env.runsFor != env.RunawayLimit+1 || env.Observer != nil || env.Explain {
		quiet := env.Observer == nil && !env.Explain
		if env.runsFor != env.RunawayLimit+1 {
			env.sizeRuns() // out of line
		}
		if !quiet || env.runLimit < 2 {
			return a.loopFrom(quiet)
		}
	}
	// Nothing will see the step's runs. The fast path does not mark the
	// step quiet (flagQuiet): nothing reads the flag before it leaves, and
	// every way out but the end of the step marks it (sibMoved, sibRunaway,
	// sibStopped, siblingJumped).
	r := a.cursor
	h := a.bound.hotAt(r)
	if !fastAt(h) { // (a tree with work before its cursor has no rule marked: markSiblings)
		return a.loopFrom(true)
	}
	a.phase = phaseStep
	count := 0
	// The runs are not stored as they happen: from (env.segFrom,
	// env.segRule) on they are the ones the tree implies (sibRuns), up to
	// a loop back to a choice's first child, where they are written out
	// and a new segment begins. A step that ends here needs none of them;
	// every other way out writes them out first.
	env.segFrom, env.segRule = count, r
	if h.kind == KindChoice {
		// Entered: into its first child (listEnters: it has one, and no
		// conditions; it has no hooks, so letting it in only marks it
		// active, which arriving at its child clears).
		a.sibArrive(h.firstChild) // listGoes
		count++
		if count+2 > env.runLimit {
			return a.sibMoved(count)
		}
		h = sibNext(h)
	}
	a.count = uint16(count)
	// No room for another child and its parent past this count (fastAt
	// saw room for two runs at the opening).
	last := env.runLimit - 2
	for {
		// letIn: the rule has no hooks, so nothing refuses it and letting it
		// in only marks it active, which matters only if it is still the
		// cursor after its run: when its action returns running
		// (resultFlags), or a jump moves the cursor from it (jumpNow's
		// fromActive).
		var st Status
		if h.bits&hotCalls != 0 {
			// The commonest child: one condition that is a call, and an
			// action without Start and Cancel.
			v, err := h.test(a, *h.params)
			if err != nil {
				return a.sibStopped(a.condFailed(a.cursor, 0, err))
			}
			if v == h.flip {
				// Its conditions failed: failure after doNotFail
				// (notFail); an action without Start and Cancel only
				// stops running, which arriving elsewhere, on every way
				// from here, does (cancelRunning, for an action without
				// Cancel).
				st = h.failed
			} else {
				if st, err = h.run(a, *h.params); err != nil {
					return a.sibStopped(a.actionFailed(a.cursor, err))
				}
				// actionResult (resultFlags): an action that finished
				// keeps its flags until the arrival that follows on every
				// way from here clears them (siblingJumped clears them
				// where a jump moves the cursor instead).
				if st == Running {
					a.flags = flagActionRunning | flagActive // sibArrive's flags, run
					goto running
				}
				if st == Failure {
					st = h.failed // notFail
				} else if st != Success {
					return a.sibStopped(a.badResult(a.cursor, st))
				}
			}
		} else if h.bits&hotLean != 0 {
			// The commonest child with a lean condition and action
			// (registry_lean.go): as below, called with the agent alone,
			// and neither can fail.
			if h.ltest(a) == h.flip {
				st = h.failed // as below
			} else {
				st = h.lrun(a)
				if st == Running {
					a.flags = flagActionRunning | flagActive // sibArrive's flags, run
					goto running
				}
				if st == Failure {
					st = h.failed // notFail
				} else if st != Success {
					return a.sibStopped(a.badResult(a.cursor, st))
				}
			}
		} else {
			ok := true
			switch h.conds {
			case condOneFunc:
				v, err := h.test(a, *h.params)
				if err != nil {
					return a.sibStopped(a.condFailed(a.cursor, 0, err))
				}
				ok = v != h.flip
			case condOneVar:
				ok = a.VarAt(h.slot) != h.flip
			}
			// Failure after doNotFail (notFail): its conditions failed, or a
			// failure rule.
			st = h.failed
			switch {
			case ok && h.run != nil: // an action without Start and Cancel
				var err error
				if st, err = h.run(a, *h.params); err != nil {
					return a.sibStopped(a.actionFailed(a.cursor, err))
				}
				if st == Running {
					a.flags = flagActionRunning | flagActive // sibArrive's flags, run
					goto running
				}
				if st == Failure {
					st = h.failed // notFail
				} else if st != Success {
					return a.sibStopped(a.badResult(a.cursor, st))
				}
			case h.run != nil:
				// An action without Start and Cancel whose conditions failed
				// (as above).
			case h.kind != KindAction: // a success or failure rule
				if h.kind == KindSuccess {
					st = Success
				}
			default: // another action, or one whose conditions failed
				var err error
				if st, err = a.sibAction(h, ok); err != nil {
					return a.sibStopped(err)
				}
				if st == Running {
					goto running
				}
			}
		}
		a.last = st
		if a.jump >= 0 {
			if st, err, jumped := a.siblingJumped(st); jumped {
				return st, err
			}
		}
		{
			// The child finished: it is left (ruleFinished: it has no
			// hooks, and the cursor arrives elsewhere on every way from
			// here). Its parent, a choice without conditions, runs on as
			// Bind decided for this child and result (choiceMove,
			// sibAfter).
			count := int(a.count) + 2 // the child's run and its parent's
			after := h.after[st&1]
			if after == afterNext {
				a.count = uint16(count)
				if count > last { // no room for another child and its parent
					return a.sibOut(count, h.parent, h.next)
				}
				a.sibArrive(h.next)
				h = sibNext(h) // one the fast path runs (markSiblings)
				continue
			}
			switch after & afterHow {
			case afterOut:
				a.count = uint16(count)
				return a.sibOut(count, h.parent, h.next)
			case afterFirst: // a loop back: the runs so far are written out
				a.sibRuns(count)
				r = a.bound.hot[h.parent].firstChild
				a.env.segFrom, a.env.segRule = count, r
				a.count = uint16(count)
				if count > last || a.bound.hot[r].bits&hotSibling == 0 {
					return a.sibOut(count, h.parent, r)
				}
				a.sibArrive(r)
				h = &a.bound.hot[r]
				continue
			}
			// The choice finishes.
			a.sibArrive(h.parent)
			a.count = uint16(count)
			if a.runawayAt(uint16(a.env.runLimit)) {
				// The cursor is on the parent: abort puts it on the root,
				// and nothing is called in between.
				return a.sibRunaway(count, h.parent)
			}
			st = after.result()
			a.last = st
			if after&afterHow == afterRoot {
				// Past the root (pastRoot: the cursor is on the root as an
				// arrival already).
				a.phase = phaseIdle
				return st, nil
			}
			a.childRes = st // the choice finished: its parent runs next
			a.flags |= flagBubbling
			return a.sibMoved(count)
		}
	}
running:
	// The cursor's action returned running: the step ends, unless a jump
	// asked for during its call moves the cursor.
	a.last = Running
	if a.jump >= 0 {
		if st, err, jumped := a.siblingJumped(Running); jumped {
			return st, err
		}
	}
	a.count++
	a.phase = phaseIdle // the step ended
	return Running, nil
}

// fastAt is the chooser: whether a quiet step with room for two runs
// (stepTo has just checked both) runs on the fast path from rule h (the
// cursor's), at its beginning: the rule is one the fast path runs
// (hotFast, decided at bind time).
func fastAt(h *hotRule) bool {
	return h.bits&hotFast != 0
}

// loopFrom begins a step in the loop, quiet or not.
func (a *Agent) loopFrom(quiet bool) (Status, error) {
	a.flags &^= flagBubbling | flagQuiet
	if quiet {
		a.flags |= flagQuiet // nothing will see the step's runs but a run-away's message
	}
	a.count = 0
	a.phase = phaseStart // the loop runs what comes before the cursor first
	return a.loop()
}

// busyError is stepTo's error for an agent whose step is paused.
func (a *Agent) busyError() error {
	return &Error{Agent: a.id, Msg: "cannot step: the previous step is paused at a call", Err: ErrBusy}
}

// hotAt is &b.hot[r] for r a rule of the tree (the cursor), without the
// check of the index: the step's first read of its rules.
func (b *BoundTree) hotAt(r int32) *hotRule {
	return (*hotRule)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b.hot)), uintptr(r)*unsafe.Sizeof(hotRule{})))
}

// sibAction runs the action at the cursor (h its hot rule) on the fast
// path when it is not an action without Start and Cancel whose conditions
// held: an action whose conditions held is called (callAction: Start on
// its first run, then Run); one whose conditions failed while it ran is
// cancelled, as on the loop. It returns the run's result after doNotFail.
//
//go:noinline
func (a *Agent) sibAction(h *hotRule, ok bool) (Status, error) {
	r := a.cursor
	if !ok {
		if a.flags&flagActionRunning != 0 {
			return h.failed, a.cancelRunning()
		}
		return h.failed, nil
	}
	st, err := a.callAction(r, &a.bound.rules[r])
	return notFail(h, st), err
}

// sibArrive is arrive for the fast path: the cursor arrives at rule i.
// The agent's flags, which arrive updates, are set instead: on the fast
// path they hold only the state of the cursor's run (flagFirstRun,
// flagActionRunning, flagActive), which an arrival sets afresh, and
// flagQuiet, which means nothing until the fast path leaves and marks it
// (sibMoved and the others): a step begins neither bubbling nor with an
// answer (flagBubbling, flagCondAnswered, flagActionAnswered are cleared
// by every way a step ends, and an answer resumes a paused step in the
// loop).
func (a *Agent) sibArrive(i int32) {
	a.cursor = i
	a.flags = flagFirstRun
	a.ruleWord = 0
	if x := a.ext; x != nil && x.ruleHeld {
		x.clearRule()
	}
}

// sibNext is the rule after h in the tree's order, which is h's next
// sibling when h is a leaf (an action, a success or failure rule) and its
// first child when h is a list: markSiblings marks only rules for which
// that holds, so that the fast path steps to them without indexing the rules
// again.
func sibNext(h *hotRule) *hotRule {
	return (*hotRule)(unsafe.Add(unsafe.Pointer(h), unsafe.Sizeof(hotRule{})))
}

// sibMoved hands the step over to the loop after count runs, the runs
// written out.
func (a *Agent) sibMoved(count int) (Status, error) {
	a.flags |= flagQuiet
	a.sibRuns(count)
	a.count = uint16(count)
	return a.loop()
}

// sibOut hands the step over to the loop after count runs, the last of
// them the run of the choice parent moving on to its child to (its next
// child, or its first after a loop back), which the cursor arrives at
// unless no room is left for it under the run-away limit: a run-away.
func (a *Agent) sibOut(count int, parent, to int32) (Status, error) {
	if a.runawayAt(uint16(a.env.runLimit)) {
		// A run-away (the cursor not yet moved on: abort puts it on the
		// root, and nothing is called in between).
		return a.sibRunaway(count, parent)
	}
	a.arrive(to)
	return a.sibMoved(count)
}

// sibRunaway ends the step with the run-away error of rule r after count
// runs, the runs written out.
func (a *Agent) sibRunaway(count int, r int32) (Status, error) {
	a.flags |= flagQuiet
	a.count = uint16(count)
	a.sibRuns(count)
	return a.abort(a.runawayError(r))
}

// sibStopped ends the fast path on err (errPaused at a pending call: the
// step pauses) after the runs counted (a.count), the runs written out.
func (a *Agent) sibStopped(err error) (Status, error) {
	a.flags |= flagQuiet
	a.sibRuns(int(a.count))
	return a.stopped(err)
}

// sibRuns writes out the runs the fast path made from run env.segFrom up to
// run to that the tree implies: from rule
// env.segRule (a choice entered there runs, then its first child), each
// child and then its parent choice moving on to the child after it. That
// is the order of the fast path' runs between its start or a loop back to a
// choice's first child and the next, so the run-away message and the rest
// of a step that the generic loop goes on with see every run, while a step
// that ends in the fast path stores none.
//
//go:noinline
func (a *Agent) sibRuns(to int) {
	env := a.env
	from, r := env.segFrom, env.segRule
	runs := env.runs // only the rules: nothing sees the runs of a quiet step but a run-away's message
	if len(runs) < to {
		runs = env.growRuns(to)
	}
	hot := a.bound.hot
	if from < to && hot[r].kind == KindChoice {
		runs[from].Rule = r
		from++
		r = hot[r].firstChild
	}
	for from < to {
		runs[from].Rule = r
		from++
		if from == to {
			break
		}
		runs[from].Rule = hot[r].parent
		from++
		r = hot[r].next
	}
}

// siblingJumped applies a jump asked for during the run of the cursor,
// which ended with st, as the loop does after any run (takeJump, jumpNow).
// jumped is false when the jump was to the cursor itself: nothing changes.
// Else the step ended (with Running, the cursor's action having returned
// running: the target runs at the next step), or the loop goes on from
// the target, or the step ends with the error of a cancel hook.
func (a *Agent) siblingJumped(st Status) (Status, error, bool) {
	r := a.cursor
	target, ok := a.takeJump(r)
	if !ok {
		return 0, nil, false
	}
	a.flags |= flagQuiet
	if st != Running {
		// actionResult's flags, which the fast path leaves to the
		// arrival that follows a finished run: the jump moves the cursor.
		a.flags &^= flagActionRunning | flagFirstRun
	}
	a.count++ // the cursor's run
	if err := a.jumpNow(r, true, target); err != nil {
		st, err := a.sibStopped(err)
		return st, err, true
	}
	a.flags &^= flagBubbling
	if st == Running {
		a.phase = phaseIdle // the step ended
		return Running, nil, true
	}
	st, err := a.sibMoved(int(a.count))
	return st, err, true
}
