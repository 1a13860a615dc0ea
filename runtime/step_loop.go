package runtime

// loop is the step's state machine, for every tree. Everything it needs to
// continue lives in the agent (cursor, flagBubbling and childRes, condIdx,
// count), which is what lets a step pause at a call and resume later.
//
//  1. A new step runs what comes before the cursor first (beginStep: the
//     gates' step, the checks at the start of a step).
//  2. The rule to run is the cursor, or its parent when the cursor
//     finished (flagBubbling). A rule's first run since the cursor arrived
//     lets it in (letIn: its arrival checks, which may refuse it or pause
//     the step at the take of a gate); a refused rule fails at once.
//  3. The rule runs (runRule) and its run is recorded and counted.
//  4. A jump asked for during the run moves the cursor (takeJump, jumpNow)
//     and discards a finished result; else a rule that was let in and
//     finished is left (ruleFinished).
//  5. Running ends the step (or, in a lane, the lane's turn); past the
//     run-away limit the step ends with an error; a moved cursor runs next;
//     a finished rule bubbles its result to its parent, or past the root
//     ends the step.
//
// A step begins in stepTo (step_fast.go), which runs its beginning on the
// fast path when it can and hands the rest to the loop.
func (a *Agent) loop() (Status, error) {
	if a.phase == phaseStart {
		a.phase = phaseStep
		if st, err, done := a.beginStep(); done {
			return st, err
		}
	}
	b := a.bound
	hot := b.hot
	limit := a.env.limit()
	for {
		r, began := a.cursor, a.flags
		if began&flagBubbling != 0 {
			r = hot[r].parent
		}
		h := &hot[r]
		var st Status
		// active: r is active during its run: the cursor's parent (a
		// child's result bubbles to it), or the cursor, let in.
		active := began&(flagBubbling|flagActive) != 0
		if !active && !a.letIn(r, h) { // r's first run since the cursor arrived
			if a.phase == phaseWaitGate {
				return a.stopped(errPaused) // the take of a gate waits for the round's end
			}
			st = Failure // refused by its cooldown or gate: nothing is evaluated or called
		} else {
			active = true
		}
		// Where the cursor was and whether it was active before r ran: what
		// a jump leaves.
		from, fromActive := a.cursor, a.flags&flagActive != 0
		if active {
			var err error
			st, err = a.runRule(r, h)
			if err != nil {
				if err == errSwitched { // a lane's turn begins or ends (lanes.go)
					continue
				}
				return a.stopped(err)
			}
		}
		raw := st
		st = notFail(h, st)
		if h.kind == KindParallel { // counted and recorded when it began, before its lanes ran
			a.parallelRan(r, st, began)
		} else {
			a.count++
			a.env.runs = append(a.env.runs, RuleRun{r, st, began})
		}
		if st != statusMoved {
			a.last = st
		}
		jumped := false
		if a.jump >= 0 {
			if target, ok := a.takeJump(r); ok {
				if err := a.jumpNow(from, fromActive, target); err != nil {
					return a.abort(err)
				}
				a.flags &^= flagBubbling
				jumped = true
				if st != Running {
					st = statusMoved
				}
			}
		}
		if active && !jumped && (raw == Success || raw == Failure) {
			a.ruleFinished(r, h, raw) // a jump's discarded result leaves r without finishing it
		}
		if st == Running {
			if b.lanes != nil && a.laneWaits() {
				continue // a lane waits: its parallel goes on with the next lane
			}
			return a.finish(Running)
		}
		if a.runawayAt(limit) {
			return a.abort(a.runawayError(r))
		}
		if st == statusMoved {
			a.flags &^= flagBubbling
			continue
		}
		if h.parent < 0 {
			a.pastRoot(r, st)
			return a.finish(st)
		}
		// r finished and the cursor is on r: its parent runs next and sees st.
		a.childRes = st
		a.flags |= flagBubbling
	}
}

// beginStep runs what a step does before its cursor runs, for trees that
// have any: the gates' step (gate_agent.go), then the checks at the start
// of a step (interrupt.go). done reports that the step ended or paused
// there.
func (a *Agent) beginStep() (Status, error, bool) {
	b := a.bound
	if b.gated {
		a.beginGateStep()
	}
	if b.watch && a.beginChecks() {
		return a.runChecks()
	}
	return 0, nil, false
}
