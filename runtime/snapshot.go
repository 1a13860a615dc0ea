package runtime

import (
	"fmt"
	"math"
	"slices"

	"github.com/btrun/btrun/runtime/savecodec"
)

// Snapshot is an agent's whole state as plain data (SPEC §6): what a save
// holds for it. Names, not slots, identify variables, timestamps, signals
// and the cursor, so that a save survives a tree edited in ways that keep
// those names.
type Snapshot struct {
	ID          string
	Tree        string // the tree's display path
	Fingerprint string // the tree's content fingerprint at save time
	Cursor      string // full id of the cursor rule
	FirstRun    bool
	Running     bool // the cursor's action last returned Running (cancel on interruption)
	Last        Status
	Time        float64
	Dt          float64
	Step        uint64
	Vars        []NamedBool
	Stamps      []NamedStamp
	SignalSeq   uint64
	Signals     []NamedMark // last-seen marks, which pending bt.signal.wait rules compare with
	RuleWord    uint64      // built-in rule state: a start time's bits or a signal mark
	RuleBytes   []byte      // a plugin's state bytes for the current rule
	Host        Value       // the host's state (luabind: ctx.state, ctx.memory, ctx.agent)

	// Interruption and choice orders (format version 2). The active rules
	// are the cursor's ancestors, and the cursor when Active is set.
	Active    bool        // the cursor rule is active: it ran since the cursor arrived and has not finished
	Rand      uint64      // the state of the agent's generator (Agent.Rand)
	Clocks    []RuleTime  // when each active rule with a timeout became active
	Cooldowns []RuleTime  // when each rule with a cooldown was last left
	Orders    []RuleOrder // the order of each active choice that has one (positions of its children)

	// Parallel lanes (format version 3): when the cursor is a parallel whose
	// lanes run (Running), its lanes (lanes_save.go).
	Lanes []LaneSnapshot

	// Gates (format version 4): the active rules that hold a gate
	// (gates_save.go). The gates' shared state is saved apart, with every
	// agent that shares it (SaveAgents).
	Holds []RuleHold

	// Stimuli (format version 5): the stimuli the agent holds, sorted by
	// signal name (stimuli.go).
	Stimuli []Stimulus

	// Counts and starts (format version 6): each active rule with repeat or
	// attempts whose counts are not 0, or with an enter or exit hook or
	// log.start that has started (hooks.go), in document order.
	Entries []RuleEntry

	// Slots are the agent's slots (slots.go), in document order, for a
	// tree that has them (format version 7).
	Slots []SlotSave

	// Customs are the states of the custom rules that hold any, in
	// document order (format version 8; custom_save.go).
	Customs []RuleState

	// startedUnsaved: read from a version before 6, which did not save
	// starts: every active rule with a start bit is taken as started (at a
	// step's end an active rule has started).
	startedUnsaved bool
	freshRand      bool     // read from version 1, which had no per-agent generator: Rand is the agent's first state
	carry          *carried // a reload's carry (carry.go): rules are found through a RuleMap, not by id

	// borrowed: Customs' States are the agent's own bytes, not copies
	// (EncodeAgents writes each snapshot before the agent can step).
	borrowed bool
}

// RuleEntry is the saved state of an active rule with repeat, attempts, a
// hook or log.start: its passes and failures since it became active, and
// whether it started (its enter hook ran: its exit hook will run).
type RuleEntry struct {
	Rule     string
	Index    int32
	Started  bool
	Passes   int32
	Failures int32
}

// RuleTime is a saved time of a rule, named by its label (its id, or
// TAG@FILE:LINE:COL) and, since labels repeat when a subtree file is
// included twice, its index in the tree.
type RuleTime struct {
	Rule  string
	Index int32
	Time  float64
}

// RuleOrder is a saved choice order: the positions of the choice's children
// in the order they are tried.
type RuleOrder struct {
	Rule  string
	Index int32
	Order []int32
}

// NamedBool is a saved variable: a boolean's value is Value; a number's,
// string's or vector's is Typed (whose Type is VarBoolean for a boolean).
type NamedBool struct {
	Name  string
	Value bool
	Typed VarValue
}

