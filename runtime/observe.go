package runtime

import "math"

// ChangeObserver sees what happens to an agent's declared state, in the
// order it happens: each signal the agent receives (declared or not, from
// anyone: the game, another agent, itself, a plugin) and, after it, each
// variable or timestamp whose value that signal, an action or a script
// changes. Setting a variable to the value it has, or clearing an unset
// timestamp, is not a change. It is what a trace needs to show why a branch
// was taken.
//
// Env.Changes holds it; when it is nil, setting variables and timestamps
// and receiving signals cost what they cost without it (one nil check).
// The methods are called on the goroutine that changes the agent, in the
// middle of a step or between steps; slots index Tree.Vars and Tree.Stamps.
type ChangeObserver interface {
	SignalReceived(a *Agent, signal string)
	VarChanged(a *Agent, slot int32, value bool)
	// StampChanged reports a timestamp set (set is true; the agent's
	// StampAt gives the time) or cleared, by itself or by an exclusive
	// partner that was set.
	StampChanged(a *Agent, slot int32, set bool)
}

// Label is the label of rule i: its full id, or TAG@FILE:LINE:COL.
func (t *Tree) Label(i int32) string { return t.Rules[i].Label }

// setVarObserved is SetVarAt with Env.Changes set.
func (a *Agent) setVarObserved(i int32, v bool) {
	if a.VarAt(i) == v {
		return
	}
	a.slab[i>>6] ^= 1 << (i & 63)
	a.env.Changes.VarChanged(a, i, v)
}

// setStampObserved is SetStampAt with Env.Changes set: the partners it
// clears are reported first, then the timestamp itself.
func (a *Agent) setStampObserved(i int32, t float64) {
	base := a.bound.stampBase
	for _, x := range a.bound.stamps[i].exclusive {
		if _, set := a.StampAt(x); set {
			a.slab[base+int(x)] = unsetStamp
			a.env.Changes.StampChanged(a, x, false)
		}
	}
	bits := math.Float64bits(t)
	if a.slab[base+int(i)] == bits {
		return
	}
	a.slab[base+int(i)] = bits
	a.env.Changes.StampChanged(a, i, true)
}

// clearStampObserved is ClearStampAt with Env.Changes set.
func (a *Agent) clearStampObserved(i int32) {
	if _, set := a.StampAt(i); !set {
		return
	}
	a.slab[a.bound.stampBase+int(i)] = unsetStamp
	a.env.Changes.StampChanged(a, i, false)
}
