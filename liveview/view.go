package liveview

import (
	"fmt"
	"math"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// The JSON the API answers with (docs/debug.md describes every field). The
// views are built on the game's goroutine, between steps.
//
// The tree and the agent views are kind-agnostic, so that rule kinds and
// per-agent state still to come (parallel lanes, gates) fit in: a tree is a
// list of rules with parent and children indices, each with a kind string
// and a map of its attributes; an agent has a list of cursors (one now;
// one per running lane with lanes) and an "extra" map of named values.

// roundTime rounds a game time to nanoseconds, as the trace does, so that
// step × dt shows as 12.3 and not 12.300000000000001.
func roundTime(t float64) float64 { return math.Round(t*1e9) / 1e9 }

type statusView struct {
	Step        uint64           `json:"step"`
	Time        float64          `json:"time"`
	Dt          float64          `json:"dt"`
	End         uint64           `json:"end"`
	First       uint64           `json:"first"` // where time travel's timeline starts (the run's start, or its last reload)
	Head        uint64           `json:"head"`
	Live        bool             `json:"live"`
	Paused      bool             `json:"paused"`
	AtEnd       bool             `json:"atEnd"`
	Reason      *reasonView      `json:"reason"`
	Speed       any              `json:"speed"`
	Breakpoints []breakpointView `json:"breakpoints"`
	TimeTravel  travelView       `json:"timeTravel"`
	Trace       string           `json:"trace"`
	Reload      bool             `json:"reload"`
	Reloads     int              `json:"reloads"` // reloads applied so far: trees (and tree keys) may have changed
	Agents      int              `json:"agents"`
	Trees       []string         `json:"trees"`
	World       []eventView      `json:"world"`
	Gates       []gateView       `json:"gates"` // the game's gates (lanes_gates.go)
	// Cluster: the game is a cluster's conductor (cluster.go).
	Cluster bool `json:"cluster,omitempty"`
}

type reasonView struct {
	Kind string    `json:"kind"`
	Hits []hitView `json:"hits,omitempty"`
}

type hitView struct {
	Breakpoint int    `json:"breakpoint"`
	Agent      string `json:"agent"`
	Rule       int32  `json:"rule"`
	Label      string `json:"label"`
	Step       uint64 `json:"step"`
}

type breakpointView struct {
	ID    int    `json:"id"`
	Tree  string `json:"tree"`
	Rule  int32  `json:"rule"` // -1: a rule of a tree grafted into slot, named by its label
	Label string `json:"label"`
	Slot  string `json:"slot,omitempty"`
	Agent string `json:"agent"` // "" any agent of the tree
}

type travelView struct {
	Oldest    *uint64 `json:"oldest"` // nil: nothing can be shown
	Snapshots int     `json:"snapshots"`
	Bytes     int64   `json:"bytes"`
	Budget    int64   `json:"budget"`
	Every     int     `json:"every"`
	Error     string  `json:"error,omitempty"`
	// BtrunOnly: the game is stepped by a program's loop (Embedded) that
	// gave no BeforeStep or AfterStep callback, so a replayed step runs
	// btrun's part only, not what the program does between steps.
	BtrunOnly bool `json:"btrunOnly"`
	// Edits are the steps the editor's saves came after: the steps before
	// each ran the trees as they were, and can be shown but not gone on from.
	Edits []uint64 `json:"edits"`
}

func (d *Debugger) statusView() statusView {
	g := d.g
	s := g.Step()
	v := statusView{Step: s, Time: roundTime(g.Time(s)), Dt: g.Dt(), End: d.end, First: d.tl.first, Head: d.tl.head,
		Live: s == d.tl.head, Paused: d.paused, AtEnd: s >= d.end, Trace: d.host.TraceKind(),
		Reload: d.opts.Reload != nil, Reloads: d.reloads, Agents: len(d.agents), Trees: g.TreeNames(),
		Breakpoints: []breakpointView{}, Cluster: g.Conducting()}
	if !d.started || d.opts.Embedded { // before the first step Run has not said where it ends; a program's loop has no end
		v.End = 0
	}
	if d.speed <= 0 {
		v.Speed = "fast"
	} else {
		v.Speed = d.speed
	}
	if d.paused {
		v.Reason = &reasonView{Kind: d.reason.kind}
		for _, h := range d.reason.hits {
			v.Reason.Hits = append(v.Reason.Hits, d.hitView(h))
		}
	}
	for _, bp := range d.bps {
		v.Breakpoints = append(v.Breakpoints, d.breakpointView(bp))
	}
	t := &d.tl
	v.TimeTravel = travelView{Snapshots: len(t.snaps), Bytes: t.bytes, Budget: t.budget, Every: t.every, Error: t.err,
		BtrunOnly: d.opts.Embedded && !d.host.StepHooks(), Edits: t.editSteps()}
	if o, ok := t.oldest(); ok {
		v.TimeTravel.Oldest = &o
	}
	ev, _ := d.world.upTo(s, d.eventCap.count)
	v.World = d.eventViews(ev)
	v.Gates = d.gateViews()
	return v
}

func (d *Debugger) hitView(h hit) hitView {
	r := d.agents[h.agent]
	v := hitView{Breakpoint: h.bp, Agent: r.a.ID(), Rule: h.rule, Step: h.step}
	if rules := r.bound.Tree.Rules; int(h.rule) < len(rules) {
		v.Label = rules[h.rule].Label
	}
	return v
}

func (d *Debugger) breakpointView(bp breakpoint) breakpointView {
	v := breakpointView{ID: bp.id, Tree: bp.tree, Rule: bp.rule, Label: bp.label, Slot: bp.slot}
	if b := d.g.Trees()[bp.tree]; b != nil && bp.rule >= 0 && int(bp.rule) < len(b.Tree.Rules) {
		v.Label = b.Tree.Rules[bp.rule].Label
	}
	if bp.agent >= 0 {
		v.Agent = d.agents[bp.agent].a.ID()
	}
	return v
}

// --- agents ---

type agentSummary struct {
	ID       string `json:"id"`
	Tree     string `json:"tree"`
	State    string `json:"state"`
	Rule     string `json:"rule"`
	Failures int    `json:"failures"`
	Errors   int    `json:"errors"`
	Shard    *int   `json:"shard,omitempty"` // in a cluster, the shard that steps it (cluster.go)
}

// stateName is an agent's state for people: what its last step did.
func stateName(info game.AgentInfo, r *agentRec) string {
	if info.Stopped {
		return "stopped"
	}
	switch r.status {
	case runtime.Running:
		return "running"
	case runtime.Success:
		return "succeeded"
	case runtime.Failure:
		return "failed"
	case runtime.Errored:
		return "errored"
	}
	return "new"
}

// agentSummaries summarizes every agent; infos are game.AgentInfos.
func (d *Debugger) agentSummaries(infos []game.AgentInfo) []agentSummary {
	out := make([]agentSummary, len(infos))
	for i, in := range infos {
		out[i] = d.agentSummary(i, in)
	}
	return out
}

// agentSummary summarizes agent i.
func (d *Debugger) agentSummary(i int, in game.AgentInfo) agentSummary {
	return agentSummary{ID: in.Agent.ID(), Tree: in.Tree, State: stateName(in, d.agents[i]), Rule: in.Agent.CursorLabel(),
		Failures: in.Failures, Errors: in.Errors, Shard: shardOf(in.Shard)}
}

type agentView struct {
	agentSummary
	// TreeKey names the tree the agent runs, for GET /api/trees/KEY: its
	// tree's name, or the key of the composite its slots' trees make.
	TreeKey   string         `json:"treeKey"`
	Slots     []slotView     `json:"slots"` // its tree's slots and what they hold (grafts.go)
	Step      uint64         `json:"step"`
	Time      float64        `json:"time"`
	Error     string         `json:"error,omitempty"`
	Cursor    int32          `json:"cursor"`
	Cursors   []cursorView   `json:"cursors"`
	FirstRun  bool           `json:"firstRun"`
	Interrupt *interruptView `json:"interrupt"`
	Results   []resultView   `json:"results"`
	Vars      []varView      `json:"vars"`
	Stamps    []stampView    `json:"stamps"`
	Stimuli   []stimulusView `json:"stimuli"` // the stimuli it holds (stimuli.go)
	Clocks    []clockView    `json:"clocks"`
	Cooldowns []coolView     `json:"cooldowns"`
	Orders    []orderView    `json:"orders"`
	Counts    []countView    `json:"counts"`    // active rules' passes (repeat), failures (attempts) and starts (hooks)
	Parallels []parallelView `json:"parallels"` // the parallels it entered, with their lanes (lanes_gates.go)
	Machines  []machineView  `json:"machines"`  // the state machines it is in, with their current states
	Gates     []heldGateView `json:"gates"`     // the gates it holds
	Why       []whyView      `json:"why"`       // why each rule last passed, failed or was refused (why.go)
	Ctx       ctxView        `json:"ctx"`
	Extra     map[string]any `json:"extra"`
	Events    []eventView    `json:"events"`
	EventsCut bool           `json:"eventsCut"`
}

// cursorView is one cursor and the active path down to it (root first).
// An agent has one now; with parallel lanes, one per running lane.
// ctxView are the agent's Lua tables (luabind.Inspect's shapes).
type ctxView struct {
	Agent  any `json:"agent"`
	Memory any `json:"memory"`
	State  any `json:"state"`
}

type cursorView struct {
	Rule   int32    `json:"rule"`
	Label  string   `json:"label"`
	Path   []int32  `json:"path"`
	Active bool     `json:"active"`         // the cursor rule itself is active (it ran since it was arrived at)
	Lane   *laneRef `json:"lane,omitempty"` // the lane whose cursor it is; absent for the agent's own
}

type interruptView struct {
	Rule  int32  `json:"rule"`
	Label string `json:"label"`
	Kind  string `json:"kind"`
	Step  uint64 `json:"step"`
}

type resultView struct {
	Rule   int32   `json:"rule"`
	Result string  `json:"result"`
	Step   uint64  `json:"step"`
	Time   float64 `json:"time"`
}

type varView struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value any    `json:"value"` // true or false, a number, a string, {"x","y","z"} (vars.go)
}