// NamedStamp is a saved timestamp.
type NamedStamp struct {
	Name string
	Set  bool
	Time float64
}

// NamedMark is a saved signal mark.
type NamedMark struct {
	Name string
	Mark uint64
}

// Snapshot captures the agent's state. It fails for an agent whose step is
// paused, and for a cursor without an id, since only an id can name the
// cursor in a tree loaded again later.
func (a *Agent) Snapshot() (Snapshot, error) {
	var s Snapshot
	if err := a.snapshotInto(&s); err != nil {
		return Snapshot{}, err
	}
	if len(s.RuleBytes) > 0 {
		s.RuleBytes = append([]byte(nil), s.RuleBytes...)
	}
	return s, nil
}

// snapshotInto is Snapshot into s, reusing s's lists, so that a save of
// many agents allocates nothing per agent. s.RuleBytes is the agent's own
// slice, not a copy: s is for encoding at once.
func (a *Agent) snapshotInto(s *Snapshot) error { return a.snapshotOf(s, false) }

// snapshotOf is snapshotInto; for a carry (carry.go), which names cursors
// by their place in the tree, cursors need no id.
func (a *Agent) snapshotOf(s *Snapshot, carry bool) error {
	if a.phase != phaseIdle {
		return &Error{Agent: a.id, Msg: "cannot save while a step is in progress or paused", Err: ErrBusy}
	}
	if a.HandlersOwed() {
		return &Error{Agent: a.id, Msg: "cannot save while signal handlers are owed (call RunHandlers after the step)", Err: ErrBusy}
	}
	t := a.bound.Tree
	r := &t.Rules[a.cursor]
	if r.ID == "" && !carry {
		return a.noIDError(r)
	}
	*s = Snapshot{
		ID: a.id, Tree: t.File, Fingerprint: t.Fingerprint, Cursor: r.ID,
		FirstRun: a.flags&flagFirstRun != 0, Running: a.flags&flagActionRunning != 0, Last: a.last,
		Time: a.time, Dt: a.dt, Step: a.step, RuleWord: a.ruleWord,
		Active: a.flags&flagActive != 0, Rand: a.randState(),
		Vars: s.Vars[:0], Stamps: s.Stamps[:0], Signals: s.Signals[:0],
		Clocks: s.Clocks[:0], Cooldowns: s.Cooldowns[:0], Orders: s.Orders[:0], Holds: s.Holds[:0],
		Stimuli: s.Stimuli[:0], Entries: s.Entries[:0], Slots: s.Slots[:0], Customs: s.Customs[:0],
		borrowed: s.borrowed,
	}
	a.snapshotFeatures(s)
	a.snapshotCustoms(s)
	a.snapshotStimuli(s)
	a.snapshotSlots(s)
	if a.bound.view != nil && !carry {
		defer a.bound.canonicalIndices(s) // slots_save.go; the lanes below too
	}
	if a.lanesRun() {
		var err error
		if s.Lanes, err = a.snapshotLanes(a.cursor, carry); err != nil {
			return err
		}
	}
	for i, v := range t.Vars {
		if v.Type != VarBoolean {
			s.Vars = append(s.Vars, NamedBool{Name: v.Name, Typed: a.VarValueAt(int32(i))})
			continue
		}
		s.Vars = append(s.Vars, NamedBool{Name: v.Name, Value: a.VarAt(int32(i))})
	}
	for i, st := range t.Stamps {
		at, set := a.StampAt(int32(i))
		if !set {
			at = 0
		}
		s.Stamps = append(s.Stamps, NamedStamp{st.Name, set, at})
	}
	b := a.bound
	if len(b.signals) > 0 {
		s.SignalSeq = a.slab[b.seqIndex]
		for i, sig := range b.signals {
			if m := a.slab[b.signalBase+i]; m != 0 {
				s.Signals = append(s.Signals, NamedMark{sig.name, m})
			}
		}
	}
	if a.ext != nil && len(a.ext.ruleBytes) > 0 {
		s.RuleBytes = a.ext.ruleBytes
	}
	return nil
}

