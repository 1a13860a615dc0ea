package runtime

import (
	"fmt"
	"math"
	"strings"
)

// bt.variable.set on a typed variable: variable.value is read against the
// variable's type when the tree is bound; variable.add adds to a number.
// Exactly one of the two.

type variableSetTyped struct {
	slot  int32
	value VarValue
}

type variableAdd struct {
	slot int32
	add  float64
}

func hasParam(p Params, name string) bool {
	_, ok := p.Get(name)
	return ok
}

func bindVariableSetTyped(s *Site, slot int32) (Action, error) {
	v := &s.Tree.Vars[slot]
	val, hasVal := s.Params.Get("variable.value")
	add, hasAdd := s.Params.Get("variable.add")
	switch {
	case hasVal && hasAdd:
		return nil, s.Errorf("bt.variable.set: has both %q and %q; expected exactly one", "variable.value", "variable.add")
	case hasAdd:
		if v.Type != VarNumber {
			return nil, s.Errorf("bt.variable.set: %q adds to number variables, and %q is a %s", "variable.add", v.Name, v.Type)
		}
		x, err := parseDecimal(strings.Trim(add, xmlSpace))
		if err != nil {
			return nil, s.Errorf("bt.variable.set: %q: %s", "variable.add", badValueMsg(err))
		}
		return &variableAdd{slot, x}, nil
	case !hasVal:
		return nil, s.Errorf("bt.variable.set: needs parameter %q (a %s) or %q", "variable.value", v.Type, "variable.add")
	}
	x, err := ParseVarValue(v.Type, val)
	if err != nil {
		return nil, s.Errorf("bt.variable.set: %q for %s variable %q: %s", "variable.value", v.Type, v.Name, badValueMsg(err))
	}
	return &variableSetTyped{slot, x}, nil
}

func (x *variableSetTyped) Run(a *Agent, _ Params) (Status, error) {
	return Success, a.SetVarValueAt(x.slot, x.value)
}

func (x *variableAdd) Run(a *Agent, _ Params) (Status, error) {
	sum := math.Float64frombits(a.slab[a.bound.varPlace[x.slot]]) + x.add
	if math.IsInf(sum, 0) {
		return 0, fmt.Errorf("%w: variable %q: adding %s gives a number too large", ErrBadValue, a.bound.Tree.Vars[x.slot].Name, formatNumber(x.add))
	}
	return Success, a.SetVarValueAt(x.slot, NumberVar(sum))
}
