package runtime

import "errors"

// Parallel lanes (CryEngine's and Lumberyard's Parallel node,
// BehaviorTree.CPP's Parallel, Unreal's Simple Parallel): a <parallel> runs
// each of its children in a lane of its own, side by side, until enough
// lanes are done with success (its success count) or with failure (its
// failure count).
//
// A lane is a context: a cursor, an actionFirstRun flag, the state of its
// current rule (the built-in rule word, the host's value such as Lua's
// ctx.state, a plugin's state bytes) and where its walk stands (bubbling
// and the child's result). Variables, timestamps, memory, time and
// signals stay the agent's. The agent's own context is the one whose
// cursor is the root's path; a parallel whose lanes run is always the
// cursor of the context it is in (its owner), and its lanes are contexts
// below that one, so contexts form a tree.
//
// Only one context is being run at a time, and its state sits in the
// agent's own fields: the cursor, the flags, ruleWord, the extension's
// rule value and bytes. Switching to another context (switchTo) stores
// those fields in the context's home and loads the other's. So everything
// that reads the agent's current rule (the loops, active.go, the checks,
// actions, Lua's ctx, the plugin host) works in a lane unchanged, and a
// step can pause at a call inside a lane and resume there.
//
// Lanes live in the agent's extension, allocated the first time a
// parallel is entered and reused afterwards: one slot per child of each
// parallel of the tree (a rule is in at most one lane of a parallel at a
// time, so a fixed layout bound with the tree does). An agent that never
// enters a parallel has none, and the step of a tree without parallels
// never calls into this file (an error, a reset or a restore asks whether
// there are lanes to leave, and finds none).
//
// How a parallel runs (runParallel, called from the step loop):
//
//   - Entered: its conditions; then every lane starts at its child (an
//     arrival) and counts as running; the parallel's owner context marks
//     the parallel as running (flagActionRunning: leaving it cancels its
//     lanes, as leaving a running action calls its cancel hook).
//   - Then, in this step and every later one while it is active, each
//     running lane in document order gets a turn: the loop switches to it
//     and runs it as a step of its own, which ends when a rule returns
//     running (the lane waits) or the lane's child finishes (the lane is
//     done with that result: the walk stops at the parallel). The loop
//     switches back and the parallel checks its counts after each turn:
//     enough successes: success; else enough failures: failure; else no
//     lane running any more: failure. When it finishes, its lanes still
//     running are cancelled in document order and its result bubbles to
//     its parent in the same step. After the last turn it returns
//     running: its owner context waits (the step ends, or the owner's own
//     turn as a lane ends).
//
// Jumps and the checks at the start of a step cross contexts: see
// lanes_jump.go and interrupt_lanes.go; saves: lanes_save.go.

// laneStatus is where a lane of an active parallel stands.
type laneStatus uint8

const (
	laneIdle      laneStatus = iota // its parallel is not active
	laneRunning                     // it has a turn in each run of its parallel
	laneSucceeded                   // done with success: it waits for the others
	laneFailed                      // done with failure
)

// laneLayout is how a tree's parallels map to lane slots; nil for a tree
// without parallels. Immutable after Bind.
type laneLayout struct {
	slots []laneSlot
	pars  int // parallels in the tree
}

// laneSlot is one child of one parallel: the lane it runs in.
type laneSlot struct {
	par   int32 // the parallel
	parIx int32 // its index among the tree's parallels
	child int32 // the lane's child: its first rule
	owner int32 // the context the parallel runs in: a slot, or -1 for the agent's own
	depth int32 // lanes around this one, itself included (1 in an outermost parallel)
}