// RestorePlan is a snapshot checked against an agent's tree, ready to apply:
// what the agent's fields become.
type RestorePlan struct {
	a                         *Agent
	cursor                    int32
	firstRun, running, active bool
	freshRand                 bool // the save had no generator for the agent: it starts afresh
	edited                    bool // the tree changed since the save (its fingerprint differs)
	last                      Status
	time, dt                  float64
	step, ruleWord, rand      uint64
	ruleBytes                 []byte
	slab                      []uint64
	strs                      []string // the string variables (vars_agent.go)
	warnings                  []string
	lanes                     []plannedLane // the lanes to put back (lanes_save.go)
	customs                   []customState // the custom rules' states to put back (custom_save.go)
	stimuli                   []Stimulus    // the stimuli to put back (stimuli.go)
	bound                     *BoundTree    // the view of the tree whose slots hold the saved trees (slots_save.go)
	wants                     []string      // the trees grafted into the slots, by slot
	wantP                     []int32       // their pairs
	// paths are the active paths, the agent's own and its running lanes',
	// while planning; planRestore reuses the array it finds here (a
	// restore of many agents plans them all through one).
	paths []lanePath
	path1 [1]lanePath // paths' first array for a plan made alone: it allocates nothing for an agent without lanes
}

// snapshotFeatures saves the timeout clocks, cooldowns and choice orders.
func (a *Agent) snapshotFeatures(s *Snapshot) {
	b := a.bound
	if b.feats == nil {
		return
	}
	rules := b.Tree.Rules
	for _, i := range b.snapRules {
		f := &b.feats[i]
		if b.Tree.unreached(i) {
			continue // a tree no slot runs (slots.go): its words start afresh when one takes it
		}
		if f.timeSlot >= 0 {
			if v := math.Float64frombits(a.slab[f.timeSlot]); !math.IsNaN(v) {
				s.Clocks = append(s.Clocks, RuleTime{rules[i].Label, int32(i), v})
			}
		}
		if f.coolSlot >= 0 {
			if v := math.Float64frombits(a.slab[f.coolSlot]); !math.IsNaN(v) {
				s.Cooldowns = append(s.Cooldowns, RuleTime{rules[i].Label, int32(i), v})
			}
		}
		if f.countSlot < 0 && f.startBit < 0 {
			continue // no counts, no start bit: entryOf would be empty
		}
		if e := a.entryOf(i); e.Started || e.Passes != 0 || e.Failures != 0 {
			s.Entries = append(s.Entries, e)
		}
	}
	a.snapshotHolds(s)
	path := lanePath{cursor: a.cursor, active: a.flags&flagActive != 0, stop: -1}
	a.snapshotOrders(s, path)
	if a.lanesRun() {
		for _, path := range a.lanePaths(nil, a.cursor) {
			a.snapshotOrders(s, path)
		}
	}
}

// snapshotOrders saves the orders of the active choices on one path,
// outermost first (document order).
func (a *Agent) snapshotOrders(s *Snapshot, path lanePath) {
	b := a.bound
	first := len(s.Orders)
	r := path.cursor
	if !path.active {
		r = b.rules[r].parent
	}
	for ; r != path.stop; r = b.rules[r].parent {
		if f := &b.feats[r]; f.orderSlot >= 0 {
			o := RuleOrder{Rule: b.Tree.Rules[r].Label, Index: r}
			if k := len(s.Orders); k < cap(s.Orders) { // the array this place had last agent
				o.Order = s.Orders[:k+1][k].Order[:0]
			}
			for k := range a.orderLen(f) {
				o.Order = append(o.Order, a.orderPos(f, k))
			}
			s.Orders = append(s.Orders, o)
		}
	}
	slices.Reverse(s.Orders[first:])
}

// PlanRestore checks a snapshot against the agent's tree without changing
// anything. A cursor id the tree does not have is an error naming the agent
// and the id; a tree that changed since the save, but still has every saved
// id, gives warnings.
func (a *Agent) PlanRestore(s *Snapshot) (*RestorePlan, error) {
	p := &RestorePlan{}
	if err := a.planRestore(p, s, make([]uint64, a.bound.slabLen)); err != nil {
		return nil, err
	}
	return p, nil
}

