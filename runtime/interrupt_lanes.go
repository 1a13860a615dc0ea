package runtime

// The checks at the start of a step (interrupt.go) in a tree with
// parallels: the walk goes on from the path to a parallel whose lanes run
// into each running lane's path (runChecks walks every tree that way; a
// tree without parallels has one path, from the root to the cursor).

// rootRunsLanes reports whether the cursor, the root, is a parallel whose
// lanes run: the checks walk them although the cursor is the root.
func (a *Agent) rootRunsLanes() bool { return a.bound.lanes != nil && a.lanesRun() }

// lanePath fills the Env's scratch with the path the checks walk: the
// rules from the top of the context being run down to its cursor (from
// the root for the agent's own context, from the lane's child for a
// lane).
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
