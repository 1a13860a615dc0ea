package runtime

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/btrun/btrun/runtime/savecodec"
)

// Stimuli (Spore's stimuli, CryEngine's signal arguments): for each signal
// name, the last data the agent received with it and the agent time it
// arrived. Every signal the agent receives records one, with or without
// data, declared or not: "the agent heard Hurt 2 seconds ago, from
// grunt-2" is what a tree asks (condition Hurt.held) and a script reads
// (ctx:stimulus). A <signal> declaration may give expires="S": the
// stimulus is then held until the first step whose time is at least
// arrival + S.
//
// Stimuli live in the agent's extension, allocated at the first signal the
// agent receives; an agent that receives none pays nothing, and the step
// never looks at them (S.held is a condition like any other, and expiry is
// decided when a stimulus is read: at a time t a stimulus is held when
// t < arrival + expires). The signals the tree knows by name (its
// declarations, and the names its bt.signal.wait and bt.signal.send rules
// use) have a slot each, bound with the tree: their stimuli are kept by
// slot, so that receiving one, or testing S.held, looks up no name. Other
// signals' stimuli are kept in a list sorted by name. Recording one again
// overwrites it in place: a signal received again and again allocates
// nothing.
//
// What a save writes, a live view shows and a plugin call carries is
// sorted by name, however the signals came.

// MaxStimuli bounds the stimuli an agent holds for signals its tree does
// not name (beside one per signal it names): a script that sends itself a
// new signal name every step cannot make it hold more. When a new name
// arrives and MaxStimuli are held, the one that arrived longest ago (the
// first by name among equals) is dropped.
const MaxStimuli = 256

// Stimulus is a signal the agent holds: its name, its data (NilValue when
// the signal carried none) and the agent time it arrived.
type Stimulus struct {
	Signal string
	Data   Value
	At     float64
}

// stimState is an agent's stimuli and the handler calls it owes
// (handlers.go).
type stimState struct {
	// slots holds the stimuli of the signals the tree names, by their
	// slot (BoundTree.signals), Signal "" where none is held; list the
	// others, sorted by Signal. Either may hold expired ones until they
	// are read or replaced.
	slots []heldStimulus
	list  []heldStimulus

	// bytes is the memory the held stimuli take as their bound counts it
	// (stimuli_bound.go), the sum of their costs; cost is the cost of
	// the stimulus being received, worked out once by admitStimulus
	// (admitted: not taken yet, takeCost).
	bytes, cost int
	admitted    bool

	// Handlers (handlers.go): the signals whose handlers are still to be
	// called, in the order received, and whether they are being called.
	pending  []pendingSignal
	handling bool
	lanes    []Lane // scratch for the lanes' cursors
}

// heldStimulus is a stimulus and its cost (stimulusCost), kept so that
// replacing or dropping it takes its bytes off without walking its data.
type heldStimulus struct {
	Stimulus
	cost int
}

// noData is the data of a signal that carries none.
var noData Value

func (a *Agent) stimState() *stimState {
	x := a.extra()
	if x.stim == nil {
		x.stim = &stimState{}
	}
	return x.stim
}

// stimuli is the agent's stimState, or nil when it never received a
// signal.
func (a *Agent) stimuli() *stimState {
	if a.ext == nil {
		return nil
	}
	return a.ext.stim
}

// find returns where name is in the list, or where it would go.
func (s *stimState) find(name string) (int, bool) {
	return slices.BinarySearchFunc(s.list, name, func(x heldStimulus, n string) int { return strings.Compare(x.Signal, n) })
}

// gone reports whether a stimulus that arrived at time at, for a signal
// kept expires seconds, has expired at the agent's time: the first step
// whose time is at least at + expires drops it.
func (a *Agent) gone(at, expires float64) bool { return expires > 0 && a.time >= at+expires }

// recordSlot keeps the data of the signal in slot i (named name) as its
// stimulus, arrived at time t.
func (a *Agent) recordSlot(i int32, name string, data *Value, t float64) {
	if x := a.ext; x != nil && x.stim != nil && x.stim.slots != nil {
		s := x.stim
		st := &s.slots[i]
		c := s.takeCost(name, data)
		s.bytes += c - st.cost
		st.Signal, st.Data, st.At, st.cost = name, *data, t, c
		return
	}
	a.recordSlotNew(i, name, data, t)
}

// recordSlotNew is recordSlot for an agent whose slots are not made yet.
//
//go:noinline
func (a *Agent) recordSlotNew(i int32, name string, data *Value, t float64) {
	s := a.stimState()
	if s.slots == nil {
		s.slots = make([]heldStimulus, len(a.bound.signals))
	}
	c := s.takeCost(name, data)
	s.bytes += c - s.slots[i].cost
	s.slots[i] = heldStimulus{Stimulus{Signal: name, Data: *data, At: t}, c}
}

