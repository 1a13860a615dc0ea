package runtime

import "errors"

// Jumps across lanes. A jump is asked from a context (the source: the
// context being run when a call asks for it, the agent's own one between
// steps) and moves the cursor of the context that target belongs to:
//
//   - the target's context is the innermost context whose part of the tree
//     holds target (the lane of an active parallel that target is in, or
//     the agent's own context) (liveCtxOf);
//   - target in the source's own part of the tree: the source's cursor
//     moves (a jump inside a lane moves that lane's cursor);
//   - target in a context around the source (out of a lane): the lanes in
//     between are cancelled, every running lane of every parallel that
//     target is not in, in document order, and that context's cursor moves;
//   - target in a lane below the source (from outside, as a jump from Go
//     between steps): that lane's cursor moves, and a lane that was done
//     runs again; its parallel's other lanes go on;
//   - target in another lane of a parallel whose lane holds the source: the
//     parallel starts again: its running lanes are cancelled and it runs
//     again with all its lanes, target's lane heading for target. (A jump
//     to the parallel itself is entered again, as any active list rule.)
//
// A parallel on the way to target that was not active starts with all its
// lanes, the target's lane at the target and the others at their child;
// its own conditions, cooldown and gate are not checked (a jump is the
// designer's override) (moveTo).

// jumpNow applies a jump asked during a run of the context being run:
// the running action is cancelled and the cursor moves. With lanes the
// move may take place in another context, which is then the one being
// run: it carries on with target (or with the parallel that a jump into
// its lanes started).
func (a *Agent) jumpNow(from int32, fromActive bool, target int32) error {
	if a.bound.lanes != nil {
		return a.jumpAcross(from, fromActive, target)
	}
	err := a.cancelRunning()
	return errors.Join(err, a.moveTo(from, fromActive, target, leftJump))
}

// jumpAcross is jumpNow for a tree with parallels (see the top of this
// file). from and fromActive describe the source's path before the call
// that asked for the jump.
func (a *Agent) jumpAcross(from int32, fromActive bool, target int32) error {
	L := a.bound.lanes
	src := a.curCtx()
	dst := a.liveCtxOf(target)
	switch c := L.common(src, dst); {
	case dst == src:
		err := a.cancelRunning()
		return errors.Join(err, a.moveTo(from, fromActive, target, leftJump))
	case c == dst || c == src:
		// Out of the source's lanes into a context around it, or from
		// outside into a lane below the source.
		a.switchTo(dst)
		err := errors.Join(a.cancelRunning(), a.moveTo(a.cursor, a.flags&flagActive != 0, target, leftJump))
		if dst >= 0 {
			a.setLaneStatus(dst, laneRunning) // a lane that was done runs again
		}
		return err
	default:
		// The source and target are in two lanes of the parallel that is
		// c's cursor: it starts again.
		a.switchTo(c)
		return errors.Join(a.cancelRunning(), a.moveTo(a.cursor, true, target, leftJump))
	}
}

// liveCtxOf is the innermost context whose part of the tree holds rule r:
// the innermost lane of an active parallel that r is in, or -1, the agent's
// own context. (A parallel is in its owner's part, not its lanes'.)
func (a *Agent) liveCtxOf(r int32) int32 {
	if a.ext == nil || a.ext.lanes == nil {
		return -1
	}
	L, runs := a.bound.lanes, a.ext.lanes.runs
	for s := a.bound.feats[r].lane; s >= 0; s = L.slots[s].owner {
		if runs[L.slots[s].parIx].live {
			return s
		}
	}
	return -1
}

// startLanesToward starts the lanes of parallel p, the cursor of the
// context being run, and switches to the lane that holds target, whose
// cursor moveTo then takes on toward target.
func (a *Agent) startLanesToward(p, target int32) {
	f := &a.bound.feats[p]
	a.startLanes(f)
	a.switchTo(f.laneBase + a.bound.feats[a.bound.childToward(p, target)].pos)
}
