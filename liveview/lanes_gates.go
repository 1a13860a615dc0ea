package liveview

import (
	"math"

	"github.com/btrun/btrun/runtime"
)

// Parallel lanes and gates in the live view: what the debugger records of
// each parallel's lanes (so that a parallel that finished still shows how
// each lane ended, cancelled ones included, at the present step and at
// earlier ones), and the views of lanes, parallels and gates.

// laneResult is how a lane of a parallel stands or ended, recorded per
// lane child (a rule is the child of at most one parallel, so the child
// names the lane).
type laneResult uint8

const (
	laneNone      laneResult = iota // its parallel has not been entered
	laneRunning                     // running (shown as cancelled once its parallel is no longer active)
	laneSucceeded                   // done with success
	laneFailed                      // done with failure
)

// noteLanes records what the step did to the agent's lanes: a parallel
// entered starts all its lanes; a lane child that finished ends its lane;
// the lanes of the parallels still active are then as the runtime says.
// A lane still marked running whose parallel is no longer active was
// cancelled (its parallel finished, or was left).
func (d *Debugger) noteLanes(r *agentRec, runs []runtime.RuleRun) {
	rules := r.a.Tree().Tree.Rules
	for k, run := range runs {
		rule := &rules[run.Rule]
		switch {
		case rule.Kind == runtime.KindParallel && run.Arrived() && k+1 < len(runs) && rules[runs[k+1].Rule].Parent == run.Rule:
			// Its lanes start: the run that entered it is followed by its
			// first lane's.
			for c := rule.FirstChild; c >= 0; c = rules[c].Next {
				r.lanes[c] = laneRunning
			}
		case rule.Parent >= 0 && rules[rule.Parent].Kind == runtime.KindParallel:
			switch run.Status {
			case runtime.Success:
				r.lanes[run.Rule] = laneSucceeded
			case runtime.Failure:
				r.lanes[run.Rule] = laneFailed
			}
		}
	}
	d.laneBuf = r.a.Lanes(d.laneBuf[:0])
	for _, l := range d.laneBuf {
		r.lanes[l.Child] = laneOf(l.Status)
	}
}

func laneOf(st runtime.Status) laneResult {
	switch st {
	case runtime.Success:
		return laneSucceeded
	case runtime.Failure:
		return laneFailed
	}
	return laneRunning
}

// laneRef says which lane a cursor is the cursor of.
type laneRef struct {
	Slot     int   `json:"slot"`     // the lane's slot among the agent's lanes
	Parent   int   `json:"parent"`   // the slot of the lane whose cursor is this lane's parallel; -1: the agent's own cursor is
	Parallel int32 `json:"parallel"` // the parallel (a rule index)
	Child    int32 `json:"child"`    // the lane's first rule
}

// laneCursors are the cursors of the agent's running lanes, each with its
// active path from the root, in document order (depth first). A lane whose
// cursor is a nested parallel with running lanes is shown by those lanes'
// cursors, whose paths go through it.
func laneCursors(a *runtime.Agent, lanes []runtime.Lane) []cursorView {
	t := a.Tree().Tree
	var out []cursorView
	for k, l := range lanes {
		if l.Status != runtime.Running || k+1 < len(lanes) && lanes[k+1].Parent == l.Slot {
			continue
		}
		out = append(out, cursorView{Rule: l.Cursor, Label: t.Rules[l.Cursor].Label, Path: pathTo(t, l.Cursor), Active: l.Active,
			Lane: &laneRef{Slot: l.Slot, Parent: l.Parent, Parallel: l.Parallel, Child: l.Child}})
	}
	return out
}

// pathTo is the path from the root to rule r, root first.
func pathTo(t *runtime.Tree, r int32) []int32 {
	n := 0
	for x := r; x >= 0; x = t.Rules[x].Parent {
		n++
	}
	path := make([]int32, n)
	for x := r; x >= 0; x = t.Rules[x].Parent {
		n--
		path[n] = x
	}
	return path
}

// parallelView is a parallel the agent has entered: whether it is active
// (its lanes run), its thresholds, its last result, and each lane.
type parallelView struct {
	Rule      int32       `json:"rule"`
	Label     string      `json:"label"`
	Active    bool        `json:"active"`
	SuccessAt string      `json:"successAt"` // as written: "all", "any" or a count
	FailureAt string      `json:"failureAt"`
	Success   int         `json:"success"` // lanes done with success that make it succeed
	Failure   int         `json:"failure"` // lanes done with failure that make it fail
	Succeeded int         `json:"succeeded"`
	Failed    int         `json:"failed"`
	Result    *resultView `json:"result"` // its last result; null when it has not finished a run yet
	Lanes     []laneView  `json:"lanes"`
}

