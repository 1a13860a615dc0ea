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

// activePath fills the Env's scratch with the rules from the root down to
// the cursor.
func (a *Agent) activePath() []int32 {
	rules := a.bound.rules
	n := int(a.bound.Tree.Rules[a.cursor].Depth) + 1
	path := a.env.path[:0]
	for range n {
		path = append(path, 0)
	}
	for r, i := a.cursor, n-1; i >= 0; r, i = rules[r].parent, i-1 {
		path[i] = r
	}
	a.env.path = path
	return path
}

// runChecks runs (or resumes) the checks. done reports that the step ended
// or paused: st and err are then the step's outcome. Otherwise the step goes
// on in the loop: from an aborted rule's failure, at a preempting rule, or
// where it would have without an interrupt. Trees with parallels walk their
// lanes too (runLaneChecks, interrupt_lanes.go).
func (a *Agent) runChecks() (st Status, err error, done bool) {
	b := a.bound
	if b.lanes != nil {
		return a.runLaneChecks()
	}
	x := a.ext
	path := a.activePath()
	last := int32(len(path) - 1)
	for c := &x.check; c.depth <= last; c.depth, c.stage, c.child = c.depth+1, 0, 0 {
		w := path[c.depth]
		f := &b.feats[w]
		isCursor := c.depth == last
		if c.stage == 0 {
			if !isCursor && f.abort.WatchesSelf() {
				ok, st, err, done := a.checkCall(w)
				if done {
					return st, err, true
				}
				if a.jump >= 0 {
					if st, err, done, jumped := a.checkJump(); jumped {
						return st, err, done
					}
				}
				if !ok {
					return a.interruptAbort(w, InterruptAbort)
				}
			}
			c.stage = 1
		}
		if c.stage == 1 {
			if f.timeSlot >= 0 && (!isCursor || a.flags&flagActive != 0) {
				since := math.Float64frombits(a.slab[f.timeSlot])
				if !math.IsNaN(since) && a.time-since >= f.timeout {
					return a.interruptAbort(w, InterruptTimeout)
				}
			}
			c.stage = 2
		}
		if isCursor || !f.watchLower {
			continue
		}
		p := path[c.depth+1]
		for ; ; c.child++ {
			s := a.orderChild(f, int(c.child))
			if s < 0 || s == p {
				break
			}
			if !b.feats[s].abort.WatchesLower() || a.wouldRefuse(s) {
				continue
			}
			ok, st, err, done := a.checkCall(s)
			if done {
				return st, err, true
			}
			if a.jump >= 0 {
				if st, err, done, jumped := a.checkJump(); jumped {
					return st, err, done
				}
			}
			if ok {
				return a.interruptPreempt(s)
			}
		}
	}
	a.phase = phaseStep
	return 0, nil, false
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
		x.runs = append(x.runs[:0], a.env.runs...)
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
// cursor (of target's context) changes nothing and the walk goes on. done
// reports that the step ended (a cancel hook failed).
func (a *Agent) checkJump() (st Status, err error, done, jumped bool) {
	target := a.jump
	a.jump = -1
	var jerr error
	if a.bound.lanes != nil {
		if a.ctxCursor(a.liveCtxOf(target)) == target {
			return 0, nil, false, false
		}
		a.phase = phaseStep
		jerr = a.jumpAcross(a.cursor, a.flags&flagActive != 0, target)
	} else {
		if target == a.cursor {
			return 0, nil, false, false
		}
		a.phase = phaseStep
		jerr = a.cancelRunning()
		a.moveTo(a.cursor, a.flags&flagActive != 0, target)
	}
	if jerr != nil {
		st, err := a.abort(jerr)
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
	a.leaveUpTo(w)
	a.leave(w, Failure)
	a.arrive(w)
	st := a.notFail(&a.bound.rules[w], Failure)
	a.last = st
	if a.bound.rules[w].parent < 0 {
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
	a.moveTo(a.cursor, a.flags&flagActive != 0, s)
	if a.bound.lanes != nil {
		a.toMain() // a preempted lane goes on from s at its turn
	}
	return 0, nil, false
}
