package runtime

import (
	"errors"
	"math"
)

// The active path: the cursor and its ancestors. A rule becomes **active**
// when the cursor comes into its subtree from outside (entering it, a jump
// or a preemption landing in it) and stays active until the cursor leaves
// that subtree or the rule finishes; it is then **left**. This file is the
// one place where rules become active and are left, so that everything tied
// to that (timeout clocks, cooldowns, log parameters, the lanes of
// parallels, gates) hooks in here:
//
//   - letIn(r): r's first run since the cursor arrived lets it in: the
//     arrival checks of r (admit: its cooldown, then its gate, which may
//     pause the step: gate_agent.go); r becomes active if they let it in.
//     Every loop calls it, before r's conditions.
//   - activate(r): r becomes active. Its timeout clock starts.
//   - start(r) (hooks.go): r, active, passed its conditions at its entry
//     (or a jump landed below it): its log.start is written and its enter
//     hook runs, once per activation.
//   - ruleFinished(r, res): r, let in, finished with success or failure
//     (before doNotFail): it is left, or, with attempts left after a
//     failure, entered again. Every loop calls it.
//   - leave(r, res, how): r is left: res is Success or Failure when r
//     finished (aborted included), 0 when the cursor left it without
//     finishing; how says which way (leaveHow). Its cooldown starts, its
//     clock stops, and a finished rule writes log.success or log.failure.
//     A gate it held is released.
//   - moveTo(from, target, how): the cursor goes somewhere else than the
//     state machine's next rule (a jump, a preemption): the rules of the
//     old path that are not above target are left, innermost first; those
//     above target that were not active become active, outermost first (a
//     parallel among them starts its lanes); target is an arrival unless
//     it was active already.
//   - leaveAll(how): every active rule is left, innermost first (a reset,
//     an error, a restore, the agent closed).
//
// The invariant that keeps this state small: every strict ancestor of the
// cursor is active, and flagActive says whether the cursor itself is (it
// becomes active at its first run after it arrived, when its cooldown lets
// it in; a finished rule is not). So the active set is known from the
// cursor and one bit, and a save holds the bit. With parallels this holds
// per context (lanes.go): in a running lane, the lane's cursor and its
// ancestors up to the lane's child, the parallel being the cursor of the
// context around it. Rules of a lane that is cancelled are left like any
// other, innermost first, lane after lane in document order.
//
// A rule's hooks (step_hot.go) say whether letting it in and leaving it do
// anything beyond the flag: the loops call admit and leave only for rules
// that have them, so a tree pays for a feature only on the rules that use
// it.

// leaveHow is the way a rule is left: by finishing, or by one of the
// events that take the cursor out of it without finishing. Every way of
// leaving goes through leave with one of these; to act whenever a rule is
// left (an exit hook), act there.
type leaveHow uint8

const (
	leftSuccess leaveHow = iota + 1 // it finished with success
	leftFailure                     // it finished with failure
	leftAbort                       // aborted (its watched conditions failed), or left below the aborted rule
	leftTimeout                     // timed out, or left below the rule that did
	leftPreempt                     // left below a choice whose watched child took over
	leftJump                        // left by a jump elsewhere
	leftCancel                      // its lane was cancelled
	leftReset                       // an error reset the agent, or Agent.Reset, or a restore replaced its state
	leftRemove                      // the agent was removed (Agent.Close)
)

// letIn lets rule r (h is hot[r]) in at its first run since the cursor
// arrived: r becomes active, unless its arrival checks refuse it (false;
// with phaseWaitGate, the step waits for the round's end at the take of
// its gate, and letIn runs again when it resumes). A rule without hooks
// has none: it only becomes active.
func (a *Agent) letIn(r int32, h *hotRule) bool {
	if h.hooks&hookLetIn != 0 {
		return a.admit(r)
	}
	a.flags |= flagActive
	return true
}

