package runtime

import (
	"fmt"

	"github.com/btrun/btrun/runtime/savecodec"
)

// Saving and restoring lanes (format version 3). A snapshot whose cursor is
// a parallel with running lanes (Snapshot.Running) holds those lanes in
// document order, each with the lanes of its own cursor when that is such
// a parallel too, as a tree. Lanes are matched to the children of their
// parallel by the child's label and index, like other per-rule state, so
// that a save survives a tree edited around them.

// LaneSnapshot is a saved lane of an active parallel.
type LaneSnapshot struct {
	Child  string // label of the lane's child (its first rule)
	Index  int32  // the child's index in the tree
	Status Status // Running, or Success or Failure for a lane that is done
	// The context of a running lane: the full id of its cursor, its flags,
	// the built-in rule word and a plugin's state bytes of its current rule.
	Cursor    string
	FirstRun  bool
	Running   bool // its cursor's action last returned running, or it is a parallel whose lanes run
	Active    bool
	RuleWord  uint64
	RuleBytes []byte
	Lanes     []LaneSnapshot // the lanes of its cursor, a parallel whose lanes run

	cursorAt int32 // a carry's (carry.go): the cursor's index in the tree it was saved from
}

// maxLaneNesting bounds how deep saved lanes nest, so that no input makes
// the decoder recurse without end. Trees nest rules no deeper.
const maxLaneNesting = maxDepth

