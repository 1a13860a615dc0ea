package runtime

import (
	"fmt"
	"math"
	"slices"
	"strings"
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
// t < arrival + expires). Recording one again overwrites it in place, so a
// signal received again and again allocates nothing.
//
// The list is kept sorted by name: what a save writes, a live view shows and
// a plugin call carries is in that order, however the signals came.

// MaxStimuli bounds the stimuli an agent holds: a script that sends itself
// a new signal name every step cannot make it hold more. When a new name
// arrives and MaxStimuli are held, expired stimuli are dropped first, then
// the one that arrived longest ago (the first by name among equals).
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
	list []Stimulus // sorted by Signal; may hold expired ones until they are read or replaced

	// Handlers (handlers.go): the signals whose handlers are still to be
	// called, in the order received, and whether they are being called.
	pending  []pendingSignal
	handling bool
	lanes    []Lane // scratch for the lanes' cursors
}

func (a *Agent) stimState() *stimState {
	x := a.extra()
	if x.stim == nil {
		x.stim = &stimState{}
	}
	return x.stim
}

// find returns where name is in the list, or where it would go.
func (s *stimState) find(name string) (int, bool) {
	return slices.BinarySearchFunc(s.list, name, func(x Stimulus, n string) int { return strings.Compare(x.Signal, n) })
}

// expiresOf is how long the agent's tree keeps a stimulus of the signal
// (the <signal> declaration's expires), 0 for ever.
func (a *Agent) expiresOf(name string) float64 {
	if i, ok := a.bound.signalIdx[name]; ok {
		return a.bound.signals[i].expires
	}
	return 0
}

// gone reports whether a stimulus that arrived at time at, for a signal
// kept expires seconds, has expired at the agent's time: the first step
// whose time is at least at + expires drops it.
func (a *Agent) gone(at, expires float64) bool { return expires > 0 && a.time >= at+expires }

// record keeps the signal's data as its stimulus, arrived at time t.
func (a *Agent) record(name string, data Value, t float64) {
	s := a.stimState()
	i, ok := s.find(name)
	if ok {
		s.list[i].Data, s.list[i].At = data, t
		return
	}
	if len(s.list) >= MaxStimuli {
		a.evictStimulus(s)
		i, _ = s.find(name)
	}
	s.list = slices.Insert(s.list, i, Stimulus{Signal: name, Data: data, At: t})
}

// evictStimulus makes room for a new stimulus: the expired ones go, or
// else the one that arrived longest ago.
func (a *Agent) evictStimulus(s *stimState) {
	s.list = slices.DeleteFunc(s.list, func(x Stimulus) bool { return a.gone(x.At, a.expiresOf(x.Signal)) })
	if len(s.list) < MaxStimuli {
		return
	}
	old := 0
	for i, x := range s.list {
		if x.At < s.list[old].At {
			old = i
		}
	}
	s.list = slices.Delete(s.list, old, old+1)
}

// Stimulus returns the data of the stimulus the agent holds for a signal
// (NilValue when the signal carried none) and its age: the agent's time
// minus the time it arrived, never below 0 (a signal delivered at the start
// of a step, before the step advanced the agent's time, is 0 seconds old).
// ok is false when the agent holds none: it never received the signal, it
// forgot it, or it expired.
func (a *Agent) Stimulus(name string) (data Value, age float64, ok bool) {
	if a.ext == nil || a.ext.stim == nil {
		return Value{}, 0, false
	}
	s := a.ext.stim
	i, found := s.find(name)
	if !found {
		return Value{}, 0, false
	}
	x := &s.list[i]
	if a.gone(x.At, a.expiresOf(name)) {
		s.list = slices.Delete(s.list, i, i+1)
		return Value{}, 0, false
	}
	return x.Data, max(0, a.time-x.At), true
}

// Held reports whether the agent holds a stimulus for the signal.
func (a *Agent) Held(name string) bool {
	_, _, ok := a.Stimulus(name)
	return ok
}

// Forget drops the agent's stimulus for a signal and reports whether it
// held one.
func (a *Agent) Forget(name string) bool {
	if a.ext == nil || a.ext.stim == nil {
		return false
	}
	s := a.ext.stim
	i, ok := s.find(name)
	if !ok {
		return false
	}
	held := !a.gone(s.list[i].At, a.expiresOf(name))
	s.list = slices.Delete(s.list, i, i+1)
	return held
}

// Stimuli appends the stimuli the agent holds to dst, sorted by signal
// name, and returns it. Their Data are the agent's: read them, do not
// change them.
func (a *Agent) Stimuli(dst []Stimulus) []Stimulus {
	if a.ext == nil || a.ext.stim == nil {
		return dst
	}
	for _, x := range a.ext.stim.list {
		if !a.gone(x.At, a.expiresOf(x.Signal)) {
			dst = append(dst, x)
		}
	}
	return dst
}

// heldCond is the condition S.held of a declared signal S: the agent holds
// a stimulus for S. expires is S's, resolved when the tree was bound.
type heldCond struct {
	name    string
	expires float64
}

func (c *heldCond) Test(a *Agent, _ Params) (bool, error) {
	if a.ext == nil || a.ext.stim == nil {
		return false, nil
	}
	s := a.ext.stim
	i, ok := s.find(c.name)
	return ok && !a.gone(s.list[i].At, c.expires), nil
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

// snapshotStimuli saves the stimuli the agent holds, sorted by name.
func (a *Agent) snapshotStimuli(s *Snapshot) {
	if a.ext == nil || a.ext.stim == nil {
		return
	}
	for _, x := range a.ext.stim.list {
		if !a.gone(x.At, a.expiresOf(x.Signal)) {
			s.Stimuli = append(s.Stimuli, x)
		}
	}
}

// planStimuli checks the saved stimuli and keeps a copy for Apply (the
// snapshot's list is reused for the next agent of a restore).
func (p *RestorePlan) planStimuli(s *Snapshot) error {
	p.stimuli = nil
	if len(s.Stimuli) == 0 {
		return nil
	}
	if len(s.Stimuli) > MaxStimuli {
		return &Error{Agent: p.a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("%d stimuli; an agent holds at most %d", len(s.Stimuli), MaxStimuli)}
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
	p.stimuli = slices.Clone(s.Stimuli)
	return nil
}

// applyStimuli gives the agent the planned stimuli (none when the save had
// none) and forgets handler calls it still owed.
func (p *RestorePlan) applyStimuli() {
	a := p.a
	if len(p.stimuli) == 0 && (a.ext == nil || a.ext.stim == nil) {
		return
	}
	s := a.stimState()
	clear(s.list)
	s.list = append(s.list[:0], p.stimuli...)
	clear(s.pending)
	s.pending = s.pending[:0]
}

// stimuli writes the saved stimuli (format version 5).
func (e *Encoder) stimuli(list []Stimulus) {
	e.Uvarint(uint64(len(list)))
	for _, x := range list {
		e.String(x.Signal)
		e.Float(x.At)
		e.Value(x.Data)
	}
}

// stimuli reads what Encoder.stimuli wrote into dst.
func (d *Decoder) stimuli(dst []Stimulus) []Stimulus {
	n := d.Count(3)
	for range n {
		x := Stimulus{Signal: d.String(), At: d.Float()}
		x.Data = d.Value()
		if d.err != nil {
			return dst
		}
		dst = append(dst, x)
	}
	return dst
}