// letSlotIn gives slot r, just let in, the tree wanted for it (slots.go):
// the agent may move to another view of its tree (no index moves).
func (a *Agent) letSlotIn(r int32) error { return a.enterSlot(r) }

// ruleFinished leaves rule r (h is hot[r]), which was let in and finished
// with res, Success or Failure before doNotFail: the one place where a
// rule that ran finishes, on every loop. The cursor, which is r, is no
// longer active. A rule with attempts left is not left but entered again
// (retried: true): the cursor is r, an arrival that stays active.
func (a *Agent) ruleFinished(r int32, h *hotRule, res Status) (retried bool) {
	a.flags &^= flagActive // the cursor is r: a list that finished went back to it
	if h.hooks&hookLeave != 0 {
		return a.leaveFinished(r, res)
	}
	return false
}

// leaveFinished leaves rule r, which finished with res, or retries it: a
// failure (before doNotFail; aborts and timeouts do not come here) of a
// rule with attempts that has failed fewer than that many times since it
// became active enters it again at once. It stays active (its clock, gate
// hold and start carry on; its cooldown does not start); for an action
// that is a fresh start.
func (a *Agent) leaveFinished(r int32, res Status) (retried bool) {
	how := leftSuccess
	if res == Failure {
		how = leftFailure
		if a.retries(r) {
			a.slab[a.bound.feats[r].countSlot] += 1 << 32 // one more failure
			a.arrive(r)
			a.flags |= flagActive
			return true
		}
	}
	a.leave(r, res, how)
	return false
}

// retries reports whether rule r, let in, is entered again when it fails
// now: it has attempts, and fewer than attempts-1 failures so far.
func (a *Agent) retries(r int32) bool {
	f := &a.bound.feats[r]
	return f.attempts > 1 && int32(a.slab[f.countSlot]>>32)+1 < f.attempts
}

// passMove resolves movePass, the pass of rule r (a sequence or choice
// with repeat) that finished with success: the rule starts again at its
// first child (moveFirst) until repeat passes have succeeded, then
// succeeds. It counts nothing: countPass counts the pass once the rule
// has started again, so that a step paused at the rule's conditions on
// the way (listMoves) decides the same move when it resumes. The count
// starts at 0 each time the rule becomes active (leave clears it).
func (a *Agent) passMove(r int32) listMove {
	f := &a.bound.feats[r]
	if int32(a.slab[f.countSlot]&(1<<32-1))+1 >= f.repeat {
		return moveSucceed
	}
	return moveFirst
}

// countPass counts a pass of rule r that started it again (passMove's
// moveFirst).
func (a *Agent) countPass(r int32) {
	c := &a.slab[a.bound.feats[r].countSlot]
	*c = *c&^(1<<32-1) | (*c+1)&(1<<32-1)
}

// Counts are rule r's passes (repeat) and failures (attempts) since it
// became active: what the live view shows. Both are 0 for a rule that is
// not active or has neither attribute.
func (a *Agent) Counts(r int32) (passes, failures int32) {
	b := a.bound
	if b.feats == nil || r < 0 || int(r) >= len(b.feats) || b.feats[r].countSlot < 0 {
		return 0, 0
	}
	c := a.slab[b.feats[r].countSlot]
	return int32(c & (1<<32 - 1)), int32(c >> 32)
}

// admit runs the arrival checks of rule r, at its first run after the cursor
// arrived (r is the cursor and not active): its cooldown, then its gate. A
// rule let in becomes active; a refused one never did (it is not left, its
// cooldown does not restart, it logs nothing) and fails at once. A take of
// a gate pauses the step: admit then returns false with phaseWaitGate, and
// runs again when the step resumes, with the round's answer.
func (a *Agent) admit(r int32) bool {
	if f := &a.bound.feats[r]; f.arrival != 0 && a.refuses(r, f) {
		return false
	}
	a.flags |= flagActive
	a.activate(r)
	return true
}