// planRestore is PlanRestore into p, with slab (of the tree's slab length)
// to hold the restored variables, timestamps, signal marks, clocks,
// cooldowns and orders. p keeps nothing of s but its rule bytes.
func (a *Agent) planRestore(p *RestorePlan, s *Snapshot, slab []uint64) error {
	to, wantP, err := a.restoreBound(s)
	if err != nil {
		return err
	}
	if to != a.bound { // planned on the view whose slots hold the saved trees; Apply moves the agent there
		was := a.bound
		a.bound = to
		defer func() { a.bound = was }()
		if len(slab) != to.slabLen {
			slab = make([]uint64, to.slabLen)
		}
	}
	b := a.bound
	t := b.Tree
	// A cursor that ran since it arrived (FirstRun clear) and has not
	// finished is active; saves of trees without features made before
	// every tree marked its cursor active say so only that way.
	// A plan reused from load to load (AgentsPlan) keeps its arrays: Apply
	// copies out of them.
	*p = RestorePlan{a: a, firstRun: s.FirstRun, running: s.Running, active: s.Active || !s.FirstRun, freshRand: s.freshRand,
		last: s.Last, time: s.Time, dt: s.Dt, step: s.Step, ruleWord: s.RuleWord, rand: s.Rand, ruleBytes: s.RuleBytes,
		paths: p.paths[:0], bound: a.bound, wants: a.savedWants(s, p.wants), wantP: wantP,
		customs: p.customs[:0], stimuli: p.stimuli[:0]}
	if s.ID != a.id {
		return &Error{Agent: a.id, Err: ErrUnknownID, Msg: fmt.Sprintf("the snapshot is of agent %q", s.ID)}
	}
	if a.Paused() {
		return &Error{Agent: a.id, Err: ErrBusy, Msg: "cannot restore while a step is paused"}
	}
	cursor, ok := s.cursorIn(t)
	if !ok {
		return &Error{Agent: a.id, Err: ErrUnknownID,
			Msg: fmt.Sprintf("cannot restore: the saved cursor %q is not an id of tree %s", s.Cursor, t.File)}
	}
	p.cursor = cursor
	p.edited = s.Fingerprint != t.Fingerprint
	if p.edited && s.carry == nil {
		what := t.File
		if b.view != nil { // its fingerprint covers the trees its slots hold (slots.go)
			what += " or a tree grafted into its slots"
		}
		p.warn("tree %s changed since the save; every saved id still resolves", what)
	}
	switch s.Last {
	case 0, Success, Failure, Running, Errored:
	default:
		return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("bad last result %d", s.Last)}
	}
	kind := t.Rules[cursor].Kind
	if s.Running && kind != KindAction && kind != KindParallel {
		return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("the saved cursor %q is marked running but is neither an action nor a parallel", s.Cursor)}
	}
	if s.Running && kind == KindParallel && !s.Active {
		return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("the saved cursor %q runs lanes but is not active", s.Cursor)}
	}
	if len(s.Lanes) > 0 && !(kind == KindParallel && s.Running) {
		return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("the saved lanes of %q do not belong to a parallel whose lanes run", s.Cursor)}
	}
	if b.lanes != nil && b.feats[cursor].lane >= 0 {
		return p.inLaneError(s.Cursor, cursor)
	}
	if p.paths == nil {
		p.paths = p.path1[:0]
	}
	p.paths = append(p.paths, lanePath{cursor: cursor, active: p.active, stop: -1})
	if kind == KindParallel && s.Running {
		if err := p.planLanes(s, cursor, s.Lanes, 1); err != nil {
			return err
		}
	}
	p.slab = slab
	copy(p.slab, b.slabInit)
	p.strs = append(p.strs[:0], b.strInit...)
	// A save lists the variables and timestamps in the tree's order (a
	// name at its place is found without a look-up); one made before an
	// edit of the tree may not.
	for k, v := range s.Vars {
		i, ok := int32(k), k < len(t.Vars) && t.Vars[k].Name == v.Name
		if !ok {
			i, ok = t.VarIndex(v.Name)
		}
		if !ok {
			p.warn("variable %q of the save is not declared any more; dropped", v.Name)
			continue
		}
		if t.Vars[i].Type != VarBoolean || v.Typed.Type != VarBoolean {
			if err := p.planTyped(i, v); err != nil { // vars_save.go
				return err
			}
			continue
		}
		if v.Value {
			p.slab[i/64] |= 1 << (i % 64)
		} else {
			p.slab[i/64] &^= 1 << (i % 64)
		}
	}
	for k, st := range s.Stamps {
		i, ok := int32(k), k < len(t.Stamps) && t.Stamps[k].Name == st.Name
		if !ok {
			i, ok = t.StampIndex(st.Name)
		}
		if !ok {
			p.warn("timestamp %q of the save is not declared any more; dropped", st.Name)
			continue
		}
		if st.Set {
			p.slab[b.stampBase+int(i)] = math.Float64bits(st.Time)
		}
	}
	if len(b.signals) > 0 {
		p.slab[b.seqIndex] = s.SignalSeq
	}
	for _, m := range s.Signals {
		i, ok := b.signalIdx[m.Name]
		if !ok {
			continue // nothing in this tree waits for that signal any more
		}
		if m.Mark > s.SignalSeq {
			return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("signal mark %d of %q is past the signal count %d", m.Mark, m.Name, s.SignalSeq)}
		}
		p.slab[b.signalBase+int(i)] = m.Mark
	}
	if err := p.planStimuli(s); err != nil {
		return err
	}
	return p.planFeatures(s)
}