// bindLanes lays out the lane slots of a tree that has parallels. Rules
// come in document order (pre-order), so a parallel has its slots before
// its children are visited.
func (b *BoundTree) bindLanes() {
	rules := b.Tree.Rules
	var L *laneLayout
	for i := range rules {
		f := &b.feats[i]
		f.lane, f.par, f.laneBase = -1, -1, -1
		if p := rules[i].Parent; p >= 0 {
			pf := &b.feats[p]
			f.lane = pf.lane
			if pf.par >= 0 {
				f.lane = pf.laneBase + f.pos
			}
		}
		if rules[i].Kind != KindParallel {
			continue
		}
		if L == nil {
			L = &laneLayout{}
		}
		f.par = int32(L.pars)
		L.pars++
		f.laneBase = int32(len(L.slots))
		depth := int32(1)
		if f.lane >= 0 {
			depth = L.slots[f.lane].depth + 1
		}
		for _, c := range f.kids {
			L.slots = append(L.slots, laneSlot{par: int32(i), parIx: f.par, child: c, owner: f.lane, depth: depth})
		}
		n := len(f.kids)
		f.needSuccess = int32(rules[i].SuccessAt.Count(n))
		f.needFailure = int32(rules[i].FailureAt.Count(n))
	}
	b.lanes = L
}

// isLaneChild reports whether rule r is the child of a parallel: the first
// rule of a lane.
func (b *BoundTree) isLaneChild(r int32) bool {
	p := b.rules[r].parent
	return p >= 0 && b.rules[p].kind == KindParallel
}

// depth is the number of lanes around context c (0 for the agent's own).
func (L *laneLayout) depth(c int32) int32 {
	if c < 0 {
		return 0
	}
	return L.slots[c].depth
}

// owner is the context that holds context c's parallel.
func (L *laneLayout) owner(c int32) int32 { return L.slots[c].owner }

// common is the innermost context that holds both c and d (either may be
// it).
func (L *laneLayout) common(c, d int32) int32 {
	for c != d {
		dc, dd := L.depth(c), L.depth(d)
		if dc >= dd {
			c = L.owner(c)
		}
		if dd >= dc {
			d = L.owner(d)
		}
	}
	return c
}

// LaneSlots is the number of lane slots of agents of this tree: one per
// child of each parallel. Lane.Slot is below it; a host that keeps state
// per lane can size a table with it.
func (b *BoundTree) LaneSlots() int {
	if b.lanes == nil {
		return 0
	}
	return len(b.lanes.slots)
}

// laneState is an agent's lanes, allocated when it first enters a parallel.
type laneState struct {
	cur   int32     // the context whose state is in the agent's fields: -1 the agent's own, else a slot
	top   laneCtx   // the agent's own context while a lane's is in the agent's fields
	lanes []laneCtx // by slot
	runs  []parRun  // by parallel index
}

// parRun is where a parallel's run stands.
type parRun struct {
	live bool  // active: its lanes are started
	from int32 // the lane whose turn ended last in the current run; -1 when the run begins
	// at is the index in the step's runs of the run under way, recorded
	// (and counted against the run-away limit) when it began, before any
	// of its lanes ran; the loop gives it its result when the run ends
	// (parallelRan). -1 when no run is under way.
	at int32
	// n counts its lanes by status (running, done with success, done with
	// failure; the idle count means nothing): kept as lanes change
	// (setLaneStatus), so that checking the thresholds after each lane's
	// turn costs the same however many lanes there are.
	n [4]int32
}

// idleRun is a parallel's parRun when it is not active.
var idleRun = parRun{from: -1, at: -1}

// laneCtx is a context's state while it is not the one being run: what
// switchTo swaps with the agent's fields. status is the lane's own (it is
// not swapped).
type laneCtx struct {
	cursor    int32
	flags     agentFlags // ctxFlags only
	childRes  Status
	status    laneStatus
	ruleWord  uint64
	ruleValue any
	ruleBytes []byte
}

// ctxFlags are the flags that belong to a context; the others belong to
// the call in progress.
const ctxFlags = flagFirstRun | flagActionRunning | flagBubbling | flagActive

func (ls *laneState) home(c int32) *laneCtx {
	if c < 0 {
		return &ls.top
	}
	return &ls.lanes[c]
}

// laneState returns the agent's lanes, allocating them on first use.
func (a *Agent) laneState() *laneState {
	x := a.extra()
	if x.lanes == nil {
		L := a.bound.lanes
		x.lanes = &laneState{cur: -1, lanes: make([]laneCtx, len(L.slots)), runs: make([]parRun, L.pars)}
		for i := range x.lanes.runs {
			x.lanes.runs[i] = idleRun
		}
	}
	return x.lanes
}