type stampView struct {
	Name  string   `json:"name"`
	Set   bool     `json:"set"`
	Time  *float64 `json:"time"`
	Since *float64 `json:"since"`
}

// countView is an active rule's counts: passes of repeat, failures of
// attempts (both 0 when the rule has neither), and whether it started (its
// enter hook ran: its exit hook, Exit when it has one, will run).
type countView struct {
	Rule     int32  `json:"rule"`
	Label    string `json:"label"`
	Passes   int32  `json:"passes"`
	Repeat   int32  `json:"repeat"`
	Failures int32  `json:"failures"`
	Attempts int32  `json:"attempts"`
	Started  bool   `json:"started"`
	Exit     string `json:"exit,omitempty"` // the rule's exit hook; none: nothing runs when it is left
}

type clockView struct {
	Rule    int32   `json:"rule"`
	Label   string  `json:"label"`
	Since   float64 `json:"since"`   // when it became active
	Timeout float64 `json:"timeout"` // its timeout
	Left    float64 `json:"left"`    // seconds before it times out
}

type coolView struct {
	Rule      int32   `json:"rule"`
	Label     string  `json:"label"`
	LeftAt    float64 `json:"leftAt"`    // when it was last left
	Cooldown  float64 `json:"cooldown"`  // its cooldown
	Remaining float64 `json:"remaining"` // seconds before it lets the cursor in again (0: it does)
}

