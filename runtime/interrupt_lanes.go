package runtime

import "math"

// The checks at the start of a step (interrupt.go) in a tree with
// parallels: the walk goes on from the path to a parallel whose lanes run
// into each running lane's path.

// runLaneChecks is runChecks for trees with parallels: after the path from
// the root to a parallel whose lanes run (which is not the cursor there:
// its abort="self" is watched), the walk goes on with each running lane's
// path below it, depth first, in document order. It switches to each lane
// in turn, so a watched condition sees that lane's rule and state, and a
// step that pauses at one resumes in that lane (CompleteCondition comes
// back here). It stops at the first interrupt; an interrupted lane goes on
// from the interrupt when its turn comes. The loop then starts from the
// agent's own context (interruptAbort, interruptPreempt and checkJump
// switch back to it).
//
// It walks each path as runChecks walks the one path of a tree without
// parallels, which keeps that walk free of what lanes need;
// TestLanes_codeStepsPlainTreesAsBefore holds the two to the same steps.
func (a *Agent) runLaneChecks() (st Status, err error, done bool) {
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
		if !a.nextCheckedLane() {
			break
		}
	}
	a.toMain()
	a.phase = phaseStep
	return 0, nil, false
}

// rootRunsLanes reports whether the cursor, the root, is a parallel whose
// lanes run: the checks walk them although the cursor is the root.
func (a *Agent) rootRunsLanes() bool { return a.bound.lanes != nil && a.lanesRun() }

// lanePath is activePath for trees with parallels: the rules from the top
// of the context being run down to its cursor (from the root for the
// agent's own context, from the lane's child for a lane).
func (a *Agent) lanePath() []int32 {
	rules := a.bound.rules
	depths := a.bound.Tree.Rules
	top := Root
	if c := a.curCtx(); c >= 0 {
		top = a.bound.lanes.slots[c].child
	}
	n := int(depths[a.cursor].Depth-depths[top].Depth) + 1
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

// nextCheckedLane switches to the next context whose path the checks walk,
// depth first in document order: the first running lane of the parallel
// at the cursor of the context just walked, else the next running lane
// after it, else after the lane around it, and so on. It reports false
// when there is none.
func (a *Agent) nextCheckedLane() bool {
	c := a.curCtx()
	next := int32(-1)
	if a.lanesRun() {
		next = a.runningLaneAfter(a.cursor, -1)
	}
	L := a.bound.lanes
	for next < 0 && c >= 0 {
		next = a.runningLaneAfter(L.slots[c].par, c)
		c = L.owner(c)
	}
	if next < 0 {
		return false
	}
	a.switchTo(next)
	a.ext.check = checkState{}
	return true
}

// runningLaneAfter is the first running lane of parallel p after slot
// after (-1: from its first lane), or -1.
func (a *Agent) runningLaneAfter(p, after int32) int32 {
	f := &a.bound.feats[p]
	s := f.laneBase
	if after >= 0 {
		s = after + 1
	}
	lanes := a.ext.lanes.lanes
	for end := f.laneBase + int32(len(f.kids)); s < end; s++ {
		if lanes[s].status == laneRunning {
			return s
		}
	}
	return -1
}