// refuses runs the arrival checks of rule r, which has a cooldown or a gate
// (f is its feature row).
func (a *Agent) refuses(r int32, f *ruleFeat) bool {
	if a.coolingDown(r) {
		if a.env.Explain {
			a.whyCooldown(r)
		}
		return true
	}
	return f.gate >= 0 && !a.takeGate(r, f.gate)
}

// wouldRefuse reports whether rule r's arrival checks would refuse it now,
// without changing anything: its cooldown runs, or its gate could not be
// taken now. The start-of-step checks skip such a watched child.
func (a *Agent) wouldRefuse(r int32) bool {
	return a.bound.feats[r].arrival != 0 && a.wouldRefuseNow(r)
}

// wouldRefuseNow is wouldRefuse for a rule that has a cooldown or a gate.
func (a *Agent) wouldRefuseNow(r int32) bool {
	return a.coolingDown(r) || a.wouldRefuseGate(r)
}

// coolingDown reports whether rule r was left less than its cooldown ago.
func (a *Agent) coolingDown(r int32) bool {
	f := &a.bound.feats[r]
	if f.coolSlot < 0 {
		return false
	}
	left := math.Float64frombits(a.slab[f.coolSlot])
	return !math.IsNaN(left) && a.time-left < f.cooldown
}

// activate marks rule r active at the agent's time. (Its log.start and
// enter hook wait for its start: hooks.go.)
func (a *Agent) activate(r int32) {
	if a.env.spy != nil {
		a.env.spy(a, r, true)
	}
	if f := &a.bound.feats[r]; f.timeSlot >= 0 {
		a.slab[f.timeSlot] = math.Float64bits(a.time)
	}
}

// leave marks rule r left at the agent's time, the way how; res is the
// raw result (before doNotFail) of a rule that finished (an aborted or
// timed-out one finishes with failure), or 0. Its counts go back to 0, and
// a rule that started runs its exit hook (hooks.go), after the running
// action's cancel (the callers cancel first) and before the rules above it.
func (a *Agent) leave(r int32, res Status, how leaveHow) {
	if a.env.spy != nil {
		a.env.spy(a, r, false)
	}
	f := &a.bound.feats[r]
	if !f.leaves {
		return
	}
	if f.timeSlot >= 0 {
		a.slab[f.timeSlot] = unsetStamp
	}
	if f.coolSlot >= 0 {
		a.slab[f.coolSlot] = math.Float64bits(a.time)
	}
	if f.holdBit >= 0 {
		a.unhold(f)
	}
	if f.countSlot >= 0 {
		a.slab[f.countSlot] = 0
	}
	if f.custom != nil {
		a.leaveCustom(r, f, how) // custom_step.go
	}
	if f.startBit >= 0 {
		a.exit(r, f, how)
	}
	switch {
	case res == Success && f.logSuccess != "":
		a.env.log(a, a.bound.Tree.Rules[r].Label, f.logSuccess)
	case res == Failure && f.logFailure != "":
		a.env.log(a, a.bound.Tree.Rules[r].Label, f.logFailure)
	}
}

// leaveAll leaves every active rule, innermost first, the way how. The
// caller moves the cursor afterwards.
func (a *Agent) leaveAll(how leaveHow) {
	if a.bound.feats != nil {
		a.leaveUpTo(-1, how)
	}
	a.flags &^= flagActive
}

// leaveUpTo leaves the active rules from the cursor up to, not including,
// stop (one of its ancestors, or -1 for all), innermost first, the way
// how.
func (a *Agent) leaveUpTo(stop int32, how leaveHow) {
	rules := a.bound.rules
	r := a.cursor
	if a.flags&flagActive == 0 {
		r = rules[r].parent
	}
	for ; r >= 0 && r != stop; r = rules[r].parent {
		a.leave(r, 0, how)
	}
}