// laneView is a lane of a parallel: running, success, failure, or
// cancelled (it was running when its parallel finished or was left).
type laneView struct {
	Child       int32  `json:"child"`
	Label       string `json:"label"`
	Status      string `json:"status"`
	Cursor      int32  `json:"cursor"` // its current rule while it runs, else its child
	CursorLabel string `json:"cursorLabel"`
}

// parallelViews lists, in document order, the parallels the agent has
// entered (since the run started, or the last reload).
func (d *Debugger) parallelViews(r *agentRec, lanes []runtime.Lane) []parallelView {
	out := []parallelView{}
	if r.lanes == nil {
		return out
	}
	t := r.a.Tree().Tree
	cursor := map[int32]runtime.Lane{}
	active := map[int32]bool{}
	for _, l := range lanes {
		cursor[l.Child] = l
		active[l.Parallel] = true
	}
	for p := range t.Rules {
		rule := &t.Rules[p]
		if rule.Kind != runtime.KindParallel || !active[int32(p)] && r.lanes[rule.FirstChild] == laneNone {
			continue // never entered
		}
		n := 0
		for c := rule.FirstChild; c >= 0; c = t.Rules[c].Next {
			n++
		}
		pv := parallelView{Rule: int32(p), Label: rule.Label, Active: active[int32(p)], SuccessAt: rule.SuccessAt.String(), FailureAt: rule.FailureAt.String(),
			Success: rule.SuccessAt.Count(n), Failure: rule.FailureAt.Count(n), Lanes: []laneView{}}
		if st, s, ok := r.lastResult(int32(p)); ok && (st == runtime.Success || st == runtime.Failure) {
			pv.Result = &resultView{Rule: int32(p), Result: resultName(st), Step: s, Time: roundTime(d.g.Time(s))}
		}
		for c := rule.FirstChild; c >= 0; c = t.Rules[c].Next {
			lv := laneView{Child: c, Label: t.Rules[c].Label, Cursor: c, CursorLabel: t.Rules[c].Label}
			res := r.lanes[c]
			l, live := cursor[c]
			if pv.Active && live { // the runtime's word (a jump between steps may have started or moved lanes)
				res = laneOf(l.Status)
			}
			switch res {
			case laneSucceeded:
				lv.Status = "success"
				pv.Succeeded++
			case laneFailed:
				lv.Status = "failure"
				pv.Failed++
			default:
				lv.Status = "cancelled"
				if pv.Active && live {
					lv.Status = "running"
					lv.Cursor, lv.CursorLabel = l.Cursor, t.Rules[l.Cursor].Label
				}
			}
			pv.Lanes = append(pv.Lanes, lv)
		}
		out = append(out, pv)
	}
	return out
}

// heldGateView is a gate the agent holds: its place among the holders and
// the active rules that hold it.
type heldGateView struct {
	Name  string   `json:"name"`
	Slot  int      `json:"slot"`
	Rules []string `json:"rules"` // labels, outermost first
}

func heldGates(a *runtime.Agent) []heldGateView {
	out := []heldGateView{}
	for _, h := range a.GateHolds() {
		k := len(out) - 1
		for ; k >= 0 && out[k].Name != h.Gate; k-- {
		}
		if k < 0 {
			slot, _ := a.GateSlot(h.Gate)
			out = append(out, heldGateView{Name: h.Gate, Slot: slot})
			k = len(out) - 1
		}
		out[k].Rules = append(out[k].Rules, h.Rule)
	}
	return out
}

// gateView is a gate of the game: its settings, holders, the agents
// waiting at a bt.gate.wait for it, and its counts.
type gateView struct {
	Name     string       `json:"name"`
	Users    int          `json:"users"`
	Cooldown float64      `json:"cooldown"`
	Holders  []holderView `json:"holders"`
	Waiters  []string     `json:"waiters"` // agents whose cursor (or a lane's) is a running bt.gate.wait on it, in config order
	Open     bool         `json:"open"`    // it could be taken now: not full, not cooling down
	// CoolingLeft is the seconds before its cooldown ends (0: not cooling).
	CoolingLeft    float64  `json:"coolingLeft"`
	LastRelease    *float64 `json:"lastRelease"` // the game time of its last release; null: never released
	Takes          uint64   `json:"takes"`
	Refusals       uint64   `json:"refusals"`
	LongestSteps   uint64   `json:"longestSteps"`
	LongestSeconds float64  `json:"longestSeconds"`
}