// planFeatures maps the saved clocks, cooldowns and orders onto the tree.
// In the tree they were saved from, every entry must fit (else the data is
// corrupt); in an edited tree, what does not fit any more is dropped with a
// warning, an active rule that gained a timeout starts its clock now, and an
// active choice that gained an order (or whose order no longer fits) goes on
// in document order.
func (p *RestorePlan) planFeatures(s *Snapshot) error {
	a := p.a
	b := a.bound
	same := s.Fingerprint == b.Tree.Fingerprint
	bad := func(format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		if same {
			return &Error{Agent: a.id, Err: ErrCorrupt, Msg: msg}
		}
		p.warn("%s; dropped", msg)
		return nil
	}
	if b.feats == nil {
		if len(s.Clocks)+len(s.Cooldowns)+len(s.Orders)+len(s.Entries)+len(s.Customs) > 0 {
			return bad("the save holds timeouts, cooldowns, choice orders, counts or hooks, and the tree has none")
		}
		if len(s.Holds) > 0 && s.carry == nil { // carried, the gates' carry releases them
			return bad("the save holds gates held by rules, and the tree has no rule with a gate")
		}
		return nil
	}
	active := func(r int32) bool {
		for _, path := range p.paths {
			for x := path.cursor; x != path.stop; x = b.rules[x].parent {
				if x == r {
					return x != path.cursor || path.active
				}
			}
		}
		return false
	}
	clocked := map[int32]bool{}
	for _, c := range s.Clocks {
		r, ok := s.ruleIn(b, c.Rule, c.Index)
		switch {
		case math.IsNaN(c.Time) || math.IsInf(c.Time, 0):
			return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("bad clock %v of rule %s", c.Time, c.Rule)}
		case !ok || b.feats[r].timeSlot < 0:
			if err := bad("the timeout clock of rule %s has no rule with a timeout to go to", c.Rule); err != nil {
				return err
			}
		case !active(r):
			if err := bad("rule %s has a timeout clock but is not active", c.Rule); err != nil {
				return err
			}
		default:
			p.slab[b.feats[r].timeSlot] = math.Float64bits(c.Time)
			clocked[r] = true
		}
	}
	for _, c := range s.Cooldowns {
		r, ok := s.ruleIn(b, c.Rule, c.Index)
		switch {
		case math.IsNaN(c.Time) || math.IsInf(c.Time, 0):
			return &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("bad cooldown time %v of rule %s", c.Time, c.Rule)}
		case !ok || b.feats[r].coolSlot < 0:
			if err := bad("the cooldown of rule %s has no rule with a cooldown to go to", c.Rule); err != nil {
				return err
			}
		default:
			p.slab[b.feats[r].coolSlot] = math.Float64bits(c.Time)
		}
	}
	ordered := map[int32]bool{}
	for _, o := range s.Orders {
		r, ok := s.ruleIn(b, o.Rule, o.Index)
		if !ok || b.feats[r].orderSlot < 0 || !active(r) {
			if err := bad("the order of choice %s has no active choice with an order to go to", o.Rule); err != nil {
				return err
			}
			continue
		}
		if err := setSavedOrder(p.slab, &b.feats[r], s.orderIn(r, o)); err != nil {
			if err := bad("the order of choice %s does not fit its children", o.Rule); err != nil {
				return err
			}
			continue
		}
		ordered[r] = true
	}
	if err := p.planHolds(s, active, bad); err != nil {
		return err
	}
	if err := p.planEntries(s, active, bad); err != nil {
		return err
	}
	if err := p.planCustoms(s, bad); err != nil {
		return err
	}
	// Active rules the save knew nothing about (the tree was edited).
	for _, path := range p.paths {
		for r := path.cursor; r != path.stop; r = b.rules[r].parent {
			if r == path.cursor && !path.active {
				continue
			}
			f := &b.feats[r]
			label := b.Tree.Rules[r].Label
			if f.timeSlot >= 0 && !clocked[r] {
				p.slab[f.timeSlot] = math.Float64bits(s.Time)
				p.warn("active rule %s has a timeout the save did not know; its clock starts now", label)
			}
			if f.orderSlot >= 0 && !ordered[r] {
				putDocumentOrder(p.slab, f)
				p.warn("active choice %s has no saved order; it goes on in document order", label)
			}
		}
	}
	return nil
}