// recordStimulus keeps the data of a signal the tree does not name as its
// stimulus, arrived at time t.
func (a *Agent) recordStimulus(name string, data *Value, t float64) {
	s := a.stimState()
	c := s.takeCost(name, data)
	if len(s.list) <= 8 { // a few names: a look along the list is quicker than a search
		for i := range s.list {
			if s.list[i].Signal == name {
				s.replace(i, data, t, c)
				return
			}
		}
	}
	i, ok := s.find(name)
	if ok {
		s.replace(i, data, t, c)
		return
	}
	if len(s.list) >= MaxStimuli {
		a.evictStimulus(s)
		i, _ = s.find(name)
	}
	s.bytes += c
	s.list = slices.Insert(s.list, i, heldStimulus{Stimulus{Signal: name, Data: *data, At: t}, c})
}

// replace puts new data of cost c, arrived at time t, in the list's i-th
// stimulus.
func (s *stimState) replace(i int, data *Value, t float64, c int) {
	x := &s.list[i]
	s.bytes += c - x.cost
	x.Data, x.At, x.cost = *data, t, c
}

// evictStimulus makes room in the list for a new stimulus: the one that
// arrived longest ago goes (the list's signals do not expire).
func (a *Agent) evictStimulus(s *stimState) {
	old := 0
	for i, x := range s.list {
		if x.At < s.list[old].At {
			old = i
		}
	}
	s.bytes -= s.list[old].cost
	s.list = slices.Delete(s.list, old, old+1)
}

// held finds the agent's stimulus of a signal: its place, and whether it
// is held (not expired) at the agent's time.
func (a *Agent) held(name string) (*Stimulus, bool) {
	s := a.stimuli()
	if s == nil {
		return nil, false
	}
	b := a.bound
	if i, ok := b.signalIdx[name]; ok {
		if s.slots == nil || s.slots[i].Signal == "" {
			return nil, false
		}
		x := &s.slots[i].Stimulus
		return x, !a.gone(x.At, b.signals[i].expires)
	}
	i, ok := s.find(name)
	if !ok {
		return nil, false
	}
	return &s.list[i].Stimulus, true // signals the tree does not name never expire
}

// Stimulus returns the data of the stimulus the agent holds for a signal
// (NilValue when the signal carried none) and its age: the agent's time
// minus the time it arrived, never below 0 (a signal delivered at the start
// of a step, before the step advanced the agent's time, is 0 seconds old).
// ok is false when the agent holds none: it never received the signal, it
// forgot it, or it expired.
func (a *Agent) Stimulus(name string) (data Value, age float64, ok bool) {
	x, held := a.held(name)
	if !held {
		return Value{}, 0, false
	}
	return x.Data, max(0, a.time-x.At), true
}

// Held reports whether the agent holds a stimulus for the signal.
func (a *Agent) Held(name string) bool {
	_, held := a.held(name)
	return held
}

// Forget drops the agent's stimulus for a signal and reports whether it
// held one.
func (a *Agent) Forget(name string) bool {
	x, held := a.held(name)
	if x == nil {
		return false
	}
	s := a.ext.stim
	if i, ok := a.bound.signalIdx[name]; ok {
		s.bytes -= s.slots[i].cost
		s.slots[i] = heldStimulus{}
	} else {
		i, _ := s.find(name)
		s.bytes -= s.list[i].cost
		s.list = slices.Delete(s.list, i, i+1)
	}
	return held
}

// Stimuli appends the stimuli the agent holds to dst, sorted by signal
// name, and returns it. Their Data are the agent's: read them, do not
// change them.
func (a *Agent) Stimuli(dst []Stimulus) []Stimulus {
	s := a.stimuli()
	if s == nil {
		return dst
	}
	start := len(dst)
	for i := range s.slots {
		if x := &s.slots[i]; x.Signal != "" && !a.gone(x.At, a.bound.signals[i].expires) {
			dst = append(dst, x.Stimulus)
		}
	}
	for i := range s.list {
		dst = append(dst, s.list[i].Stimulus)
	}
	slices.SortFunc(dst[start:], func(x, y Stimulus) int { return strings.Compare(x.Signal, y.Signal) })
	return dst
}

// heldCond is the condition S.held of signal slot S: the agent holds a
// stimulus of it. expires is S's, resolved when the tree was bound.
type heldCond struct {
	slot    int32
	expires float64
}