type holderView struct {
	Agent string `json:"agent"`
	Slot  int    `json:"slot"` // 1, 2, ...: the order in which the holders took it
}

// gateViews lists the game's gates, in the order the trees declare them.
func (d *Debugger) gateViews() []gateView {
	out := []gateView{}
	gates := d.g.Gates()
	if gates == nil {
		return out
	}
	now := d.g.Time(d.g.Step())
	waiting := d.gateWaiters()
	for _, gi := range gates.List() {
		v := gateView{Name: gi.Name, Users: gi.Users, Cooldown: gi.Cooldown, Holders: []holderView{}, Waiters: waiting[gi.Name],
			Takes: gi.Takes, Refusals: gi.Refusals, LongestSteps: gi.LongestSteps, LongestSeconds: roundTime(gi.LongestSeconds)}
		if v.Waiters == nil {
			v.Waiters = []string{}
		}
		for k, id := range gi.Holders {
			v.Holders = append(v.Holders, holderView{Agent: id, Slot: k + 1})
		}
		if !math.IsNaN(gi.CoolingSince) {
			if left := gi.Cooldown - (now - gi.CoolingSince); left > 0 {
				v.CoolingLeft = roundTime(left)
			}
			t := roundTime(gi.CoolingSince)
			v.LastRelease = &t
		}
		v.Open = len(gi.Holders) < gi.Users && v.CoolingLeft == 0
		out = append(out, v)
	}
	return out
}

// gateWaiters finds, by gate name, the agents whose cursor or a running
// lane's is a bt.gate.wait that has run (it waits for the gate's holders).
func (d *Debugger) gateWaiters() map[string][]string {
	out := map[string][]string{}
	for _, r := range d.agents {
		waits := d.waitRules(r.a.Tree())
		if waits == nil {
			continue
		}
		a := r.a
		if g := waits[a.Cursor()]; g != "" && a.CursorActive() {
			out[g] = append(out[g], a.ID())
			continue
		}
		if r.lanes == nil {
			continue
		}
		d.laneBuf = a.Lanes(d.laneBuf[:0])
		for _, l := range d.laneBuf {
			if g := waits[l.Cursor]; g != "" && l.Status == runtime.Running && l.Active {
				out[g] = append(out[g], a.ID())
				break
			}
		}
	}
	return out
}

// waitRules maps the rules of b that are bt.gate.wait actions to the
// gate they wait for ("" for other rules); nil when b has none. Cached per
// tree (a reload starts afresh).
func (d *Debugger) waitRules(b *runtime.BoundTree) []string {
	if w, ok := d.waits[b]; ok {
		return w
	}
	var w []string
	t := b.Tree
	for i := range t.Rules {
		r := &t.Rules[i]
		if r.Kind != runtime.KindAction || r.Action != "bt.gate.wait" {
			continue
		}
		for _, p := range r.Params {
			if p.Name == "gate.name" {
				if w == nil {
					w = make([]string, len(t.Rules))
				}
				w[i] = p.Value
			}
		}
	}
	if d.waits == nil {
		d.waits = map[*runtime.BoundTree][]string{}
	}
	d.waits[b] = w
	return w
}

// gateDecl is a gate a tree declares.
type gateDecl struct {
	Name     string  `json:"name"`
	Users    int     `json:"users"`
	Cooldown float64 `json:"cooldown"`
}

func (d *Debugger) cmdGates(*request) (any, error) {
	s := d.g.Step()
	return map[string]any{"step": s, "time": roundTime(d.g.Time(s)), "gates": d.gateViews()}, nil
}

// noteGates records the takes and releases of a live step as events.
func noteGates(r *agentRec, step uint64, eventCap eventLimits) {
	evs := r.a.GateEvents()
	if len(evs) == 0 {
		return
	}
	gates := r.a.Tree().Tree.Gates
	for _, e := range evs {
		text := "released " + gates[e.Gate].Name
		if e.Take {
			text = "took " + gates[e.Gate].Name
		}
		r.events.add(eventCap, event{step: step, kind: evGate, label: gates[e.Gate].Name, text: text})
	}
}
