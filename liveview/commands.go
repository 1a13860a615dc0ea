package liveview

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"unicode"

	"github.com/btrun/btrun/runtime"
)

// The API's requests, run on the game's goroutine between steps (queue.go).
// Each checks everything before it changes anything: a bad request leaves
// the game as it was (and discards no steps).

func (d *Debugger) cmdAgents(*request) (any, error) {
	s := d.g.Step()
	return map[string]any{"step": s, "time": roundTime(d.g.Time(s)), "agents": d.agentSummaries(d.g.AgentInfos())}, nil
}

func (d *Debugger) agentIndex(id string) (int, error) {
	i, ok := d.byID[id]
	if !ok {
		return 0, &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("no agent %q", id), extra: map[string]any{"agents": d.agentIDs()}}
	}
	return i, nil
}

func (d *Debugger) agentIDs() []string {
	out := make([]string, len(d.agents))
	for i, r := range d.agents {
		out[i] = r.a.ID()
	}
	return out
}

func (d *Debugger) cmdAgent(id string) (any, error) {
	i, err := d.agentIndex(id)
	if err != nil {
		return nil, err
	}
	return d.agentView(i, d.g.AgentInfos()[i]), nil
}

func (d *Debugger) cmdTrees(*request) (any, error) {
	type tree struct {
		Name   string   `json:"name"`
		File   string   `json:"file"`
		Files  []string `json:"files"` // the main file, then its subtree files: the page's project list
		Rules  int      `json:"rules"`
		Agents int      `json:"agents"`
	}
	out := []tree{}
	for _, name := range d.g.TreeNames() {
		b := d.g.Trees()[name]
		n := 0
		for _, r := range d.agents {
			if r.a.Template() == b {
				n++
			}
		}
		files := []string{b.Tree.File}
		if d.host != nil {
			if f, err := d.host.TreeFiles(name); err == nil && len(f) > 0 {
				files = f
			}
		}
		out = append(out, tree{Name: name, File: b.Tree.File, Files: files, Rules: len(b.Tree.Rules), Agents: n})
	}
	return out, nil
}

// cmdTree answers a tree by its name, or a composite by its key (an
// agent's treeKey).
func (d *Debugger) cmdTree(name string) (any, error) {
	if b := d.g.Trees()[name]; b != nil {
		return d.treeView(name, b), nil
	}
	if b, tree, ok := d.trees.find(name); ok {
		v := d.treeView(name, b)
		v.Tree = tree
		return v, nil
	}
	return nil, &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("no tree %q", name), extra: map[string]any{"trees": d.g.TreeNames()}}
}

// withDiscarded is a control command's answer: the status, and the steps
// the command discarded when it changed the game at an earlier step.
type withDiscarded struct {
	statusView
	Discarded []uint64 `json:"discarded,omitempty"` // [first, last]
	Warning   string   `json:"warning,omitempty"`   // the command was applied, with this problem
}

func (d *Debugger) answer(discarded [2]uint64) withDiscarded {
	v := withDiscarded{statusView: d.statusView()}
	if discarded[0] != 0 {
		v.Discarded = discarded[:]
	}
	return v
}

// cmdPause pauses a running game, and stops the steps a step request is
// running (that request is answered now, with the step reached).
func (d *Debugger) cmdPause(*request) (any, error) {
	if !d.paused || d.stepsLeft > 0 {
		d.pauseFor(reason{kind: "pause"})
	}
	return d.answer([2]uint64{}), nil
}

func (d *Debugger) atEndError() error {
	return &apiError{code: http.StatusConflict, msg: fmt.Sprintf("the run has reached its last step (%d); go back in time to run steps again, or start btrun with more -steps", d.end)}
}

func (d *Debugger) cmdResume(*request) (any, error) {
	if d.g.Step() >= d.end {
		return nil, d.atEndError()
	}
	discarded, err := d.tl.branch(d)
	if err != nil {
		return nil, err
	}
	d.paused, d.reason = false, reason{}
	d.pace.reset(d.g.Step())
	return d.answer(discarded), nil
}

