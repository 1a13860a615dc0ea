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
//  3. The rule runs (the switch on its kind: an action's run written out,
//     the other kinds' in step_rules.go, order.go and lanes.go) and its
//     run is recorded and counted.
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
	b := a.bound
	if a.phase == phaseStart {
		a.phase = phaseStep
		if b.begins {
			if st, err, done := a.beginStep(); done {
				return st, err
			}
		}
	}
	limit := a.env.limit()
	for {
		cur, began := a.cursor, a.flags
		r := cur
		if began&flagBubbling != 0 {
			r = b.hotAt(cur).parent
		}
		h := b.hotAt(r)
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
			if !active && h.hooks&hookSlot != 0 { // a slot let in takes its tree (slots.go)
				if err := a.letSlotIn(r); err != nil {
					return a.abort(err)
				}
				b = a.bound
				h = b.hotAt(r)
			}
			active = true
			var err error
			switch h.kind { // the rule's run
			case KindAction:
				// The answer CompleteAction delivered; else its conditions
				// (an action that was running and whose conditions fail
				// is cancelled), then its action.
				if a.flags&flagActionAnswered != 0 {
					a.flags &^= flagActionAnswered
					st, err = a.actionResult(r, a.childRes)
					break
				}
				ok := true
				if h.conds != condNone { // testConds
					if ok, err = a.testSomeConds(r, h); err != nil {
						break
					}
				}
				switch {
				case !ok:
					st = Failure
					if a.flags&flagActionRunning != 0 {
						err = a.cancelRunning()
					}
				case h.run != nil: // an ActionFunc: no Start, no Cancel
					if st, err = h.run(a, *h.params); err != nil {
						err = a.actionFailed(r, err)
						break
					}
					st, err = a.actionResult(r, st)
				default:
					st, err = a.callAction(r, &b.rules[r])
				}
			case KindSequence, KindChoice:
				if h.conds != condNone || h.hooks&hookStart != 0 {
					st, err = a.runList(r, h)
					break
				}
				// runList of a list without conditions (testConds would
				// pass), written out: entered, into its first child (it
				// fails without); else on after its child.
				to, res := h.firstChild, Failure
				if began&flagBubbling != 0 {
					next := b.hotAt(cur).next
					m := choiceMove(a.childRes, next >= 0, h.bits)
					if h.kind == KindSequence {
						m = sequenceMove(a.childRes, next >= 0, h.bits)
					}
					if m == movePass { // passMove, then countPass, as listMoves does (no conditions here)
						if m = a.passMove(r); m == moveFirst {
							a.countPass(r)
						}
					}
					to, res = m.target(next, h.firstChild)
				}
				st = a.listGoes(r, to, res)
			case KindFailure:
				st = Failure
			case kindOrderedChoice: // and custom rules (custom_step.go)
				st, err = a.runOrderedChoice(r, h)
			case KindParallel:
				st, err = a.runParallel(r, h)
			case KindStateMachine:
				st, err = a.runMachine(r, h)
			default:
				st, err = a.runLeaf(r, h)
			}
			if err != nil {
				if err == errSwitched { // a lane's turn begins or ends (lanes.go)
					continue
				}
				return a.stopped(err)
			}
		}
		raw := st
		st = notFail(h, st)
		if st != raw && active && h.hooks&hookLeave != 0 && (a.jump < 0 || a.jump == r) && a.retries(r) {
			// doNotFail waits for the last attempt: this failure is retried
			// (unless a jump discards it: takeJump, below, takes any jump
			// but one to r itself).
			st = raw
		}
		if h.kind != KindParallel { // record, written out
			n := int(a.count)
			runs := a.env.runs
			if n >= len(runs) {
				runs = a.env.growRuns(n + 1)
			}
			runs[n] = RuleRun{r, st, began}
			a.count++
		} else { // counted and recorded when it began, before its lanes ran
			a.parallelRan(r, st, began)
		}
		if st != statusMoved {
			a.last = st
		}
		jumped := false
		if a.jump >= 0 {
			if target, ok := a.takeJump(r); ok {
				// The jump discards r's result: r, back on the cursor as a
				// list that finished goes, is still active, and is left by
				// the jump (in its context, or with its lane).
				if active && a.cursor == r {
					a.flags |= flagActive
				}
				// What the jump leaves is the path from the cursor before
				// r ran: r, let in, or the child that finished (not active).
				if err := a.jumpNow(cur, began&flagBubbling == 0, target); err != nil {
					return a.abort(err)
				}
				a.flags &^= flagBubbling
				jumped = true
				if st != Running {
					st = statusMoved
				}
			}
		}
		if raw-Success <= Failure-Success && active && !jumped && a.ruleFinished(r, h, raw) {
			// r failed with attempts left (a jump's discarded result leaves
			// r without finishing it): it runs again, in the same step.
			st = statusMoved
			if h.hooks&hookSlot != 0 { // a slot entered again takes the tree wanted now (slots.go)
				if err := a.letSlotIn(r); err != nil {
					return a.abort(err)
				}
				b = a.bound
			}
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

// record records the run of rule r, with result st, which began with the
// context's flags began, and counts it: env.runs[:count] are the runs of
// the step so far.
func (a *Agent) record(r int32, st Status, began agentFlags) {
	n := int(a.count)
	if n >= len(a.env.runs) {
		a.env.growRuns(n + 1)
	}
	a.env.runs[n] = RuleRun{r, st, began}
	a.count++
}

// runsSoFar are the runs of the step so far.
func (a *Agent) runsSoFar() []RuleRun { return a.env.runs[:a.count] }

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