type orderView struct {
	Rule  int32   `json:"rule"`
	Label string  `json:"label"`
	Order []int32 `json:"order"` // the children's rule indices, in the order they are tried
}

type eventView struct {
	Step  uint64  `json:"step"`
	Time  float64 `json:"time"`
	Kind  string  `json:"kind"`
	Label string  `json:"label,omitempty"`
	Text  string  `json:"text"`
}

func (d *Debugger) eventViews(evs []event) []eventView {
	out := make([]eventView, len(evs))
	for i, e := range evs {
		out[i] = eventView{Step: e.step, Time: roundTime(d.g.Time(e.step)), Kind: e.kind.String(), Label: e.label, Text: e.text}
	}
	return out
}

func (d *Debugger) agentView(i int, info game.AgentInfo) agentView {
	g := d.g
	r := d.agents[i]
	a := r.a
	d.follow(r) // the records index the tree the agent runs (they do after every step and restore)
	t := a.Tree().Tree
	now := a.Time()
	step := g.Step()
	v := agentView{agentSummary: d.agentSummary(i, info), Step: step, Time: roundTime(g.Time(step)),
		Error: r.err, Cursor: a.Cursor(), FirstRun: a.FirstRun(), Extra: map[string]any{},
		Results: []resultView{}, Vars: []varView{}, Stamps: []stampView{},
		Clocks: []clockView{}, Cooldowns: []coolView{}, Orders: []orderView{}, Counts: []countView{},
		TreeKey: d.trees.key(r.tree, a.Tree()), Slots: slotViews(a)}
	v.Cursors = []cursorView{{Rule: a.Cursor(), Label: a.CursorLabel(), Path: pathTo(t, a.Cursor()), Active: a.CursorActive()}}
	var lanes []runtime.Lane
	if r.lanes != nil {
		lanes = a.Lanes(nil)
		v.Cursors = append(v.Cursors, laneCursors(a, lanes)...)
	}
	v.Parallels = d.parallelViews(r, lanes)
	v.Machines = machineViews(a)
	v.Gates = heldGates(a)
	v.Why = r.whyViews(a)
	if in := r.intr; in.Kind != 0 && r.stepped > 0 {
		v.Interrupt = &interruptView{Rule: in.Rule, Label: t.Rules[in.Rule].Label, Kind: in.Kind.String(), Step: r.stepped}
	}
	for rule := range r.results {
		if st, s, ok := r.lastResult(int32(rule)); ok {
			v.Results = append(v.Results, resultView{Rule: int32(rule), Result: resultName(st), Step: s, Time: roundTime(g.Time(s))})
		}
	}
	for k, vd := range t.Vars {
		v.Vars = append(v.Vars, varView{Name: vd.Name, Type: vd.Type.String(), Value: varValueJSON(a.VarValueAt(int32(k)))})
	}
	v.Stimuli = stimulusViews(a)
	for k, sd := range t.Stamps {
		sv := stampView{Name: sd.Name}
		if at, set := a.StampAt(int32(k)); set {
			at = roundTime(at)
			since := roundTime(now - at)
			sv.Set, sv.Time, sv.Since = true, &at, &since
		}
		v.Stamps = append(v.Stamps, sv)
	}
	f := a.Features()
	for _, c := range f.Clocks {
		to := t.Rules[c.Index].Timeout
		v.Clocks = append(v.Clocks, clockView{Rule: c.Index, Label: c.Rule, Since: roundTime(c.Time), Timeout: to, Left: roundTime(to - (now - c.Time))})
	}
	for _, c := range f.Cooldowns {
		cd := t.Rules[c.Index].Cooldown
		v.Cooldowns = append(v.Cooldowns, coolView{Rule: c.Index, Label: c.Rule, LeftAt: roundTime(c.Time), Cooldown: cd,
			Remaining: roundTime(max(cd-(now-c.Time), 0))})
	}
	for _, e := range f.Entries {
		r := &t.Rules[e.Index]
		v.Counts = append(v.Counts, countView{Rule: e.Index, Label: e.Rule, Passes: e.Passes, Repeat: r.Repeat,
			Failures: e.Failures, Attempts: r.Attempts, Started: e.Started, Exit: r.Exit})
	}
	for _, o := range f.Orders {
		kids := t.Children(o.Index)
		ov := orderView{Rule: o.Index, Label: o.Rule, Order: make([]int32, 0, len(o.Order))}
		for _, pos := range o.Order {
			if int(pos) < len(kids) {
				ov.Order = append(ov.Order, kids[pos])
			}
		}
		v.Orders = append(v.Orders, ov)
	}
	v.Ctx.Agent, v.Ctx.Memory, v.Ctx.State = d.host.InspectAgent(a, inspectBudget)
	if d := a.Data(); d != nil { // the game's own Go data, field by field (godata.go)
		v.Ctx.Agent = goDataView(runtime.DataOf[any](a), inspectBudget) // a tagged struct's own type, not its wrapper
	}
	st, typed, err := a.TypedState()
	switch b := a.RuleBytes(); {
	case typed: // a typed Go action's state, decoded
		v.Extra["state"] = valueView(st)
	case err != nil:
		v.Extra["state"] = fmt.Sprintf("%d bytes that do not decode as a typed state: %v", len(b), err)
	case len(b) > 0:
		v.Extra["plugin state"] = fmt.Sprintf("%d bytes", len(b))
	}
	evs, cut := r.events.upTo(step, d.eventCap.count)
	v.Events, v.EventsCut = d.eventViews(evs), cut
	return v
}