// curCtx is the context being run: -1 for the agent's own.
func (a *Agent) curCtx() int32 {
	if a.ext == nil || a.ext.lanes == nil {
		return -1
	}
	return a.ext.lanes.cur
}

// switchTo makes context c the one being run. An agent that never entered
// a parallel has only its own (c is -1).
func (a *Agent) switchTo(c int32) {
	if a.ext == nil || a.ext.lanes == nil {
		return
	}
	ls := a.ext.lanes
	if ls.cur == c {
		return
	}
	h := ls.home(ls.cur)
	x := a.ext
	h.cursor, h.flags, h.childRes, h.ruleWord = a.cursor, a.flags&ctxFlags, a.childRes, a.ruleWord
	h.ruleValue, h.ruleBytes = x.ruleValue, x.ruleBytes
	h = ls.home(c)
	a.cursor, a.flags, a.childRes, a.ruleWord = h.cursor, a.flags&^ctxFlags|h.flags, h.childRes, h.ruleWord
	x.ruleValue, x.ruleBytes = h.ruleValue, h.ruleBytes
	x.ruleHeld = true // what the context held, if anything
	ls.cur = c
}

// toMain makes the agent's own context the one being run.
func (a *Agent) toMain() { a.switchTo(-1) }

// lanesRun reports whether the cursor of the context being run is a
// parallel whose lanes run.
func (a *Agent) lanesRun() bool {
	return a.flags&flagActionRunning != 0 && a.bound.rules[a.cursor].kind == KindParallel
}

// runParallel runs parallel r in the context it is the cursor of (see the
// top of this file), or, called as the parent of a lane's child that
// finished, ends that lane's turn. errSwitched tells the loop that it now
// runs another context.
func (a *Agent) runParallel(r int32, h *hotRule) (Status, error) {
	if a.flags&flagBubbling != 0 {
		a.laneDone()
		return 0, errSwitched
	}
	f := &a.bound.feats[r]
	ls := a.laneState()
	run := &ls.runs[f.par]
	if run.at < 0 {
		a.beginParallelRun(r, run)
	}
	switch {
	case !run.live: // entered
		ok, err := a.listEnters(r, h)
		if err != nil {
			return 0, err
		}
		if !ok {
			return a.listGoes(r, -1, Failure), nil
		}
		if a.jump >= 0 && a.jump != r {
			return statusMoved, nil // a condition asked for a jump: it wins, no lane starts
		}
		a.jump = -1 // a jump to the parallel being entered changes nothing
		a.startLanes(f)
	case run.from >= 0: // a lane's turn ended: the counts decide
		if st, done := a.counts(f); done {
			err := a.cancelLanes(r)
			return a.listGoes(r, -1, st), err
		}
	}
	return a.nextLane(f, run)
}

// beginParallelRun counts and records the run of parallel r that begins
// (entered, or resuming its lanes), before any of its lanes runs, as a
// sequence's run is before its child's: the labels a run-away error lists
// are then exactly the runs it counted. The run is recorded as Moved (what
// it stays if a jump takes the cursor away before it ends) and gets its
// result when it ends (parallelRan). An entry is an arrival; the later
// runs are not, although the parallel keeps actionFirstRun while its
// lanes run.
func (a *Agent) beginParallelRun(r int32, run *parRun) {
	began := agentFlags(0)
	if !run.live {
		began = arrival
	}
	run.at = int32(a.count)
	a.record(r, statusMoved, began)
}

// parallelRan records the end of parallel r's run with its result st
// (after doNotFail): in the record made when it began, or, for a parallel
// that its arrival checks refused (it never began), as a run of its own.
func (a *Agent) parallelRan(r int32, st Status, began agentFlags) {
	if a.ext != nil && a.ext.lanes != nil {
		if run := &a.ext.lanes.runs[a.bound.feats[r].par]; run.at >= 0 {
			a.env.runs[run.at].Status = st
			run.at = -1
			return
		}
	}
	a.record(r, st, began)
}

// endParallelRuns forgets the runs under way of an agent whose step ended
// with an error.
func (a *Agent) endParallelRuns() {
	if a.ext == nil || a.ext.lanes == nil {
		return
	}
	for i := range a.ext.lanes.runs {
		a.ext.lanes.runs[i].at = -1
	}
}