func (p *RestorePlan) warn(format string, args ...any) {
	p.warnings = append(p.warnings, p.prefix()+fmt.Sprintf(format, args...))
}

func (p *RestorePlan) prefix() string { return "agent " + p.a.id + ": " }

// Warnings are what PlanRestore let through.
func (p *RestorePlan) Warnings() []string { return p.warnings }

// maxSavedStep bounds a saved agent's step counter: up to 2^53 a step and
// its time are exact in a float64 (what Lua sees), and a counter read from
// a crafted save cannot wrap around to 0.
const maxSavedStep = 1 << 53

// Apply replaces the agent's state with the snapshot's (but for Host, which
// is the host's to restore). An action the agent was running is cancelled
// first; an error from that cancel hook is returned, the state is replaced
// all the same.
func (p *RestorePlan) Apply() error {
	a := p.a
	a.toMain()
	err := a.cancelRunning() // a parallel's lanes included
	a.leaveAll(leftReset)    // the state it had is replaced: its active rules are left
	a.flushGates()           // and the gates they held released at once
	a.applySlots(p)
	a.phase, a.jump, a.count, a.condIdx = phaseIdle, -1, 0, 0
	a.arrive(p.cursor)
	a.flags = 0
	if p.firstRun {
		a.flags |= flagFirstRun
	}
	if p.running {
		a.flags |= flagActionRunning
	}
	if p.active {
		a.flags |= flagActive
	}
	rng := p.rand
	if p.freshRand {
		rng = AgentRandState(a.env.Seed, a.id)
	}
	if a.ext != nil || rng != AgentRandState(a.env.Seed, a.id) {
		a.Rand().SetState(rng) // else it is created in that state at first use
	}
	a.last = p.last
	a.time, a.dt, a.step = p.time, p.dt, p.step
	a.ruleWord = p.ruleWord
	if len(a.slab) == len(p.slab) {
		copy(a.slab, p.slab) // the plan's slab may be cut from one shared by many plans
	} else {
		a.slab = p.slab
	}
	if len(p.strs) > 0 {
		a.ext.strs = append(a.ext.strs[:0], p.strs...)
	}
	if len(p.ruleBytes) > 0 {
		a.SetRuleBytes(p.ruleBytes)
	}
	p.applyLanes()
	p.applyStimuli()
	p.applyCustoms()
	a.rehold()
	return err
}

