package runtime

import (
	"fmt"
	"math"
)

// Where typed variables live in an agent. A boolean is bit i of the slab's
// first words, as always; a number takes one slab word (its float64 bits)
// and a vector three, right after the booleans' words; a string is an
// entry of the agent's strs (agentExt). BoundTree.varPlace says where each
// variable is: its bit for a boolean, its first word for a number or a
// vector, its entry for a string. A tree of booleans only has no typed
// words and no strings, and its agents pay nothing for the feature.

// placeVars fixes where each variable's value lives (varPlace), the words
// the typed ones take after the booleans' (typedWords) and the strings'
// defaults (strInit). Called before conditions are bound: comparisons
// read varPlace.
func (b *BoundTree) placeVars() {
	t := b.Tree
	b.varPlace = make([]int32, len(t.Vars))
	base := int32((len(t.Vars) + 63) / 64)
	words := int32(0)
	b.strInit = nil
	for i := range t.Vars {
		switch t.Vars[i].Type {
		case VarBoolean:
			b.varPlace[i] = int32(i)
		case VarNumber:
			b.varPlace[i] = base + words
			words++
		case VarVector:
			b.varPlace[i] = base + words
			words += 3
		case VarString:
			b.varPlace[i] = int32(len(b.strInit))
			b.strInit = append(b.strInit, t.Vars[i].Init.Str)
		}
	}
	b.typedWords = int(words)
}

// initTypedVars writes the typed variables' defaults into a slab laid out
// by layout.
func (b *BoundTree) initTypedVars(slab []uint64) {
	if b.typedWords == 0 {
		return
	}
	for i := range b.Tree.Vars {
		v := &b.Tree.Vars[i]
		w := b.varPlace[i]
		switch v.Type {
		case VarNumber:
			slab[w] = math.Float64bits(v.Init.Num)
		case VarVector:
			slab[w] = math.Float64bits(v.Init.Vec.X)
			slab[w+1] = math.Float64bits(v.Init.Vec.Y)
			slab[w+2] = math.Float64bits(v.Init.Vec.Z)
		}
	}
}

// VarValueAt returns the variable in slot i (Tree.Vars order), of its type.
func (a *Agent) VarValueAt(i int32) VarValue {
	b := a.bound
	switch b.Tree.Vars[i].Type {
	case VarNumber:
		return NumberVar(math.Float64frombits(a.slab[b.varPlace[i]]))
	case VarString:
		return StringVar(a.ext.strs[b.varPlace[i]])
	case VarVector:
		w := b.varPlace[i]
		return VectorVar(math.Float64frombits(a.slab[w]), math.Float64frombits(a.slab[w+1]), math.Float64frombits(a.slab[w+2]))
	}
	return BoolVar(a.VarAt(i))
}

// SetVarValueAt sets the variable in slot i. A value of another type than
// the variable's, or a number that is not finite, is an error (ErrBadValue)
// and changes nothing: nothing is converted.
func (a *Agent) SetVarValueAt(i int32, v VarValue) error {
	d := &a.bound.Tree.Vars[i]
	if err := checkVarValue(d, v); err != nil {
		return fmt.Errorf("runtime: agent %s: %w", a.id, err)
	}
	if v.Type == VarBoolean {
		a.SetVarAt(i, v.Bool)
		return nil
	}
	if a.env.Changes != nil && a.VarValueAt(i).Equal(v) {
		return nil // no change to report
	}
	a.storeTyped(i, v)
	if a.env.Changes != nil {
		if o, ok := a.env.Changes.(VarValueObserver); ok {
			o.VarValueChanged(a, i, v)
		}
	}
	return nil
}

// storeTyped writes a typed variable's value, already checked.
func (a *Agent) storeTyped(i int32, v VarValue) {
	w := a.bound.varPlace[i]
	switch v.Type {
	case VarNumber:
		a.slab[w] = math.Float64bits(v.Num)
	case VarString:
		a.ext.strs[w] = v.Str
	case VarVector:
		a.slab[w] = math.Float64bits(v.Vec.X)
		a.slab[w+1] = math.Float64bits(v.Vec.Y)
		a.slab[w+2] = math.Float64bits(v.Vec.Z)
	}
}

// checkVarValue checks a value against a variable's declaration.
func checkVarValue(d *VarDecl, v VarValue) error {
	if v.Type != d.Type {
		return fmt.Errorf("%w: variable %q is a %s, not a %s", ErrBadValue, d.Name, d.Type, v.Type)
	}
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	if v.Type == VarNumber && bad(v.Num) || v.Type == VarVector && (bad(v.Vec.X) || bad(v.Vec.Y) || bad(v.Vec.Z)) {
		return fmt.Errorf("%w: variable %q takes finite numbers, not %s", ErrBadValue, d.Name, v)
	}
	return nil
}

