package runtime

import (
	"encoding/binary"
	"math"
	"time"
)

// Typed rule state for people: the live view shows a typed Go action's
// state (TypedAction's S) field by field, rather than as bytes. The bytes
// name and type each field (typed_state.go), so they decode without the
// struct; nothing here runs during a step.

// typedStater is a bound action that keeps typed state.
type typedStater interface{ keepsTypedState() bool }

func (b *typedAction[P, S]) keepsTypedState() bool { return b.codec != nil }

// TypedState is the state the agent's current rule keeps when the rule's
// action is a typed Go action (TypedAction) whose state has fields: a
// table Value of its fields by name, in the struct's order (a duration as
// its text, "1.5s"). ok is false for any other action (a plugin's state
// bytes are the plugin's), and an error says the bytes are not a typed
// state's.
func (a *Agent) TypedState() (v Value, ok bool, err error) {
	if a.bound == nil || a.cursor < 0 || int(a.cursor) >= len(a.bound.rules) {
		return Value{}, false, nil
	}
	br := &a.bound.rules[a.cursor]
	typed := false
	for _, x := range []any{br.action, br.starter, br.canceler} {
		if t, is := x.(typedStater); is && t.keepsTypedState() {
			typed = true
		}
	}
	if !typed {
		return Value{}, false, nil
	}
	v, err = typedStateValue(a.RuleBytes())
	return v, err == nil, err
}

// typedStateValue decodes typed state bytes into a table of their fields;
// no bytes (a rule's first call) is an empty table.
func typedStateValue(b []byte) (Value, error) {
	out := Value{Kind: TableValue, Table: []Field{}}
	if len(b) == 0 {
		return out, nil
	}
	if b[0] != stateFormat {
		return Value{}, errCorruptState
	}
	b = b[1:]
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n+1 {
			return Value{}, errCorruptState
		}
		name := String(string(b[k : k+int(n)]))
		kind := ParamKind(b[k+int(n)])
		b = b[k+int(n)+1:]
		var val Value
		switch kind {
		case ParamNumber:
			if len(b) < 8 {
				return Value{}, errCorruptState
			}
			val, b = Number(math.Float64frombits(binary.LittleEndian.Uint64(b))), b[8:]
		case ParamInteger, ParamDuration:
			x, k := binary.Varint(b)
			if k <= 0 {
				return Value{}, errCorruptState
			}
			val, b = Number(float64(x)), b[k:]
			if kind == ParamDuration {
				val = String(time.Duration(x).String())
			}
		case ParamBool:
			if len(b) < 1 {
				return Value{}, errCorruptState
			}
			val, b = Bool(b[0] != 0), b[1:]
		case ParamString:
			n, k := binary.Uvarint(b)
			if k <= 0 || uint64(len(b)-k) < n {
				return Value{}, errCorruptState
			}
			val, b = String(string(b[k:k+int(n)])), b[k+int(n):]
		default:
			return Value{}, errCorruptState
		}
		out.Table = append(out.Table, Field{Key: name, Val: val})
	}
	return out, nil
}
