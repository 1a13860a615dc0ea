package runtime

import "unsafe"

// The commonest shape of a tree without features is a choice without
// conditions over actions that each have at most one simple condition (the
// Drag[en]gine example's root: try each behaviour in turn, the first that
// does not fail wins). loopLean runs such an action and, while it fails,
// the choice's move to the next child and that child, here in one tight
// loop, without going back round the generic loop for each run. It runs in
// quiet steps only (no Observer when the step began): every run is counted
// as the generic loop counts it (the action's run, then the choice's run on
// after it), and only the rules run are kept, written out only where
// something reads them (sibRuns), which is all the run-away limit and the
// run-away message need. Observed steps record every run in full in
// loopLean. Every step begins here (Agent.Step, Agent.StepAt), and one this
// loop does not run goes on from here to loopTracked or loopLean.

// hotSibling marks a child of a choice without conditions that loopLean
// can run in runSiblings: an action whose action is an ActionFunc (no
// Start, no Cancel) with no condition or one ConditionFunc or variable
// condition, or a success or failure rule without conditions (a choice's
// usual last child). hotEnters marks a choice without conditions whose
// first child is such a rule: runSiblings enters it.
const (
	hotSibling hotBits = 1 << 2
	hotEnters  hotBits = 1 << 3
	hotFast            = hotSibling | hotEnters
	// upRoot, in hotRule.up: the parent is the root.
	upRoot hotBits = 1 << 4
)

// markSiblings sets hotSibling and hotEnters on the rules of hot that
// runSiblings runs, and gives each such child what runSiblings reads of
// its parent (hotRule.up, upFailed).
func markSiblings(hot []hotRule) {
	for i := range hot {
		h := &hot[i]
		action := h.kind == KindAction && h.run != nil && h.conds != condOther
		leaf := (h.kind == KindSuccess || h.kind == KindFailure) && h.conds == condNone
		if !action && !leaf || h.parent < 0 {
			continue
		}
		// runSiblings steps from a child to the next one, and from a
		// choice to its first child, as to the rule after it (sibNext):
		// in the tree's order a leaf's next sibling and a list's first
		// child come right after it. A rule for which that would not hold
		// is left to loopLean.
		if h.next >= 0 && h.next != int32(i)+1 {
			continue
		}
		if p := &hot[h.parent]; p.kind == KindChoice && p.conds == condNone {
			h.bits |= hotSibling
			h.up, h.upFailed = p.bits&hotLoop, p.failed
			if p.parent < 0 {
				h.up |= upRoot
			}
			if p.firstChild == int32(i) && h.parent == int32(i)-1 {
				p.bits |= hotEnters
			}
		}
	}
}