// cmdStep runs n steps (at most to the run's end) and pauses; it is
// answered when they are done, or when a breakpoint stops them.
func (d *Debugger) cmdStep(req *request, n int) (any, error) {
	s := d.g.Step()
	if s >= d.end {
		return nil, d.atEndError()
	}
	if _, err := d.tl.branch(d); err != nil {
		return nil, err
	}
	d.paused, d.reason = true, reason{kind: "step"}
	d.stepsLeft = int(min(uint64(n), d.end-s))
	d.steppers = append(d.steppers, req)
	return nil, errDeferred
}

// parseSpeed reads "fast", "real" or a number from minSpeed to maxSpeed.
func parseSpeed(raw json.RawMessage) (float64, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "fast":
			return 0, nil
		case "real", "realtime":
			return 1, nil
		}
		return 0, errorf(http.StatusUnprocessableEntity, `"speed" %q: expected "fast", "real" or a number (1 is real time)`, s)
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, errorf(http.StatusBadRequest, `"speed" must be a number or "fast", not %s`, raw)
	}
	if !(f >= minSpeed && f <= maxSpeed) {
		return 0, errorf(http.StatusUnprocessableEntity, `"speed" must be from %v to %v (1 is real time), or "fast", not %v`, minSpeed, maxSpeed, f)
	}
	return f, nil
}

func (d *Debugger) cmdSpeed(speed float64) (any, error) {
	d.speed = speed
	d.pace.reset(d.g.Step())
	return d.answer([2]uint64{}), nil
}

// bpRequest is POST /api/breakpoints' body.
type bpRequest struct {
	Tree  string          `json:"tree"`
	Rule  json.RawMessage `json:"rule"`
	Agent string          `json:"agent"`
}

func (d *Debugger) cmdAddBreakpoint(req bpRequest) (any, error) {
	agent := -1
	tree := req.Tree
	if req.Agent != "" {
		i, err := d.agentIndex(req.Agent)
		if err != nil {
			return nil, err
		}
		agent = i
		name := d.agents[i].tree
		if tree != "" && tree != name {
			return nil, errorf(http.StatusUnprocessableEntity, "agent %s runs tree %q, not %q", req.Agent, name, tree)
		}
		tree = name
	}
	b := d.g.Trees()[tree]
	if b == nil {
		return nil, &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("no tree %q", tree), extra: map[string]any{"trees": d.g.TreeNames()}}
	}
	bp := breakpoint{tree: tree, agent: agent}
	var err error
	if bp.rule, err = findRule(b.Tree, req.Rule); err != nil {
		if bp.slot, bp.label = d.graftedRule(b, agent, req.Rule); bp.label == "" {
			return nil, err
		}
		bp.rule = -1
	}
	for _, o := range d.bps {
		if o.tree == tree && o.rule == bp.rule && o.agent == agent && o.slot == bp.slot && o.label == bp.label {
			return d.breakpointView(o), nil
		}
	}
	if len(d.bps) >= maxBreakpoints {
		return nil, errorf(http.StatusUnprocessableEntity, "there are %d breakpoints already, the most the live view keeps", maxBreakpoints)
	}
	bp.id = d.nextBP
	d.nextBP++
	d.bps = append(d.bps, bp)
	return d.breakpointView(bp), nil
}

