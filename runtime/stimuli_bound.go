package runtime

import (
	"errors"
	"fmt"
)

// The memory bound of an agent's stimuli. Stimuli live in Go, outside any
// Lua state's budget: without a bound an agent could hold 256 names times
// 64 KiB of data, each table entry taking some 40 times its encoded size
// in memory. So each stimulus is counted as the memory it takes
// (stimulusCost), and a signal whose stimulus would take the agent past
// its bound (Env.StimulusMemory) is refused: an error to its sender, and
// nothing delivered, as data that CheckData refuses. The count depends on
// the agent's own stimuli only, never on which goroutine stepped what, so
// a refusal is the same for any number of workers; it is not saved (a
// restore counts again what it puts back).

// DefaultStimulusMemory is the bound of an agent's stimuli when its Env
// sets none: room for a signal with the largest data (MaxDataSize bytes
// encoded, about 2.4 MB in memory at worst) and more.
const DefaultStimulusMemory = 4 << 20

// Costs of a stimulus as its bound counts them, the same on every machine:
// a stimulus record (its name, data and arrival time), and a value inside a
// table's data (an entry is two: its key and its value). A string adds its
// bytes.
const (
	stimulusBytes = 80
	valueBytes    = 56
)

// ErrStimuli marks a signal refused because the receiver's stimuli would
// take more memory than their bound (Env.StimulusMemory).
var ErrStimuli = errors.New("runtime: stimuli over their memory bound")

// stimulusCost is the memory a stimulus of signal name carrying data v
// takes, as the bound counts it.
func stimulusCost(name string, v *Value) int {
	return stimulusBytes + len(name) + dataMemory(v)
}

// dataMemory is what v's strings and table entries take (v's own Value is
// part of the stimulus record). Data is at most MaxDataDepth deep.
func dataMemory(v *Value) int {
	n := len(v.Str)
	for i := range v.Table {
		f := &v.Table[i]
		n += 2*valueBytes + dataMemory(&f.Key) + dataMemory(&f.Val)
	}
	return n
}

// StimulusBytes is the memory the agent's stimuli take, as their bound
// (Env.StimulusMemory) counts it: for each stimulus 80 bytes, its signal
// name's bytes, and in its data 112 bytes for each table entry plus every
// string's bytes. Expired stimuli count until a refusal drops them.
func (a *Agent) StimulusBytes() int {
	if s := a.stimuli(); s != nil {
		return s.bytes
	}
	return 0
}

// stimulusBound is the agent's bound from its Env.
func (a *Agent) stimulusBound() int {
	if n := a.env.StimulusMemory; n > 0 {
		return n
	}
	return DefaultStimulusMemory
}

// admitStimulus decides whether the agent can hold the stimulus of a
// signal it is receiving, before anything of the signal is applied, and
// leaves its cost in stimState.cost for the record functions. A signal that
// would take the agent's stimuli past its bound first drops its expired
// stimuli (they are gone for every reader already); if that is not enough
// it is refused (ErrStimuli). A stimulus that replaces a larger one is
// always taken: it frees memory.
func (a *Agent) admitStimulus(name string, data *Value) error {
	s := a.stimState()
	s.cost, s.admitted = stimulusCost(name, data), true
	bound := a.stimulusBound()
	if s.bytes+s.cost <= bound {
		return nil // the common case: whatever it replaces, it fits
	}
	old := a.heldCost(name)
	if s.bytes-old+s.cost <= bound || s.cost <= old {
		return nil
	}
	a.dropExpired(s)
	old = a.heldCost(name)
	if s.bytes-old+s.cost <= bound {
		return nil
	}
	s.admitted = false // nothing will be recorded
	return &Error{Agent: a.id, Err: ErrStimuli, Msg: fmt.Sprintf(
		"cannot hold signal %q: its stimulus takes %d bytes, and with the %d the agent's other stimuli take that is more than the %d it may hold; "+
			"forget stimuli once read (ctx:forget, bt.stimulus.forget), declare the signal with expires, or send less data",
		name, s.cost, s.bytes-old, bound)}
}

// takeCost is the cost of the stimulus being recorded: the one
// admitStimulus worked out, or, for a stimulus a restore puts back, worked
// out now.
func (s *stimState) takeCost(name string, data *Value) int {
	if s.admitted {
		s.admitted = false
		return s.cost
	}
	return stimulusCost(name, data)
}

// heldCost is the cost of the stimulus the agent holds for a signal,
// expired or not (0: none).
func (a *Agent) heldCost(name string) int {
	s := a.ext.stim
	if i, ok := a.bound.signalIdx[name]; ok {
		if s.slots == nil {
			return 0
		}
		return s.slots[i].cost
	}
	if i, ok := s.find(name); ok {
		return s.list[i].cost
	}
	return 0
}

// dropExpired drops the stimuli that have expired at the agent's time
// (only signals the tree names expire).
func (a *Agent) dropExpired(s *stimState) {
	for i := range s.slots {
		if x := &s.slots[i]; x.Signal != "" && a.gone(x.At, a.bound.signals[i].expires) {
			s.bytes -= x.cost
			*x = heldStimulus{}
		}
	}
}

// CanHold reports whether the agent can hold the stimulus of a signal
// carrying data now: nil, or the error (wrapping ErrStimuli) that
// delivering it would return. A host that delivers one signal to several
// agents asks each first, so that a refusal delivers it to none. It drops
// the agent's expired stimuli when they are in the way, as a delivery
// would; it changes nothing a reader sees.
func (a *Agent) CanHold(signal string, data Value) error {
	err := a.admitStimulus(signal, &data)
	a.ext.stim.admitted = false // a delivery admits it again
	return err
}