// startLanes starts every lane of the parallel that is the cursor of the
// context being run, each at its child as an arrival.
func (a *Agent) startLanes(f *ruleFeat) {
	ls := a.laneState()
	for k, child := range f.kids {
		l := &ls.lanes[f.laneBase+int32(k)]
		l.cursor, l.flags, l.childRes, l.status, l.ruleWord, l.ruleValue = child, flagFirstRun, 0, laneRunning, 0, nil
		l.ruleBytes = l.ruleBytes[:0]
	}
	run := &ls.runs[f.par]
	run.live, run.from = true, -1 // a run under way goes on (at)
	run.n = [4]int32{laneRunning: int32(len(f.kids))}
	// Leaving the parallel cancels its lanes (cancelRunning).
	a.flags |= flagActionRunning
}

// nextLane gives the turn to the next running lane after the one whose turn
// ended last (or the first), or, when every running lane had its turn,
// ends the parallel's run: it returns Running.
func (a *Agent) nextLane(f *ruleFeat, run *parRun) (Status, error) {
	ls := a.ext.lanes
	s := f.laneBase
	if run.from >= 0 {
		s = run.from + 1
	}
	for end := f.laneBase + int32(len(f.kids)); s < end; s++ {
		if ls.lanes[s].status == laneRunning {
			run.from = s
			a.switchTo(s)
			return 0, errSwitched
		}
	}
	run.from = -1
	return Running, nil
}

// counts checks a parallel's thresholds after a lane's turn. Lanes that
// have not had a turn yet count as running.
func (a *Agent) counts(f *ruleFeat) (Status, bool) {
	n := &a.ext.lanes.runs[f.par].n
	switch {
	case n[laneSucceeded] >= f.needSuccess:
		return Success, true
	case n[laneFailed] >= f.needFailure:
		return Failure, true
	case n[laneRunning] == 0:
		return Failure, true
	}
	return 0, false
}

// setLaneStatus sets the status of the lane in slot s, keeping its
// parallel's counts of lanes by status.
func (a *Agent) setLaneStatus(s int32, st laneStatus) {
	ls := a.ext.lanes
	l := &ls.lanes[s]
	if l.status == st {
		return
	}
	n := &ls.runs[a.bound.lanes.slots[s].parIx].n
	n[l.status]--
	n[st]++
	l.status = st
}

// laneDone ends the turn of the lane being run, whose child finished with
// a.childRes: the lane is done with that result, its cursor back on its
// child as a fresh arrival, and the parallel's owner runs next.
func (a *Agent) laneDone() {
	ls := a.ext.lanes
	s := ls.cur
	st := laneFailed
	if a.childRes == Success {
		st = laneSucceeded
	}
	a.arrive(a.cursor)
	a.flags &^= flagBubbling
	a.setLaneStatus(s, st)
	a.switchTo(a.bound.lanes.owner(s))
}

// laneWaits ends the turn of the lane being run, whose rule returned
// Running: the lane waits for its next turn and the parallel's owner runs
// next. It reports false when the agent's own context is being run (the
// step ends instead).
func (a *Agent) laneWaits() bool {
	c := a.curCtx()
	if c < 0 {
		return false
	}
	a.switchTo(a.bound.lanes.owner(c))
	return true
}

// cancelLanes ends parallel p's lanes: each lane still running, in
// document order, has its running action cancelled (or its own parallel's
// lanes, depth first) and its active rules left, innermost first, through
// leave: their cooldowns start there (and gates will be released there).
// The context being run is p's owner; it is again afterwards.
func (a *Agent) cancelLanes(p int32) error {
	f := &a.bound.feats[p]
	ls := a.ext.lanes
	var errs []error
	for s, end := f.laneBase, f.laneBase+int32(len(f.kids)); s < end; s++ {
		if ls.lanes[s].status == laneRunning {
			if err := a.cancelLane(s); err != nil {
				errs = append(errs, err)
			}
		}
		ls.lanes[s].status = laneIdle
	}
	run := &ls.runs[f.par]
	run.live, run.from, run.n = false, -1, [4]int32{}
	a.flags &^= flagActionRunning
	return errors.Join(errs...)
}