// findRule resolves a rule given as its index, its id or its label.
func findRule(t *runtime.Tree, raw json.RawMessage) (int32, error) {
	if isNull(raw) { // json.Unmarshal takes null as "leave it as it is": index 0
		return 0, errorf(http.StatusBadRequest, `"rule" must be a rule's id or label (a string) or its index (a number), not null`)
	}
	var idx float64
	if json.Unmarshal(raw, &idx) == nil {
		if idx != math.Trunc(idx) || idx < 0 || idx >= float64(len(t.Rules)) {
			return 0, errorf(http.StatusUnprocessableEntity, "rule index %v is out of range: the tree %s has rules 0 to %d", idx, t.File, len(t.Rules)-1)
		}
		return int32(idx), nil
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return 0, errorf(http.StatusBadRequest, `"rule" must be a rule's id or label (a string) or its index (a number), not %s`, raw)
	}
	if i, ok := t.RuleIndex(name); ok {
		return i, nil
	}
	for i := range t.Rules {
		if t.Rules[i].Label == name {
			return int32(i), nil
		}
	}
	return 0, &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("the tree %s has no rule with id or label %q", t.File, name)}
}

func (d *Debugger) cmdDeleteBreakpoint(id string) (any, error) {
	n, err := strconv.Atoi(id)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "breakpoint %q: a breakpoint is named by its number", id)
	}
	for i, bp := range d.bps {
		if bp.id == n {
			d.bps = append(d.bps[:i], d.bps[i+1:]...)
			return map[string]any{"deleted": n}, nil
		}
	}
	return nil, errorf(http.StatusNotFound, "no breakpoint %d", n)
}

func (d *Debugger) cmdSignal(agent, signal string, data runtime.Value) (any, error) {
	i, err := d.agentIndex(agent)
	if err != nil {
		return nil, err
	}
	if err := checkSignalName(signal); err != nil {
		return nil, err
	}
	if d.g.AgentInfos()[i].Stopped {
		return nil, errorf(http.StatusConflict, "agent %s is stopped (on_failure = \"stop\"): it takes no more signals", agent)
	}
	discarded, err := d.tl.branch(d)
	if err != nil {
		return nil, err
	}
	c := command{pos: d.g.Step(), agent: d.agents[i].a.ID(), name: signal, data: data}
	if err := d.tl.room(d, c); err != nil {
		return nil, err
	}
	if err := d.host.SendSignal(agent, signal, data); err != nil {
		return nil, errorf(http.StatusConflict, "%v", err)
	}
	d.tl.record(c)
	return d.answer(discarded), nil
}

func (d *Debugger) cmdJump(agent, id string) (any, error) {
	i, err := d.agentIndex(agent)
	if err != nil {
		return nil, err
	}
	t := d.agents[i].a.Tree().Tree
	if _, ok := t.RuleIndex(id); !ok {
		ids := []string{}
		for _, r := range t.Rules {
			if r.ID != "" {
				ids = append(ids, r.ID)
			}
		}
		sort.Strings(ids)
		msg := fmt.Sprintf("agent %s: its tree has no rule with id %q", agent, id)
		for _, r := range t.Rules {
			if r.Label == id {
				msg = fmt.Sprintf("agent %s: rule %s has no id; only rules with an id can be jumped to", agent, id)
			}
		}
		return nil, &apiError{code: http.StatusNotFound, msg: msg, extra: map[string]any{"ids": ids}}
	}
	if d.g.AgentInfos()[i].Stopped {
		return nil, errorf(http.StatusConflict, "agent %s is stopped (on_failure = \"stop\"): it runs no more rules", agent)
	}
	discarded, err := d.tl.branch(d)
	if err != nil {
		return nil, err
	}
	c := command{pos: d.g.Step(), jump: true, agent: d.agents[i].a.ID(), name: id}
	if err := d.tl.room(d, c); err != nil {
		return nil, err
	}
	jerr := d.jumpAgent(agent, id)
	if refusedInReplay(jerr) { // nothing moved (cluster.go)
		return nil, errorf(http.StatusConflict, "%v", jerr)
	}
	d.tl.record(c)
	v := d.answer(discarded)
	if jerr != nil { // the cursor moved all the same
		v.Warning = jerr.Error()
	}
	return v, nil
}

