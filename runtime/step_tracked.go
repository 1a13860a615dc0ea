package runtime

// loopTracked is the step's state machine for trees that use interruption
// or choice orders: the same as loop, plus what active.go needs to know.
//
//   - A new step runs the start-of-step checks first (interrupt.go).
//   - A rule's first run after the cursor arrived at it runs its arrival
//     checks first (admit: its cooldown, then its gate, whose take pauses
//     the step until the round's end): a refused rule fails at once
//     without becoming active, else it becomes active.
//   - A rule that finishes (success or failure, before doNotFail) while
//     active is left (leave: its cooldown starts, log parameters).
//   - A jump leaves the old path and enters the new one (moveTo), across
//     lanes when the tree has parallels (jumpNow).
//   - A parallel's lanes are contexts of their own: a lane's turn begins
//     and ends with a switch of context (errSwitched), and a lane whose
//     rule returns running waits instead of ending the step (lanes.go).
//
// Keeping it apart from loop keeps trees without these features on a loop
// that does not pay for them; TestLoop_trackedStepsPlainTreesAsLoopDoes
// holds the two to the same steps.
func (a *Agent) loopTracked() (Status, error) {
	b := a.bound
	if a.phase == phaseStart { // a new step: the checks at its start come first
		a.phase = phaseStep
		if b.gated {
			a.beginGateStep()
		}
		if b.watch && a.beginChecks() {
			if st, err, done := a.runChecks(); done {
				return st, err
			}
		}
	}
	limit := a.env.limit()
	for {
		r, began := a.cursor, a.flags
		if began&flagBubbling != 0 {
			r = b.rules[r].parent
		}
		rule := &b.rules[r]
		var st Status
		var err error
		// Where the cursor was and whether it (and r) were active before r
		// ran: what a jump leaves, and whether a finished r is left.
		from, fromActive, wasActive := a.cursor, false, false
		if a.flags&(flagBubbling|flagActive) == 0 && !a.admit(r) { // r's first run since the cursor arrived
			if a.phase == phaseWaitGate {
				return a.stopped(errPaused) // the take of a gate waits for the round's end
			}
			st = Failure // refused by its cooldown or gate: nothing is evaluated or called
		} else {
			fromActive = a.flags&flagActive != 0
			wasActive = fromActive || a.flags&flagBubbling != 0
			st, err = a.runRule(r, rule)
		}
		if err != nil {
			if err == errSwitched { // a lane's turn begins or ends (lanes.go)
				continue
			}
			return a.stopped(err)
		}
		raw := st
		if st == Failure && rule.doNotFail {
			st = Success
		}
		if rule.kind == KindParallel { // counted and recorded when it began, before its lanes ran
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
			target := a.jump
			a.jump = -1
			if target != r {
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
		if wasActive && !jumped && (raw == Success || raw == Failure) {
			a.leave(r, raw) // a jump's discarded result leaves r without finishing it
			if r == a.cursor {
				a.flags &^= flagActive
			}
		}
		if st == Running {
			if b.lanes != nil && a.laneWaits() {
				continue // a lane waits: its parallel goes on with the next lane
			}
			return a.finish(Running)
		}
		if a.count >= limit {
			return a.abort(a.runawayError(r))
		}
		if st == statusMoved {
			a.flags &^= flagBubbling
			continue
		}
		if rule.parent < 0 {
			a.arrive(r) // past the root: the next step enters the tree afresh
			return a.finish(st)
		}
		// r finished and the cursor is on r: its parent runs next and sees st.
		a.childRes = st
		a.flags |= flagBubbling
	}
}
