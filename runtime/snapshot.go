package runtime

import (
	"fmt"
	"math"
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
}

// NamedBool is a saved variable.
type NamedBool struct {
	Name  string
	Value bool
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
	if a.phase != phaseIdle {
		return Snapshot{}, &Error{Agent: a.id, Msg: "cannot save while a step is in progress or paused", Err: ErrBusy}
	}
	t := a.bound.Tree
	r := &t.Rules[a.cursor]
	if r.ID == "" {
		return Snapshot{}, &Error{Pos: r.Pos, Agent: a.id, Label: r.Label, Err: ErrUnknownID,
			Msg: "cannot save: the current rule has no id; add an id to it (the root, every rule that can return running, and every jump target need ids to be saved)"}
	}
	s := Snapshot{
		ID: a.id, Tree: t.File, Fingerprint: t.Fingerprint, Cursor: r.ID,
		FirstRun: a.flags&flagFirstRun != 0, Running: a.flags&flagActionRunning != 0, Last: a.last,
		Time: a.time, Dt: a.dt, Step: a.step, RuleWord: a.ruleWord,
	}
	for i, v := range t.Vars {
		s.Vars = append(s.Vars, NamedBool{v.Name, a.VarAt(int32(i))})
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
		s.RuleBytes = append([]byte(nil), a.ext.ruleBytes...)
	}
	return s, nil
}

// RestorePlan is a snapshot checked against an agent's tree, ready to apply.
type RestorePlan struct {
	a        *Agent
	s        *Snapshot
	cursor   int32
	slab     []uint64
	warnings []string
}

// PlanRestore checks a snapshot against the agent's tree without changing
// anything. A cursor id the tree does not have is an error naming the agent
// and the id; a tree that changed since the save, but still has every saved
// id, gives warnings.
func (a *Agent) PlanRestore(s *Snapshot) (*RestorePlan, error) {
	b := a.bound
	t := b.Tree
	p := &RestorePlan{a: a, s: s}
	if s.ID != a.id {
		return nil, &Error{Agent: a.id, Err: ErrUnknownID, Msg: fmt.Sprintf("the snapshot is of agent %q", s.ID)}
	}
	if a.Paused() {
		return nil, &Error{Agent: a.id, Err: ErrBusy, Msg: "cannot restore while a step is paused"}
	}
	cursor, ok := t.RuleIndex(s.Cursor)
	if !ok {
		return nil, &Error{Agent: a.id, Err: ErrUnknownID,
			Msg: fmt.Sprintf("cannot restore: the saved cursor %q is not an id of tree %s", s.Cursor, t.File)}
	}
	p.cursor = cursor
	if s.Fingerprint != t.Fingerprint {
		p.warn("tree %s changed since the save; every saved id still resolves", t.File)
	}
	switch s.Last {
	case 0, Success, Failure, Running, Errored:
	default:
		return nil, &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("bad last result %d", s.Last)}
	}
	if s.Running && t.Rules[cursor].Kind != KindAction {
		return nil, &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("the saved cursor %q is marked running but is not an action", s.Cursor)}
	}
	p.slab = make([]uint64, b.slabLen)
	copy(p.slab, b.slabInit)
	for _, v := range s.Vars {
		i, ok := t.VarIndex(v.Name)
		if !ok {
			p.warn("variable %q of the save is not declared any more; dropped", v.Name)
			continue
		}
		if v.Value {
			p.slab[i/64] |= 1 << (i % 64)
		} else {
			p.slab[i/64] &^= 1 << (i % 64)
		}
	}
	for _, st := range s.Stamps {
		i, ok := t.StampIndex(st.Name)
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
			return nil, &Error{Agent: a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("signal mark %d of %q is past the signal count %d", m.Mark, m.Name, s.SignalSeq)}
		}
		p.slab[b.signalBase+int(i)] = m.Mark
	}
	return p, nil
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
	a, s := p.a, p.s
	err := a.cancelRunning()
	a.phase, a.jump, a.count, a.condIdx = phaseIdle, -1, 0, 0
	a.arrive(p.cursor)
	a.flags = 0
	if s.FirstRun {
		a.flags |= flagFirstRun
	}
	if s.Running {
		a.flags |= flagActionRunning
	}
	a.last = s.Last
	a.time, a.dt, a.step = s.Time, s.Dt, s.Step
	a.ruleWord = s.RuleWord
	a.slab = p.slab
	if len(s.RuleBytes) > 0 {
		a.SetRuleBytes(s.RuleBytes)
	}
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

// Encode writes a snapshot.
func (e *Encoder) Snapshot(s *Snapshot) {
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
	e.Byte(flags)
	e.Byte(byte(s.Last))
	e.Float(s.Time)
	e.Float(s.Dt)
	e.Uvarint(s.Step)
	e.Uvarint(uint64(len(s.Vars)))
	for _, v := range s.Vars {
		e.String(v.Name)
		e.Bool(v.Value)
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
	e.Value(s.Host)
}

// Snapshot reads a snapshot.
func (d *Decoder) Snapshot() Snapshot {
	var s Snapshot
	s.ID = d.String()
	s.Tree = d.String()
	s.Fingerprint = d.String()
	s.Cursor = d.String()
	flags := d.Byte()
	if flags > 3 {
		d.fail("bad agent flags %d", flags)
	}
	s.FirstRun, s.Running = flags&1 != 0, flags&2 != 0
	s.Last = Status(d.Byte())
	s.Time = d.Float()
	s.Dt = d.Float()
	s.Step = d.Uvarint()
	if s.Step > maxSavedStep {
		d.fail("step %d is beyond step %d, the last an agent can reach", s.Step, uint64(maxSavedStep))
	}
	n := d.Count(2)
	for range n {
		s.Vars = append(s.Vars, NamedBool{d.String(), d.Bool()})
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
	s.RuleBytes = d.Blob()
	s.Host = d.Value()
	return s
}