// cancelLane cancels one running lane (see cancelLanes).
func (a *Agent) cancelLane(s int32) error {
	back := a.curCtx()
	a.switchTo(s)
	err := a.cancelRunning()
	a.leaveUpTo(a.bound.lanes.slots[s].par, leftCancel)
	a.arrive(a.bound.lanes.slots[s].child)
	a.flags &^= flagBubbling
	a.switchTo(back)
	return err
}

// ctxFlags are the flags of context c.
func (a *Agent) ctxFlags(c int32) agentFlags {
	if c == a.curCtx() {
		return a.flags & ctxFlags
	}
	return a.ext.lanes.home(c).flags
}

// ctxCursor is the cursor of context c.
func (a *Agent) ctxCursor(c int32) int32 {
	if c == a.curCtx() {
		return a.cursor
	}
	return a.ext.lanes.home(c).cursor
}

// Lane is one lane of a parallel that is active.
type Lane struct {
	// Slot identifies the lane among the agent's lanes: below
	// BoundTree.LaneSlots, the same for the same child of the same
	// parallel each time it runs (a host keeps per-lane state by it).
	Slot int
	// Parent is the slot of the lane whose cursor is this lane's parallel,
	// or -1 when the parallel is the agent's cursor.
	Parent   int
	Parallel int32  // the parallel (a rule index)
	Child    int32  // the lane's child: its first rule
	Cursor   int32  // the lane's current rule (its child once it is done)
	Status   Status // Running, or Success or Failure once the lane is done
	// Active reports whether the lane's cursor rule itself is active (it
	// ran since the cursor arrived and has not finished), as
	// Agent.CursorActive does for the agent's own cursor.
	Active bool
}

// Lanes appends the lanes of the agent's active parallels to dst and
// returns it: the lanes of the parallel that is the agent's cursor, in
// document order, each followed by the lanes of the parallel that is its
// own cursor, if any (depth first). Lanes that are done are listed too. An
// agent whose cursor is not a parallel with running lanes has none.
func (a *Agent) Lanes(dst []Lane) []Lane {
	if a.ext == nil || a.ext.lanes == nil {
		return dst
	}
	return a.appendLanes(dst, -1)
}

func (a *Agent) appendLanes(dst []Lane, c int32) []Lane {
	ls := a.ext.lanes
	cursor := a.ctxCursor(c)
	if a.bound.rules[cursor].kind != KindParallel {
		return dst
	}
	f := &a.bound.feats[cursor]
	if !ls.runs[f.par].live {
		return dst
	}
	for k, child := range f.kids {
		s := f.laneBase + int32(k)
		l := Lane{Slot: int(s), Parent: int(c), Parallel: cursor, Child: child, Cursor: a.ctxCursor(s), Active: a.ctxFlags(s)&flagActive != 0}
		switch ls.lanes[s].status {
		case laneRunning:
			l.Status = Running
		case laneSucceeded:
			l.Status = Success
		default:
			l.Status = Failure
		}
		dst = append(dst, l)
		if l.Status == Running {
			dst = a.appendLanes(dst, s)
		}
	}
	return dst
}

// Lane is the slot of the lane being run (whose rule's action, condition
// or scorer is being called), or -1 outside lanes. A host that keeps state
// per lane (luabind: ctx.state) finds it by this.
func (a *Agent) Lane() int { return int(a.curCtx()) }

// LaneRuleValue is RuleValue of the lane in slot s: the host's value for
// that lane's current rule.
func (a *Agent) LaneRuleValue(s int) any {
	if int32(s) == a.curCtx() {
		return a.RuleValue()
	}
	if a.ext == nil || a.ext.lanes == nil || s < 0 || s >= len(a.ext.lanes.lanes) {
		return nil
	}
	return a.ext.lanes.lanes[s].ruleValue
}

// SetLaneRuleValue is SetRuleValue for the lane in slot s (a host
// restoring per-lane state after Restore).
func (a *Agent) SetLaneRuleValue(s int, v any) {
	if int32(s) == a.curCtx() {
		a.SetRuleValue(v)
		return
	}
	if a.ext == nil || a.ext.lanes == nil || s < 0 || s >= len(a.ext.lanes.lanes) {
		return
	}
	a.ext.lanes.lanes[s].ruleValue = v
}