// resultName is a rule's last result for people: a list rule that moved the
// cursor into a child was "entered".
func resultName(st runtime.Status) string {
	if st == runtime.Moved {
		return "entered"
	}
	return st.String()
}

// --- trees ---

type treeView struct {
	Name    string       `json:"name"`     // the tree's name, or a composite's key (grafts.go)
	Tree    string       `json:"template"` // the config's name of the tree (a composite's template)
	File    string       `json:"file"`
	Agents  []string     `json:"agents"`
	Rules   []ruleView   `json:"rules"`
	Vars    []varDecl    `json:"vars"`
	Stamps  []stampDecl  `json:"stamps"`
	Signals []signalDecl `json:"signals"`
	Gates   []gateDecl   `json:"gates"`
}

type ruleView struct {
	Index      int32          `json:"index"`
	Kind       string         `json:"kind"`
	Tag        string         `json:"tag"`
	ID         string         `json:"id"`
	Label      string         `json:"label"`
	Pos        string         `json:"pos"`
	Parent     int32          `json:"parent"`
	Children   []int32        `json:"children"`
	Depth      int32          `json:"depth"`
	Action     string         `json:"action,omitempty"`
	Subtree    string         `json:"subtree,omitempty"`
	Conditions []condView     `json:"conditions"`
	Mode       string         `json:"conditionMode"`
	Params     [][2]string    `json:"params"`
	Attrs      map[string]any `json:"attrs"`
	State      *stateMark     `json:"state,omitempty"` // the rule of a state of a stateMachine: the state
	Graft      *graftMark     `json:"graft,omitempty"` // a rule of a tree grafted into a slot (grafts.go)
	Dead       bool           `json:"dead,omitempty"`  // a rule of a tree its slot gave up during the step: nothing reaches it
}