// moveTo moves the cursor of the context being run from `from` (active or
// not) to target, outside the state machine's own moves: a jump or a
// preemption (how). The running action, if any, must have been cancelled
// already. target is in this context's part of the tree (lanes_jump.go
// finds the context); the move never leaves it.
//
// A parallel on the way to target that was not active starts with all its
// lanes, target's lane heading for target and the others at their child;
// the context's cursor is then that parallel (which runs its lanes when it
// runs next), and target the cursor of its lane.
func (a *Agent) moveTo(from int32, fromActive bool, target int32, how leaveHow) error {
	b := a.bound
	if b.feats == nil {
		// Nothing to leave or to activate: target is an arrival, unless it
		// is active already (a strict ancestor of from), which keeps its
		// activation.
		keep := target != from && b.within(from, target)
		a.arrive(target)
		if keep {
			a.flags |= flagActive
		}
		return nil
	}
	rules := b.rules
	// Leave the old path, innermost first, up to the deepest active rule
	// that target is in (or is). A lane's walk stops at its parallel.
	stop, home := int32(-1), int32(-1)
	if b.lanes != nil {
		stop, home = a.ctxParallel(), a.curCtx()
	}
	x := from
	if !fromActive {
		x = rules[from].parent
	}
	for x != stop && !b.within(target, x) {
		a.leave(x, 0, how)
		x = rules[x].parent
	}
	if x == target {
		a.arrive(target)
		a.flags |= flagActive // an active rule the cursor comes back to keeps its activation
		return nil
	}
	var err error
	if x != stop {
		// x stays active, and, with the cursor below it, has started
		// (its entry may have failed while asking for this jump).
		if b.hot[x].hooks&hookStart != 0 {
			err = a.start(x)
		}
		// x stays active: if it orders its children and target is below a
		// child that its order leaves out (a score order's), it goes on in
		// document order (the order would have no place for that child).
		if f := &b.feats[x]; f.orderSlot >= 0 && a.orderIndex(f, b.childToward(x, target)) < 0 {
			a.documentOrder(f)
		}
		if rules[x].kind == KindParallel {
			// A parallel started again from one of its lanes, or whose
			// entry asked for a jump into them: it is the context's
			// cursor and stays active (its entry's discarded result left
			// the cursor on it as an arrival).
			a.flags |= flagActive
			a.startLanesToward(x, target)
		}
	}
	// The rules between x and target become active, outermost first.
	chain := a.env.chain[:0]
	for r := rules[target].parent; r != x; r = rules[r].parent {
		chain = append(chain, r)
	}
	a.env.chain = chain
	for i := len(chain) - 1; i >= 0; i-- {
		r := chain[i]
		f := &b.feats[r]
		if f.orderSlot >= 0 {
			a.documentOrder(f) // made active by a jump: document order until entered
		}
		a.activate(r)
		if b.hot[r].hooks&hookStart != 0 { // a jump landing below a rule starts it
			err = errors.Join(err, a.start(r))
		}
		if rules[r].kind == KindParallel {
			a.arrive(r)
			a.flags |= flagActive
			a.startLanesToward(r, target)
		}
	}
	a.arrive(target)
	if b.lanes != nil {
		a.switchTo(home)
	}
	return err
}

// ctxParallel is the parallel whose lane is being run, or -1 for the
// agent's own context: where a walk up a context's path ends.
func (a *Agent) ctxParallel() int32 {
	c := a.curCtx()
	if c < 0 {
		return -1
	}
	return a.bound.lanes.slots[c].par
}

// within reports whether rule r is anc or below it.
func (b *BoundTree) within(r, anc int32) bool {
	d := b.Tree.Rules[anc].Depth
	for r >= 0 && b.Tree.Rules[r].Depth > d {
		r = b.rules[r].parent
	}
	return r == anc
}

// childToward is the child of anc whose subtree holds r (r is below anc).
func (b *BoundTree) childToward(anc, r int32) int32 {
	for b.rules[r].parent != anc {
		r = b.rules[r].parent
	}
	return r
}