// runSiblings runs the rule r, the cursor (arrived or running on, with no
// answer to a paused call pending), as loopLean would after count runs,
// when it is marked hotFast (else it hands the step back to loopLean at
// once), records its run, and goes on with the runs that follow while they
// have the shape it knows:
//
//   - a choice entered moves the cursor to its first child;
//   - the action runs (its condition, then its ActionFunc), or the
//     success or failure rule;
//   - a jump asked for during the action's calls is applied;
//   - after the action failed or succeeded, its parent choice runs on: on
//     to the next child, or back to its first when it loops, or it
//     finishes (failure past its last child; success).
//
// It is called with room for at least two more runs under the run-away
// limit (sibFits), and runs an action only while that holds, so that the
// action's run and its parent's need no check of the limit between them.
//
// Called by loopLean, it returns the step's result (a.last) when the step
// ended (a run returned running, or the root finished), or statusMoved
// when loopLean goes on from the cursor (a move to a rule runSiblings does
// not run or has no room for, or a choice that finished below the root,
// whose parent runs next), with the runs counted so far; or an error (of a
// call, or the run-away error) with the runs before it.
//
// Called by StepAt with count stepBegins, it begins the step at time t
// (r is the cursor then) and returns the step's result and error: it goes
// on with the step in loopTracked or loopLean when it does not run it from its start,
// and in loopLean where it hands it back (sibMoved, sibStopped). One call
// for the commonest step, rather than StepAt's and this one. (The error
// comes second, the count last: what loopTracked and loopLean return, which
// it returns from them, stays in the registers it comes back in.)
func (a *Agent) runSiblings(t float64, r int32, count int) (Status, error, int) {
	hot := a.bound.hot // nil: a tree with features
	if count == stepBegins {
		if a.phase != phaseIdle {
			return Errored, &Error{Agent: a.id, Msg: "cannot step: the previous step is paused at a call", Err: ErrBusy}, 0
		}
		a.dt = t - a.time
		a.time = t
		a.step++
		a.phase = phaseStart
		if hot == nil { // a tree with features: loopTracked, called from here
			a.count = 0
			a.flags &^= flagBubbling | flagQuiet
			a.env.runs = a.env.runs[:0]
			st, err := a.loopTracked()
			return st, err, 0
		}
		if env, o := a.env, a.env.Observer; o != nil || !env.quietReady() {
			// An observed step, or a quiet one before the Env is ready for
			// this loop: loopLean, called from here.
			a.count = 0
			flags := a.flags &^ (flagBubbling | flagQuiet)
			if o == nil {
				flags |= flagQuiet // nothing will see the step's runs
			}
			a.flags = flags
			st, err := a.loopLean(0)
			return st, err, 0
		}
		// Between steps an agent is neither bubbling nor quiet (every end
		// of a step clears both). A step runSiblings begins stays not
		// quiet while it runs here, which tells its ways out from those of
		// a step loopLean runs (quiet when it calls runSiblings); flagQuiet
		// is set where it hands the step over (sibMoved, sibStopped).
		if a.flags&(flagBubbling|flagQuiet) != 0 {
			a.flags &^= flagBubbling | flagQuiet
		}
		r, count = a.cursor, 0
	}
	h := &hot[r]
	// The runs are not stored as they happen: from (env.segFrom,
	// env.segRule) on they are the ones the tree implies (sibRuns), up to
	// a loop back to a choice's first child, where they are written out
	// and a new segment begins. A step that ends here needs none of them;
	// every other way out writes them out first.
	env := a.env
	env.segFrom, env.segRule = count, r
	if h.bits&hotFast == 0 { // a rule of another shape: loopLean runs it
		return a.sibMoved(count)
	}
	if h.kind == KindChoice { // entered: into its first child
		a.arrive(h.firstChild)
		count++
		if !sibFits(env, count) {
			return a.sibMoved(count)
		}
		h = sibNext(h)
	}
	a.count = uint16(count)
	for {
		ok := true
		a.flags |= flagActive // let in (a rule without features is never refused) before its conditions
		switch h.conds {
		case condOneFunc:
			v, err := h.test(a, h.params)
			if err != nil {
				return a.sibStopped(a.condFailed(a.cursor, 0, err))
			}
			ok = v != h.flip
		case condOneVar:
			ok = a.VarAt(h.slot) != h.flip
		}
		st := h.failed
		if h.run == nil { // a success or failure rule
			if h.kind == KindSuccess {
				st = Success
			}
		} else if ok {
			var err error
			st, err = h.run(a, h.params)
			if err != nil {
				return a.sibStopped(a.actionFailed(a.cursor, err))
			}
			switch st {
			case Running:
				a.flags = (a.flags | flagActionRunning) &^ flagFirstRun
			case Success:
			case Failure:
				st = h.failed
			default: // not a status an action may return: an error
				_, err = a.actionResult(a.cursor, st)
				return a.sibStopped(err)
			}
		}
		// An action that finished (succeeded, failed, or its conditions
		// failed) is no longer running and has had its first run: the
		// arrival that follows on every way from here but running (its
		// choice moving on or finishing, or a jump) sets the flags that
		// say so. (An action whose conditions failed while it was running
		// has no Cancel to call: it is an ActionFunc.)
		// (What the rare ways below need after a call of their own they
		// read again from the agent, so that the common way keeps nothing
		// on the stack for them.)
		a.last = st
		if a.jump >= 0 {
			switch a.siblingJumped(a.cursor, st, int(a.count)+1) {
			case statusEnded:
				return a.last, nil, int(a.count)
			case statusMoved:
				return a.sibMoved(int(a.count) + 1)
			}
			st = a.last
		}
		if st == Running {
			n := int(a.count) + 1
			return a.leanEnded(n), nil, n
		}
		env := a.env
		count := int(a.count) + 2 // the child's run and its parent's
		// The action finished: its parent, a choice without conditions,
		// runs on: on to the next child, back to the first, or it
		// finishes.
		var next *hotRule
		switch {
		case st != Success && h.next >= 0:
			r, next = h.next, sibNext(h)
		case st == Success && h.up&hotLoop != 0: // a loop back: the runs so far are written out
			a.sibRuns(int(a.count) + 2)
			env, count = a.env, int(a.count)+2
			r = a.bound.hot[h.parent].firstChild
			env.segFrom, env.segRule = count, r
			next = &a.bound.hot[r]
		default: // the choice finishes
			a.arrive(h.parent)
			a.count = uint16(count)
			if count >= env.runLimit {
				// A run-away (the cursor on the parent: abort puts it on
				// the root, and nothing is called in between).
				return a.sibRunaway(count, h.parent)
			}
			if st != Success {
				st = h.upFailed
			}
			a.last = st
			if h.up&upRoot != 0 {
				// Past the root (where the cursor already is): the next
				// step enters the tree afresh.
				return a.leanEnded(count), nil, count
			}
			a.childRes = st // the choice finished: its parent runs next
			a.flags |= flagBubbling
			return a.sibMoved(count)
		}
		a.count = uint16(count)
		if count+2 > env.runLimit { // no room for another child and its parent
			if count >= env.runLimit {
				// A run-away (the cursor not yet moved on: abort puts it
				// on the root, and nothing is called in between).
				return a.sibRunaway(count, h.parent)
			}
			a.arrive(r)
			return a.sibMoved(count)
		}
		a.arrive(r)
		h = next
		if h.bits&hotSibling == 0 {
			return a.sibMoved(count)
		}
	}
}