func (c *heldCond) Test(a *Agent, _ Params) (bool, error) {
	if a.ext == nil || a.ext.stim == nil || a.ext.stim.slots == nil {
		return false, nil
	}
	x := &a.ext.stim.slots[c.slot]
	return x.Signal != "" && !a.gone(x.At, c.expires), nil
}

// forgetAction is bt.stimulus.forget: the agent forgets signal.name.
type forgetAction struct{ name string }

func bindForget(s *Site) (Action, error) {
	name, err := stringParam(s.Params, "signal.name")
	if err != nil {
		return nil, s.Errorf("bt.stimulus.forget: %v", err)
	}
	return &forgetAction{name}, nil
}

func (x *forgetAction) Run(a *Agent, _ Params) (Status, error) {
	a.Forget(x.name)
	return Success, nil
}

// --- saves ---

// snapshotStimuli saves the stimuli the agent keeps, sorted by name,
// expired ones included: an expired stimulus is still read by -explain
// ("stimulus expired, age 1.5 s") and counted by the stimulus bound until
// something drops it, so a restored agent must keep it too, or its
// reasons and refusals would differ from the run that was not restored.
func (a *Agent) snapshotStimuli(s *Snapshot) {
	st := a.stimuli()
	if st == nil {
		return
	}
	start := len(s.Stimuli)
	for i := range st.slots {
		if x := &st.slots[i]; x.Signal != "" {
			s.Stimuli = append(s.Stimuli, x.Stimulus)
		}
	}
	for i := range st.list {
		s.Stimuli = append(s.Stimuli, st.list[i].Stimulus)
	}
	slices.SortFunc(s.Stimuli[start:], func(x, y Stimulus) int { return strings.Compare(x.Signal, y.Signal) })
}

// planStimuli checks the saved stimuli and keeps a copy for Apply (the
// snapshot's list is reused for the next agent of a restore).
func (p *RestorePlan) planStimuli(s *Snapshot) error {
	p.stimuli = p.stimuli[:0] // its array kept for the plan's next load
	if len(s.Stimuli) == 0 {
		return nil
	}
	if len(s.Stimuli) > MaxStimuli+len(p.a.bound.signals) {
		return &Error{Agent: p.a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("%d stimuli; an agent of tree %s holds at most %d", len(s.Stimuli), p.a.bound.Tree.File, MaxStimuli+len(p.a.bound.signals))}
	}
	for i, x := range s.Stimuli {
		switch {
		case i > 0 && s.Stimuli[i-1].Signal >= x.Signal:
			return &Error{Agent: p.a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("stimuli out of order or repeated at %q", x.Signal)}
		case math.IsNaN(x.At) || math.IsInf(x.At, 0):
			return &Error{Agent: p.a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("stimulus %q arrived at %v", x.Signal, x.At)}
		}
		if err := CheckData(x.Data); err != nil {
			return &Error{Agent: p.a.id, Err: fmt.Errorf("%w: %w", ErrCorrupt, err), Msg: fmt.Sprintf("stimulus %q: %v", x.Signal, err)}
		}
	}
	p.stimuli = append(p.stimuli[:0], s.Stimuli...)
	return nil
}

// applyStimuli gives the agent the planned stimuli (none when the save had
// none) and forgets handler calls it still owed.
func (p *RestorePlan) applyStimuli() {
	a := p.a
	if len(p.stimuli) == 0 && a.stimuli() == nil {
		return
	}
	s := a.stimState()
	clear(s.slots)
	clear(s.list)
	s.list = s.list[:0]
	s.bytes, s.admitted = 0, false
	for i := range p.stimuli {
		x := &p.stimuli[i]
		if k, ok := a.bound.signalIdx[x.Signal]; ok {
			a.recordSlot(k, x.Signal, &x.Data, x.At)
		} else {
			c := stimulusCost(x.Signal, &x.Data)
			s.bytes += c
			s.list = append(s.list, heldStimulus{*x, c}) // sorted already
		}
	}
	clear(s.pending)
	s.pending = s.pending[:0]
}

// stimuli writes the saved stimuli (format version 5).
func encodeStimuli(e *savecodec.Encoder, list []Stimulus) {
	e.Uvarint(uint64(len(list)))
	for _, x := range list {
		e.String(x.Signal)
		e.Float(x.At)
		EncodeValue(e, x.Data)
	}
}

// stimuli reads what Encoder.stimuli wrote into dst.
func decodeStimuli(d *savecodec.Decoder, dst []Stimulus) []Stimulus {
	n := d.Count(3)
	for range n {
		x := Stimulus{Signal: d.String(), At: d.Float()}
		x.Data = DecodeValue(d)
		if d.Err() != nil {
			return dst
		}
		dst = append(dst, x)
	}
	return dst
}