// Restore is PlanRestore followed by Apply, for one agent.
func (a *Agent) Restore(s *Snapshot) (warnings []string, err error) {
	p, err := a.PlanRestore(s)
	if err != nil {
		return nil, err
	}
	return p.warnings, p.Apply()
}

// EncodeSnapshot writes s to e, as a save holds an agent.
func EncodeSnapshot(e *savecodec.Encoder, s *Snapshot) {
	encodeSnapshotHead(e, s)
	EncodeValue(e, s.Host)
}

// snapshotHead writes a snapshot but for its last field, Host.
func encodeSnapshotHead(e *savecodec.Encoder, s *Snapshot) {
	e.String(s.ID)
	e.String(s.Tree)
	e.String(s.Fingerprint)
	e.String(s.Cursor)
	var flags byte
	if s.FirstRun {
		flags |= 1
	}
	if s.Running {
		flags |= 2
	}
	if s.Active {
		flags |= 4
	}
	e.Byte(flags)
	e.Byte(byte(s.Last))
	e.Float(s.Time)
	e.Float(s.Dt)
	e.Uvarint(s.Step)
	e.Uvarint(uint64(len(s.Vars)))
	for _, v := range s.Vars {
		e.String(v.Name)
		encodeVarValue(e, v) // vars_save.go
	}
	e.Uvarint(uint64(len(s.Stamps)))
	for _, st := range s.Stamps {
		e.String(st.Name)
		e.Bool(st.Set)
		if st.Set {
			e.Float(st.Time)
		}
	}
	e.Uvarint(s.SignalSeq)
	e.Uvarint(uint64(len(s.Signals)))
	for _, m := range s.Signals {
		e.String(m.Name)
		e.Uvarint(m.Mark)
	}
	e.Uvarint(s.RuleWord)
	e.Blob(s.RuleBytes)
	e.Fixed64(s.Rand)
	for _, list := range [][]RuleTime{s.Clocks, s.Cooldowns} {
		e.Uvarint(uint64(len(list)))
		for _, c := range list {
			e.String(c.Rule)
			e.Uvarint(uint64(c.Index))
			e.Float(c.Time)
		}
	}
	e.Uvarint(uint64(len(s.Orders)))
	for _, o := range s.Orders {
		e.String(o.Rule)
		e.Uvarint(uint64(o.Index))
		e.Uvarint(uint64(len(o.Order)))
		for _, pos := range o.Order {
			e.Uvarint(uint64(pos))
		}
	}
	encodeLanes(e, s.Lanes)
	e.Uvarint(uint64(len(s.Holds)))
	for _, h := range s.Holds {
		e.String(h.Rule)
		e.Uvarint(uint64(h.Index))
		e.String(h.Gate)
	}
	encodeStimuli(e, s.Stimuli)
	e.Uvarint(uint64(len(s.Entries)))
	for _, x := range s.Entries {
		e.String(x.Rule)
		e.Uvarint(uint64(x.Index))
		e.Bool(x.Started)
		e.Uvarint(uint64(x.Passes))
		e.Uvarint(uint64(x.Failures))
	}
	encodeSlots(e, s.Slots)
	encodeCustoms(e, s.Customs)
}

// DecodeSnapshot reads what EncodeSnapshot wrote (in the format version
// d reads, older ones included).
func DecodeSnapshot(d *savecodec.Decoder) Snapshot {
	var s Snapshot
	decodeSnapshotHead(d, &s, nil)
	s.Host = DecodeValue(d)
	return s
}