// sibNext is the rule after h in the tree's order, which is h's next
// sibling when h is a leaf (an action, a success or failure rule) and its
// first child when h is a list: markSiblings marks only rules for which
// that holds, so that runSiblings steps to them without
// indexing the rules again.
func sibNext(h *hotRule) *hotRule {
	return (*hotRule)(unsafe.Add(unsafe.Pointer(h), unsafe.Sizeof(hotRule{})))
}

// stepBegins is runSiblings' count when StepAt calls it: the step begins
// there.
const stepBegins = -1

// sibMoved hands the step over to loopLean after count runs, the runs
// written out: at once when runSiblings began the step (not quiet), else
// by returning statusMoved to it.
func (a *Agent) sibMoved(count int) (Status, error, int) {
	a.sibRuns(count)
	if a.flags&flagQuiet != 0 {
		return statusMoved, nil, count
	}
	a.count = uint16(count)
	a.flags |= flagQuiet
	st, err := a.loopLean(count)
	return st, err, count
}

// sibRunaway ends the step with the run-away error of rule r after count
// runs, the runs written out.
func (a *Agent) sibRunaway(count int, r int32) (Status, error, int) {
	a.sibRuns(count)
	return a.sibStopped(a.runawayAt(count, r))
}

// sibStopped ends the step on err after the runs counted (a.count), the
// runs written out: at once when runSiblings began the step (not quiet),
// else by returning the error to loopLean.
func (a *Agent) sibStopped(err error) (Status, error, int) {
	count := int(a.count)
	a.sibRuns(count)
	if a.flags&flagQuiet != 0 {
		return 0, err, count
	}
	a.flags |= flagQuiet
	st, err := a.leanStopped(count, err)
	return st, err, count
}

// sibRuns writes out the runs runSiblings made from run env.segFrom up to
// run to that the tree implies: from rule env.segRule (a choice entered there runs, then
// its first child), each child and then its parent choice moving on to
// the child after it. That is the order of runSiblings' runs between its
// start or a loop back to a choice's first child and the next, so the
// run-away message and the rest of a step that loopLean goes on with see
// every run, while a step that ends in runSiblings stores none.
//
//go:noinline
func (a *Agent) sibRuns(to int) {
	env := a.env
	from, r := env.segFrom, env.segRule
	if len(env.runs) < to {
		env.growRuns(to)
	}
	hot, runs := a.bound.hot, env.runs
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

// siblingJumped applies a jump asked for during the run of r (with result
// st, after count runs), as loopLean does after any run: it returns 0 when
// the jump was to r itself (nothing changes), statusEnded when the step
// ended, statusMoved when loopLean goes on from the jump's target.
//
// r is an ActionFunc's action (which has no Cancel) or a success or
// failure rule, so leaving it while it runs only marks it as not running;
// and runSiblings ran it with room for another run, so no run-away check
// is due.
func (a *Agent) siblingJumped(r int32, st Status, count int) Status {
	target := a.jump
	a.jump = -1
	if target == r {
		return 0
	}
	a.flags &^= flagActionRunning // cancelRunning, for an action without Cancel
	a.moveTo(r, true, target)
	a.flags &^= flagBubbling
	if st == Running {
		a.leanEnded(count)
		return statusEnded
	}
	return statusMoved
}

// runawayAt is the run-away error of rule r after count runs.
func (a *Agent) runawayAt(count int, r int32) error {
	a.count = uint16(count)
	a.env.runs = a.env.runs[:count]
	return a.runawayError(r)
}

// sibFits reports whether runSiblings has room for an action's run and its
// parent's after count runs.
func sibFits(env *Env, count int) bool { return count+2 <= env.runLimit }

// statusEnded is runSiblings' result when it ended the step.
const statusEnded Status = statusMoved + 1

// leanEnded ends a step of runSiblings after count runs, with a.last as
// its result (finish, written out: a quiet step, which no observer sees),
// and returns a.last. The agent is not bubbling (runSiblings sets that
// only where it hands the step over), and not quiet when runSiblings
// began the step; loopLean clears flagQuiet when runSiblings ended its
// step.
func (a *Agent) leanEnded(count int) Status {
	a.count = uint16(count)
	a.phase = phaseIdle
	return a.last
}