// jumpAgent moves an agent's cursor (a command, or its replay).
func (d *Debugger) jumpAgent(agent, id string) error {
	err := d.host.JumpAgent(agent, id)
	if refusedInReplay(err) {
		return err
	}
	if i, ok := d.byID[agent]; ok && !d.replaying {
		d.agents[i].events.add(d.eventCap, event{step: d.g.Step(), kind: evJump, label: id, text: "jump -> " + id})
	}
	return err
}

func (d *Debugger) cmdTravel(step uint64) (any, error) {
	if d.g.Conducting() {
		return nil, errInCluster("time travel") // cluster.go
	}
	if !d.paused || d.stepsLeft > 0 {
		return nil, errorf(http.StatusConflict, "pause the game first: time travel shows earlier steps of a paused game")
	}
	if err := d.tl.travel(d, step); err != nil {
		return nil, err
	}
	return d.answer([2]uint64{}), nil
}

func (d *Debugger) cmdReload(*request) (any, error) {
	if d.opts.Reload == nil {
		return nil, errorf(http.StatusNotImplemented, "this run cannot reload its trees and scripts")
	}
	discarded, err := d.tl.branch(d)
	if err != nil {
		return nil, err
	}
	summary, err := d.opts.Reload() // the game calls Reloaded, which reindexes; a conductor's reloads the cluster (cluster.go)
	if err != nil {
		e := &apiError{code: http.StatusUnprocessableEntity, msg: err.Error()}
		if discarded[0] != 0 {
			e.extra = map[string]any{"discarded": discarded[:]}
		}
		return nil, e
	}
	return map[string]any{"summary": summary, "status": d.answer(discarded)}, nil
}

// Reloaded is the game.Debugger's: a reload applied, from the page or from
// -watch.
func (s *gameSide) Reloaded() {
	d := (*Debugger)(s)
	d.reloads++
	d.reindex()
}

// reindex follows a reload: agent records are rebuilt for the new trees,
// breakpoints follow their rules by label (those whose rule is gone are
// dropped), and time travel starts afresh.
func (d *Debugger) reindex() {
	type bpAt struct {
		bp    breakpoint
		label string
	}
	var keep []bpAt
	for _, bp := range d.bps {
		keep = append(keep, bpAt{bp, d.breakpointView(bp).Label})
	}
	d.index()
	d.bps = d.bps[:0]
	for _, k := range keep {
		b := d.g.Trees()[k.bp.tree]
		if b == nil {
			continue
		}
		if k.bp.rule < 0 { // a grafted tree's rule: kept while the tree has its slot
			if hasSlot(b, k.bp.slot) {
				d.bps = append(d.bps, k.bp)
			}
			continue
		}
		if r, err := findRule(b.Tree, json.RawMessage(strconv.Quote(k.label))); err == nil {
			k.bp.rule = r
			d.bps = append(d.bps, k.bp)
		}
	}
	switch {
	case d.travelReload: // time travel's own reload (timeline_edits.go): the timeline stays
	case d.pendingEdit != nil: // the editor's save: the history before it is kept
		d.tl.keepEdit(d, d.pendingEdit)
	default:
		d.tl.reset(d)
	}
}

func (d *Debugger) cmdQuit(*request) (any, error) {
	d.quit = true
	return map[string]any{"quitting": true}, nil
}

// maxSignalName bounds a signal's name sent from the API.
const maxSignalName = 200

// checkSignalName refuses names that the output for people could not show
// as they are: control characters (a carriage return, an escape sequence
// would reach the terminal) and names over maxSignalName bytes.
func checkSignalName(name string) error {
	for _, r := range name {
		if unicode.IsControl(r) {
			return errorf(http.StatusBadRequest, "a signal's name may not hold control characters (%q)", name)
		}
	}
	if len(name) > maxSignalName {
		return errorf(http.StatusUnprocessableEntity, "a signal's name is at most %d bytes", maxSignalName)
	}
	return nil
}

// isNull reports whether a JSON value is null: for the API, a field given
// as null is a field not given.
func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }
