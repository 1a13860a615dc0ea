package runtime

import "math"

// Interruption: the checks at the start of a step (Unreal's observer aborts,
// CryEngine's Priority and MonitorCondition, Spore's prioritized deciders).
//
// After the step's time advances and before the cursor runs, when the cursor
// is not the root, the active path is walked from the root down to the
// cursor. For each rule W on it:
//
//  1. W is not the cursor, has abort="self" or "both", and its conditions
//     fail: W is aborted.
//  2. W has a timeout and has been active that long: W is aborted (the
//     cursor too).
//  3. W is a choice and not the cursor: each child S before W's child on
//     the path, in W's current order, that has abort="lower" or "both" and
//     is not cooling down has its conditions evaluated; the first that pass
//     preempts.
//
// The walk stops at the first abort or preemption. The checks are not rule
// runs: they are not counted against the run-away limit nor listed in the
// step's runs; the step reports them as its Interrupt. Their condition calls
// pause and resume like any other (a plugin's condition on a watched rule
// travels in the round's batch): the walk's position lives in the agent.

// InterruptKind says what interrupted a step.
type InterruptKind uint8

const (
	InterruptAbort   InterruptKind = iota + 1 // a rule's watched conditions failed (abort self or both)
	InterruptTimeout                          // a rule was active as long as its timeout
	InterruptPreempt                          // a watched child of a choice (abort lower or both) took over
)

var interruptNames = [...]string{"", "abort", "timeout", "preempt"}

func (k InterruptKind) String() string {
	if int(k) < len(interruptNames) {
		return interruptNames[k]
	}
	return "invalid"
}

// Interrupt is what interrupted a step: the aborted rule (abort, timeout) or
// the preempting one (preempt).
type Interrupt struct {
	Rule int32
	Kind InterruptKind
}

// LastInterrupt is the interrupt of the agent's current or last step, if it
// had one. It stays valid until the next step begins (an Observer reads it in
// StepDone).
func (a *Agent) LastInterrupt() (Interrupt, bool) {
	if a.ext == nil || a.ext.interrupt.Kind == 0 {
		return Interrupt{}, false
	}
	return a.ext.interrupt, true
}

// checkState is where the walk stands on the path of the context being
// walked (with lanes, that context is the one being run), so that it can
// pause at a condition call and resume there.
type checkState struct {
	depth int32 // index of W on the path (its depth)
	stage uint8 // 0: W's abort, 1: its timeout, 2: the children it watches
	child int32 // stage 2: index in W's order of the child being looked at
}

// beginChecks starts a step's checks and reports whether there are any to
// run (runChecks then runs them, before the loop).
func (a *Agent) beginChecks() bool {
	x := a.extra()
	x.interrupt = Interrupt{}
	if a.cursor == Root && !a.rootRunsLanes() {
		return false // the tree finished last step, or the root keeps running: nothing above it to watch
	}
	x.check = checkState{}
	a.phase = phaseChecking
	return true
}

// runChecks runs (or resumes) the checks. done reports that the step ended
// or paused: st and err are then the step's outcome. Otherwise the step goes
// on in the loop: from an aborted rule's failure, at a preempting rule, or
// where it would have without an interrupt.
//
// One walk for every tree: after the path from the root to the cursor
// (to a parallel whose lanes run, which is not the cursor there: its
// abort="self" is watched), it goes on with each running lane's path
// below it, depth first, in document order (nextCheckedLane,
// interrupt_lanes.go). It switches to each lane in turn, so a watched
// condition sees that lane's rule and state, and a step that pauses at one
// resumes in that lane (CompleteCondition comes back here). It stops at
// the first interrupt; an interrupted lane goes on from the interrupt when
// its turn comes. The loop then starts from the agent's own context
// (interruptAbort, interruptPreempt and checkJump switch back to it).
func (a *Agent) runChecks() (st Status, err error, done bool) {
	b := a.bound
	x := a.ext
	for {
		path := a.lanePath()
		last := int32(len(path) - 1)
		// The cursor is not watched as a parent (check 1), nor are the
		// children before it (check 3); but a parallel whose lanes run is
		// not the cursor in that sense: its lanes are below it.
		cursorAt := last
		if a.lanesRun() {
			cursorAt = -1
		}
		for c := &x.check; c.depth <= last; c.depth, c.stage, c.child = c.depth+1, 0, 0 {
			w := path[c.depth]
			f := &b.feats[w]
			isCursor := c.depth == cursorAt
			if c.stage == 0 {
				if !isCursor && f.abort.WatchesSelf() {
					ok, st, err, done, end := a.checkRule(w)
					if end {
						return st, err, done
					}
					if !ok {
						return a.interruptAbort(w, InterruptAbort)
					}
				}
				c.stage = 1
			}
			if c.stage == 1 {
				if f.timeSlot >= 0 && (!isCursor || a.flags&flagActive != 0) { // a parallel whose lanes run is active
					since := math.Float64frombits(a.slab[f.timeSlot])
					if !math.IsNaN(since) && a.time-since >= f.timeout {
						return a.interruptAbort(w, InterruptTimeout)
					}
				}
				c.stage = 2
			}
			if isCursor || !f.watchLower { // a parallel watches no children
				continue
			}
			p := path[c.depth+1]
			for ; ; c.child++ {
				s := a.orderChild(f, int(c.child))
				if s < 0 || s == p {
					break
				}
				// A child whose check paused at a condition call is checked
				// on when the answer comes, even if the round's end (its
				// gates decided) would now refuse it: the answer is its
				// condition's, and must not be left for another's.
				if !b.feats[s].abort.WatchesLower() || a.flags&flagCondAnswered == 0 && a.wouldRefuse(s) {
					continue
				}
				ok, st, err, done, end := a.checkRule(s)
				if end {
					return st, err, done
				}
				if ok {
					return a.interruptPreempt(s)
				}
			}
		}
		if !a.nextCheckedLane() {
			break
		}
	}
	a.toMain()
	a.phase = phaseStep
	return 0, nil, false
}

// checkRule evaluates rule r's conditions for a check (checkCall) and
// applies a jump one of them asked for (checkJump). end reports that the
// walk ends: runChecks returns st, err and done (the step ended or paused;
// or a jump moved the cursor and the step goes on from it). Else ok is
// the value of r's conditions.
func (a *Agent) checkRule(r int32) (ok bool, st Status, err error, done, end bool) {
	if ok, st, err, done = a.checkCall(r); done {
		return false, st, err, true, true
	}
	if a.jump >= 0 {
		if st, err, done, jumped := a.checkJump(); jumped {
			return false, st, err, done, true
		}
	}
	return ok, 0, nil, false, false
}

// checkCall evaluates rule r's conditions for a check. done reports that the
// step paused (st Paused) or ended with an error.
func (a *Agent) checkCall(r int32) (ok bool, st Status, err error, done bool) {
	a.ext.callRule = r
	a.phase = phaseChecking
	ok, err = a.checkConds(r, &a.bound.rules[r])
	switch {
	case err == errPaused:
		a.phase = phaseWaitCheck
		x := a.extra()
		x.runs = append(x.runs[:0], a.runsSoFar()...)
		return false, Paused, nil, true
	case err != nil:
		a.phase = phaseStep
		st, err = a.abort(err)
		return false, st, err, true
	}
	return ok, 0, nil, false
}

// checkJump applies a jump that a condition asked for during the checks:
// the walk ends and the step goes on at the target (jumped). A jump to the
// rule whose conditions are evaluated changes nothing (takeJump) and the
// walk goes on. done reports that the step ended (a cancel hook failed).
func (a *Agent) checkJump() (st Status, err error, done, jumped bool) {
	target, ok := a.takeJump(a.ext.callRule)
	if !ok {
		return 0, nil, false, false
	}
	a.phase = phaseStep
	if err := a.jumpNow(a.cursor, a.flags&flagActive != 0, target); err != nil {
		st, err := a.abort(err)
		return st, err, true, true
	}
	a.toMain()
	return 0, nil, false, true
}

// interruptAbort aborts rule w: the running action is cancelled, the rules
// below w are left, and w finishes with failure as if it had run and
// failed: its parent sees the failure next (doNotFail turns it into
// success), or the step ends with it when w is the root. In a lane, the
// lane goes on from there when its turn comes (a lane whose child is
// aborted is then done with failure).
func (a *Agent) interruptAbort(w int32, kind InterruptKind) (Status, error, bool) {
	a.phase = phaseStep
	a.ext.interrupt = Interrupt{Rule: w, Kind: kind}
	if err := a.cancelRunning(); err != nil {
		st, err := a.abort(err)
		return st, err, true
	}
	how := leftAbort
	if kind == InterruptTimeout {
		how = leftTimeout
	}
	a.leaveUpTo(w, how)
	a.leave(w, Failure, how)
	a.arrive(w)
	st := notFail(&a.bound.hot[w], Failure)
	a.last = st
	if a.bound.rules[w].parent < 0 {
		a.pastRoot(w, st)
		st, err := a.finish(st)
		return st, err, true
	}
	a.childRes = st
	a.flags |= flagBubbling
	if a.bound.lanes != nil {
		a.toMain() // an aborted lane goes on from here at its turn
	}
	return 0, nil, false
}

// interruptPreempt moves the cursor to s, which preempts its choice: the
// running action is cancelled, the rules below the choice are left, and s
// runs next as any rule the cursor arrives at (in a lane: when the lane's
// turn comes).
func (a *Agent) interruptPreempt(s int32) (Status, error, bool) {
	a.phase = phaseStep
	a.ext.interrupt = Interrupt{Rule: s, Kind: InterruptPreempt}
	if err := a.cancelRunning(); err != nil {
		st, err := a.abort(err)
		return st, err, true
	}
	if err := a.moveTo(a.cursor, a.flags&flagActive != 0, s, leftPreempt); err != nil {
		st, err := a.abort(err)
		return st, err, true
	}
	if a.bound.lanes != nil {
		a.toMain() // a preempted lane goes on from s at its turn
	}
	return 0, nil, false
}