// snapshotHead reads a snapshot but for its last field, Host, into s,
// reusing s's lists (a restore of many agents reads them all through one
// Snapshot). The rule bytes are copied into *keep when it is not nil, so
// that all agents' share one array, else into their own.
func decodeSnapshotHead(d *savecodec.Decoder, s *Snapshot, keep *[]byte) {
	*s = Snapshot{Vars: s.Vars[:0], Stamps: s.Stamps[:0], Signals: s.Signals[:0],
		Clocks: s.Clocks[:0], Cooldowns: s.Cooldowns[:0], Orders: s.Orders[:0], Holds: s.Holds[:0],
		Stimuli: s.Stimuli[:0], Entries: s.Entries[:0], Slots: s.Slots[:0], Customs: s.Customs[:0]}
	s.ID = d.String()
	s.Tree = d.String()
	s.Fingerprint = d.String()
	s.Cursor = d.String()
	flags := d.Byte()
	if flags > 7 || flags&4 != 0 && savedVersion(d) == 1 {
		d.Fail("bad agent flags %d", flags)
	}
	s.FirstRun, s.Running, s.Active = flags&1 != 0, flags&2 != 0, flags&4 != 0
	s.Last = Status(d.Byte())
	s.Time = d.Float()
	s.Dt = d.Float()
	s.Step = d.Uvarint()
	if s.Step > maxSavedStep {
		d.Fail("step %d is beyond step %d, the last an agent can reach", s.Step, uint64(maxSavedStep))
	}
	n := d.Count(2)
	for range n {
		s.Vars = append(s.Vars, decodeVarValue(d, d.String())) // vars_save.go
	}
	n = d.Count(2)
	for range n {
		st := NamedStamp{Name: d.String(), Set: d.Bool()}
		if st.Set {
			st.Time = d.Float()
		}
		s.Stamps = append(s.Stamps, st)
	}
	s.SignalSeq = d.Uvarint()
	n = d.Count(2)
	for range n {
		s.Signals = append(s.Signals, NamedMark{d.String(), d.Uvarint()})
	}
	s.RuleWord = d.Uvarint()
	s.RuleBytes = d.KeptBlob(keep)
	if savedVersion(d) == 1 {
		// Version 1 had one generator for the whole run and no interruption:
		// the agent's generator starts fresh (Rand is set by PlanRestore),
		// and a cursor that ran is taken as active.
		s.Active = !s.FirstRun || s.Running
		s.freshRand = true
		return
	}
	s.Rand = d.Fixed64()
	for _, list := range []*[]RuleTime{&s.Clocks, &s.Cooldowns} {
		n := d.Count(10)
		for range n {
			*list = append(*list, RuleTime{Rule: d.String(), Index: d.Index(), Time: d.Float()})
		}
	}
	n = d.Count(3)
	for range n {
		o := RuleOrder{Rule: d.String(), Index: d.Index()}
		k := d.Count(1)
		if i := len(s.Orders); i < cap(s.Orders) { // the array this place had last agent
			o.Order = s.Orders[:i+1][i].Order[:0]
		}
		if cap(o.Order) < k {
			o.Order = make([]int32, 0, k)
		}
		for range k {
			o.Order = append(o.Order, d.Index())
		}
		s.Orders = append(s.Orders, o)
	}
	if savedVersion(d) >= 3 {
		s.Lanes = decodeLanes(d, 1)
	}
	if savedVersion(d) >= 4 {
		n := d.Count(3)
		for range n {
			s.Holds = append(s.Holds, RuleHold{Rule: d.String(), Index: d.Index(), Gate: d.String()})
		}
	}
	if savedVersion(d) >= 5 {
		s.Stimuli = decodeStimuli(d, s.Stimuli)
	}
	if savedVersion(d) >= 6 {
		n := d.Count(5)
		for range n {
			x := RuleEntry{Rule: d.String(), Index: d.Index(), Started: d.Bool()}
			x.Passes, x.Failures = d.Index(), d.Index()
			s.Entries = append(s.Entries, x)
		}
	} else {
		s.startedUnsaved = true
	}
	if savedVersion(d) >= 7 {
		s.Slots = decodeSlots(d, s.Slots)
	}
	if savedVersion(d) >= 8 {
		s.Customs = decodeCustoms(d, s.Customs, keep)
	}
}