// stateMark names the state whose rule a rule is, and its transitions
// ("SIGNAL->STATE", "success->STATE").
type stateMark struct {
	Name        string   `json:"name"`
	Transitions []string `json:"transitions"`
}

// machineView is the state an active stateMachine is in.
type machineView struct {
	Rule      int32  `json:"rule"`
	Label     string `json:"label"`
	State     string `json:"state"`
	StateRule int32  `json:"stateRule"`
}

type condView struct {
	Name   string `json:"name"`
	Negate bool   `json:"negate"`
}

type varDecl struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Default any    `json:"default"`
}

type stampDecl struct {
	Name        string `json:"name"`
	SetOnSignal string `json:"setOnSignal,omitempty"`
	ExclusiveTo string `json:"exclusiveTo,omitempty"`
}

type signalDecl struct {
	Name    string   `json:"name"`
	Sets    []string `json:"sets"`              // "Var = value"
	Stamps  []string `json:"stamps"`            // timestamps it sets
	Expires float64  `json:"expires,omitempty"` // seconds its stimulus is held; 0: until replaced or forgotten
}

func (d *Debugger) treeView(name string, b *runtime.BoundTree) treeView {
	t := b.Tree
	v := treeView{Name: name, Tree: name, File: t.File, Agents: []string{}, Rules: make([]ruleView, len(t.Rules)),
		Vars: []varDecl{}, Stamps: []stampDecl{}, Signals: []signalDecl{}, Gates: []gateDecl{}}
	for _, g := range t.Gates {
		v.Gates = append(v.Gates, gateDecl{Name: g.Name, Users: g.Users, Cooldown: g.Cooldown})
	}
	for _, r := range d.agents {
		if r.a.Template() == b || r.a.Tree() == b {
			v.Agents = append(v.Agents, r.a.ID())
		}
	}
	for i := range t.Rules {
		r := &t.Rules[i]
		rv := ruleView{Index: int32(i), Kind: r.Kind.String(), Tag: r.Tag, ID: r.ID, Label: r.Label, Pos: r.Pos.String(),
			Parent: r.Parent, Children: t.Children(int32(i)), Depth: r.Depth, Action: r.Action, Subtree: r.Subtree,
			Conditions: []condView{}, Mode: r.Mode.String(), Params: [][2]string{}, Attrs: map[string]any{}}
		if rv.Children == nil {
			rv.Children = []int32{}
		}
		for _, c := range r.Conds {
			rv.Conditions = append(rv.Conditions, condView{Name: c.Name, Negate: c.Negate})
		}
		for _, p := range r.Params {
			rv.Params = append(rv.Params, [2]string{p.Name, p.Value})
		}
		if r.Loop {
			rv.Attrs["loop"] = true
		}
		if r.DoNotFail {
			rv.Attrs["doNotFail"] = true
		}
		if r.Abort != runtime.AbortNone {
			rv.Attrs["abort"] = r.Abort.String()
		}
		if r.Timeout > 0 {
			rv.Attrs["timeout"] = r.Timeout
		}
		if r.Cooldown > 0 {
			rv.Attrs["cooldown"] = r.Cooldown
		}
		if r.Kind == runtime.KindChoice && r.Order != runtime.OrderList {
			rv.Attrs["order"] = r.Order.String()
		}
		if r.Gate != "" {
			rv.Attrs["gate"] = r.Gate
		}
		if r.Default != "" {
			rv.Attrs["default"] = r.Default
		}
		if r.Repeat > 0 {
			rv.Attrs["repeat"] = r.Repeat
		}
		if r.Attempts > 0 {
			rv.Attrs["attempts"] = r.Attempts
		}
		if r.Enter != "" {
			rv.Attrs["enter"] = r.Enter
		}
		if r.Exit != "" {
			rv.Attrs["exit"] = r.Exit
		}
		if r.Kind == runtime.KindParallel {
			rv.Attrs["success"] = r.SuccessAt.String()
			rv.Attrs["failure"] = r.FailureAt.String()
		}
		if m, ok := t.MachineOf(int32(i)); ok {
			rv.Attrs["initial"] = m.States[m.Initial].Name
		}
		rv.State = stateOf(t, int32(i))
		v.Rules[i] = rv
	}
	markGrafts(&v, b)
	for _, vd := range t.Vars {
		v.Vars = append(v.Vars, varDecl{Name: vd.Name, Type: vd.Type.String(), Default: varValueJSON(vd.DefaultValue())})
	}
	for _, sd := range t.Stamps {
		v.Stamps = append(v.Stamps, stampDecl{Name: sd.Name, SetOnSignal: sd.SetOnSignal, ExclusiveTo: sd.ExclusiveTo})
	}
	for _, sd := range t.Signals {
		s := signalDecl{Name: sd.Name, Sets: []string{}, Stamps: []string{}, Expires: sd.Expires}
		for _, set := range sd.Sets {
			s.Sets = append(s.Sets, t.Vars[set.Var].Name+" = "+setText(set))
		}
		for _, st := range sd.Stamps {
			s.Stamps = append(s.Stamps, t.Stamps[st].Name)
		}
		v.Signals = append(v.Signals, s)
	}
	return v
}

// stateOf is the state whose rule rule i is, or nil.
func stateOf(t *runtime.Tree, i int32) *stateMark {
	p := t.Rules[i].Parent
	if p < 0 {
		return nil
	}
	m, ok := t.MachineOf(p)
	if !ok {
		return nil
	}
	k := m.StateOf(i)
	if k < 0 {
		return nil
	}
	s := &m.States[k]
	mark := &stateMark{Name: s.Name, Transitions: []string{}}
	for _, tr := range s.Transitions {
		on := tr.Signal
		if on == "" {
			on = tr.Result.String()
		}
		mark.Transitions = append(mark.Transitions, on+"->"+tr.ToName)
	}
	return mark
}

// machineViews are the states of the state machines agent a is in.
func machineViews(a *runtime.Agent) []machineView {
	t := a.Tree().Tree
	out := []machineView{}
	for _, m := range t.Machines {
		if k, ok := a.CurrentState(m.Rule); ok {
			s := &m.States[k]
			out = append(out, machineView{Rule: m.Rule, Label: t.Rules[m.Rule].Label, State: s.Name, StateRule: s.Rule})
		}
	}
	return out
}