// snapshotLanes saves the lanes of parallel p (whose lanes run). A running
// lane's cursor needs an id, as the agent's cursor does, but for a carry.
func (a *Agent) snapshotLanes(p int32, carry bool) ([]LaneSnapshot, error) {
	b := a.bound
	rules := b.Tree.Rules
	f := &b.feats[p]
	ls := a.ext.lanes
	out := make([]LaneSnapshot, len(f.kids))
	for k, child := range f.kids {
		l := &ls.lanes[f.laneBase+int32(k)]
		o := &out[k]
		o.Child, o.Index = rules[child].Label, child
		switch l.status {
		case laneSucceeded:
			o.Status = Success
			continue
		case laneFailed:
			o.Status = Failure
			continue
		}
		o.Status = Running
		r := &rules[l.cursor]
		if r.ID == "" && !carry {
			return nil, a.noIDError(r)
		}
		o.Cursor, o.cursorAt = r.ID, l.cursor
		o.FirstRun, o.Running, o.Active = l.flags&flagFirstRun != 0, l.flags&flagActionRunning != 0, l.flags&flagActive != 0
		o.RuleWord = l.ruleWord
		if len(l.ruleBytes) > 0 {
			o.RuleBytes = append([]byte(nil), l.ruleBytes...)
		}
		if o.Running && r.Kind == KindParallel {
			var err error
			if o.Lanes, err = a.snapshotLanes(l.cursor, carry); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// noIDError is the save error of a cursor without an id.
func (a *Agent) noIDError(r *Rule) error {
	return &Error{Pos: r.Pos, Agent: a.id, Label: r.Label, Err: ErrUnknownID,
		Msg: "cannot save: the current rule has no id; add an id to it (the root, every rule that can return running, and every jump target need ids to be saved)"}
}

// lanePaths appends, for each running lane below parallel p, the lane's
// cursor, whether it is active, and where its path ends (the parallel):
// what snapshotFeatures walks for the orders of active choices.
func (a *Agent) lanePaths(dst []lanePath, p int32) []lanePath {
	f := &a.bound.feats[p]
	ls := a.ext.lanes
	for k := range f.kids {
		l := &ls.lanes[f.laneBase+int32(k)]
		if l.status != laneRunning {
			continue
		}
		dst = append(dst, lanePath{cursor: l.cursor, active: l.flags&flagActive != 0, stop: p})
		if l.flags&flagActionRunning != 0 && a.bound.rules[l.cursor].kind == KindParallel {
			dst = a.lanePaths(dst, l.cursor)
		}
	}
	return dst
}

// lanePath is the active path of one context: from its cursor (when
// active) or the cursor's parent up to, not including, stop.
type lanePath struct {
	cursor int32
	active bool
	stop   int32
}

// plannedLane is a lane a restore puts back.
type plannedLane struct {
	slot int32
	ctx  laneCtx
}

// planLanes maps the saved lanes of parallel p onto its children. In the
// tree they were saved from, every lane must fit (else the data is
// corrupt); in an edited tree a saved lane whose child is gone is dropped
// and a new child's lane starts at it, with warnings; a running lane's
// cursor id must still resolve, inside that lane.
func (p *RestorePlan) planLanes(s *Snapshot, par int32, saved []LaneSnapshot, depth int) error {
	a := p.a
	b := a.bound
	t := b.Tree
	same := s.Fingerprint == t.Fingerprint
	bad := func(format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		if same {
			return &Error{Agent: a.id, Err: ErrCorrupt, Msg: msg}
		}
		p.warn("%s; dropped", msg)
		return nil
	}
	if depth > maxLaneNesting {
		return &Error{Agent: a.id, Err: ErrCorrupt, Msg: "lanes nest too deep"}
	}
	f := &b.feats[par]
	plabel := t.Rules[par].Label
	byPos := make([]*LaneSnapshot, len(f.kids))
	for i := range saved {
		l := &saved[i]
		r, ok := s.ruleIn(b, l.Child, l.Index)
		if !ok || b.rules[r].parent != par {
			if err := bad("lane %s of parallel %s has no child of that parallel to go to", l.Child, plabel); err != nil {
				return err
			}
			continue
		}
		if byPos[b.feats[r].pos] != nil {
			return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("lane %s of parallel %s is saved twice", l.Child, plabel)}
		}
		byPos[b.feats[r].pos] = l
	}
	for k, child := range f.kids {
		slot := f.laneBase + int32(k)
		l := byPos[k]
		if l == nil {
			if same {
				return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("parallel %s runs lanes, and the lane of its child %s is not saved", plabel, t.Rules[child].Label)}
			}
			p.warn("parallel %s has a new child %s; its lane starts at it", plabel, t.Rules[child].Label)
			p.lanes = append(p.lanes, plannedLane{slot: slot, ctx: laneCtx{cursor: child, flags: flagFirstRun, status: laneRunning}})
			continue
		}
		pl := plannedLane{slot: slot, ctx: laneCtx{cursor: child, flags: flagFirstRun}}
		switch l.Status {
		case Success:
			pl.ctx.status = laneSucceeded
		case Failure:
			pl.ctx.status = laneFailed
		case Running:
			pl.ctx.status = laneRunning
			cur, ok := s.laneCursorIn(t, l)
			switch {
			case !ok:
				return &Error{Agent: a.id, Err: ErrUnknownID,
					Msg: fmt.Sprintf("cannot restore: the saved cursor %q of a lane of parallel %s is not an id of tree %s", l.Cursor, plabel, t.File)}
			case !b.within(cur, child):
				return &Error{Agent: a.id, Err: ErrUnknownID,
					Msg: fmt.Sprintf("cannot restore: the saved cursor %q of a lane of parallel %s is not inside that lane's child %s any more", l.Cursor, plabel, t.Rules[child].Label)}
			}
			if b.feats[cur].lane != slot {
				return p.inLaneError(l.Cursor, cur)
			}
			kind := t.Rules[cur].Kind
			if l.Running && kind != KindAction && kind != KindParallel {
				return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("the saved cursor %q of a lane is marked running but is neither an action nor a parallel", l.Cursor)}
			}
			if l.Running && kind == KindParallel && !l.Active {
				return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("the saved cursor %q of a lane runs lanes but is not active", l.Cursor)}
			}
			if len(l.Lanes) > 0 && !(kind == KindParallel && l.Running) {
				return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("the saved lanes of %q do not belong to a parallel whose lanes run", l.Cursor)}
			}
			pl.ctx.cursor, pl.ctx.ruleWord = cur, l.RuleWord
			pl.ctx.flags = 0
			if l.FirstRun {
				pl.ctx.flags |= flagFirstRun
			}
			if l.Running {
				pl.ctx.flags |= flagActionRunning
			}
			if l.Active {
				pl.ctx.flags |= flagActive
			}
			if len(l.RuleBytes) > 0 {
				pl.ctx.ruleBytes = l.RuleBytes
			}
			p.paths = append(p.paths, lanePath{cursor: cur, active: l.Active, stop: par})
			if kind == KindParallel && l.Running {
				p.lanes = append(p.lanes, pl)
				if err := p.planLanes(s, cur, l.Lanes, depth+1); err != nil {
					return err
				}
				continue
			}
		default:
			return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("bad status %d of lane %s", l.Status, l.Child)}
		}
		p.lanes = append(p.lanes, pl)
	}
	return nil
}