// VarValue returns a declared variable's value, of its type.
func (a *Agent) VarValue(name string) (VarValue, error) {
	i, err := a.varSlot(name)
	if err != nil {
		return VarValue{}, err
	}
	return a.VarValueAt(i), nil
}

// SetVarValue sets a declared variable; the value must have the variable's
// type (SetVarValueAt).
func (a *Agent) SetVarValue(name string, v VarValue) error {
	i, err := a.varSlot(name)
	if err != nil {
		return err
	}
	return a.SetVarValueAt(i, v)
}

// VarValueObserver is implemented by a ChangeObserver that sees the typed
// variables' changes (number, string, vector): VarValueChanged is called
// with the new value when one changes. Booleans are reported by VarChanged.
type VarValueObserver interface {
	VarValueChanged(a *Agent, slot int32, v VarValue)
}

// applySet applies a signal line's set of a typed variable, or of any
// variable from the signal's data (checkSets has checked the data).
func (a *Agent) applySet(set *SignalSet, data *Value) {
	v := set.Typed
	if set.From != nil {
		d, _ := dataAt(*data, set.From)
		v, _ = VarValueOf(a.bound.Tree.Vars[set.Var].Type, d)
	}
	_ = a.SetVarValueAt(set.Var, v)
}

// checkSets checks that a signal's data fits every variable its lines set
// from it: the value at each path exists and has the variable's type. Data
// that does not fit is the sender's error, and nothing is delivered.
func (a *Agent) checkSets(i int32, data *Value) error {
	s := &a.bound.signals[i]
	if !s.fromData {
		return nil
	}
	for k := range s.sets {
		set := &s.sets[k]
		if set.From == nil {
			continue
		}
		if err := setFits(a.bound.Tree, s.name, set, *data); err != nil {
			return fmt.Errorf("runtime: agent %s: %w", a.id, err)
		}
	}
	return nil
}

// setFits checks data against one signal line that sets a variable from it.
func setFits(t *Tree, signal string, set *SignalSet, data Value) error {
	v := &t.Vars[set.Var]
	d, ok := dataAt(data, set.From)
	if !ok {
		return fmt.Errorf("%w: signal %q sets variable %q from %q (%s), which its data lacks", ErrBadValue, signal, v.Name, joinPath(set.From), set.Pos)
	}
	if _, err := VarValueOf(v.Type, d); err != nil {
		return fmt.Errorf("signal %q sets variable %q from %q (%s): %w", signal, v.Name, joinPath(set.From), set.Pos, err)
	}
	return nil
}

// CheckSignalData checks data sent with a signal to an agent of tree t
// against the tree's signal lines that set variables from it: the error a
// sender gets (a schedule's entry at load, a send at run time) before
// anything is delivered. A signal no line names is always fine.
func CheckSignalData(t *Tree, signal string, data Value) error {
	i, ok := t.SignalIndex(signal)
	if !ok {
		return nil
	}
	for k := range t.Signals[i].Sets {
		set := &t.Signals[i].Sets[k]
		if set.From == nil {
			continue
		}
		if err := setFits(t, signal, set, data); err != nil {
			return err
		}
	}
	return nil
}

func joinPath(p []string) string {
	s := ""
	for i, k := range p {
		if i > 0 {
			s += "."
		}
		s += k
	}
	return s
}

// dataAt walks a path into data: a key of digits only indexes a list from
// 1 (a number key), any other a string key.
func dataAt(d Value, path []string) (Value, bool) {
	for _, k := range path {
		if d.Kind != TableValue {
			return Value{}, false
		}
		n, num := digitsKey(k)
		found := false
		for _, f := range d.Table {
			if num && f.Key.Kind == NumberValue && f.Key.Num == n || !num && f.Key.Kind == StringValue && f.Key.Str == k {
				d, found = f.Val, true
				break
			}
		}
		if !found {
			return Value{}, false
		}
	}
	return d, true
}

// digitsKey reads an all-digit path key as a list index.
func digitsKey(k string) (float64, bool) {
	n := 0.0
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return 0, false
		}
		n = n*10 + float64(k[i]-'0')
	}
	return n, true
}

func setsFromData(sets []SignalSet) bool {
	for k := range sets {
		if sets[k].From != nil {
			return true
		}
	}
	return false
}