// inLaneError refuses a saved cursor inside a lane of a parallel that the
// save does not hold running lanes for (a tree edited since the save put
// the rule into a parallel, or the data is damaged): nothing could run
// that parallel's other lanes.
func (p *RestorePlan) inLaneError(id string, r int32) error {
	b := p.a.bound
	par := b.lanes.slots[b.feats[r].lane].par
	return &Error{Agent: p.a.id, Err: ErrUnknownID,
		Msg: fmt.Sprintf("cannot restore: the saved cursor %q is inside a lane of parallel %s, whose lanes the save does not hold", id, b.Tree.Rules[par].Label)}
}

// applyLanes puts the planned lanes back: the agent's lanes were cancelled
// already (Apply), so every other lane is idle.
func (p *RestorePlan) applyLanes() {
	a := p.a
	if a.bound.lanes == nil || (len(p.lanes) == 0 && (a.ext == nil || a.ext.lanes == nil)) {
		return
	}
	ls := a.laneState()
	for i := range ls.lanes {
		ls.lanes[i].status = laneIdle
	}
	for i := range ls.runs {
		ls.runs[i] = idleRun
	}
	for _, pl := range p.lanes {
		l := &ls.lanes[pl.slot]
		buf := l.ruleBytes[:0]
		*l = pl.ctx
		l.ruleBytes = append(buf, pl.ctx.ruleBytes...)
		run := &ls.runs[a.bound.lanes.slots[pl.slot].parIx]
		run.live = true
		run.n[l.status]++
	}
}

// Encode/decode of saved lanes.

func encodeLanes(e *savecodec.Encoder, lanes []LaneSnapshot) {
	e.Uvarint(uint64(len(lanes)))
	for i := range lanes {
		l := &lanes[i]
		e.String(l.Child)
		e.Uvarint(uint64(l.Index))
		e.Byte(byte(l.Status))
		if l.Status != Running {
			continue
		}
		e.String(l.Cursor)
		var flags byte
		if l.FirstRun {
			flags |= 1
		}
		if l.Running {
			flags |= 2
		}
		if l.Active {
			flags |= 4
		}
		e.Byte(flags)
		e.Uvarint(l.RuleWord)
		e.Blob(l.RuleBytes)
		encodeLanes(e, l.Lanes)
	}
}

func decodeLanes(d *savecodec.Decoder, depth int) []LaneSnapshot {
	n := d.Count(3)
	if n == 0 {
		return nil
	}
	if depth > maxLaneNesting {
		d.Fail("lanes nest more than %d deep", maxLaneNesting)
		return nil
	}
	out := make([]LaneSnapshot, 0, n)
	for range n {
		l := LaneSnapshot{Child: d.String(), Index: d.Index(), Status: Status(d.Byte())}
		if l.Status == Running {
			l.Cursor = d.String()
			flags := d.Byte()
			if flags > 7 {
				d.Fail("bad lane flags %d", flags)
			}
			l.FirstRun, l.Running, l.Active = flags&1 != 0, flags&2 != 0, flags&4 != 0
			l.RuleWord = d.Uvarint()
			l.RuleBytes = d.Blob()
			l.Lanes = decodeLanes(d, depth+1)
		}
		if d.Err() != nil {
			return nil
		}
		out = append(out, l)
	}
	return out
}
