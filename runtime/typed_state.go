package runtime

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"sync"
)

// Typed rule state: a Go action keeps its per-rule state in a struct S
// (TypedAction), and the runtime keeps it for it, per agent and per rule,
// as the rule's state bytes (Agent.RuleBytes): emptied when the cursor
// arrives at the rule, saved and restored with the agent, carried by a hot
// reload while the rule is still there, and kept apart per parallel lane,
// exactly like a plugin's state. So the action never encodes anything by
// hand, and a save holds its state without the save format knowing it.
//
// During a call the state lives in a struct of the Env's (one per state
// type: an Env is used by one goroutine at a time), decoded from the bytes
// before the call and encoded back after it. A state of a few numbers costs
// a few tens of nanoseconds a call and no allocation (a string field that
// changes costs one); an action whose S has no fields pays nothing.
//
// The bytes name each field, so a save stays readable by a build whose
// state struct gained or lost fields: a field the bytes lack starts at its
// zero value, a saved field the struct lacks is dropped. A field whose type
// changed is an error of the step that reads it.

// stateCodec encodes and decodes one state struct type.
type stateCodec struct {
	typ    reflect.Type
	slot   int // the Env's scratch slot of the type (stateSlot)
	fields []stateField
}

type stateField struct {
	index int
	name  string
	kind  ParamKind
}

// stateFormat is the first byte of typed state bytes.
const stateFormat = 1

// declareState reads the fields of S: exported, each a number, integer,
// duration, bool or string (as parameters), named by a `state:"NAME"` tag
// or else the field's name. A struct with no fields gives a nil codec: no
// state to keep.
func declareState[S any]() (*stateCodec, error) {
	t := reflect.TypeFor[S]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: a rule's state is a struct, not a %s", ErrParamDecl, t)
	}
	if t.NumField() == 0 {
		return nil, nil
	}
	c := &stateCodec{typ: t}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		where := t.String() + "." + f.Name
		if !f.IsExported() {
			return nil, fmt.Errorf("%w: state field %s is not exported: every field of a rule's state is saved", ErrParamDecl, where)
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("state"); ok && tag != "" {
			name = tag
		}
		if seen[name] {
			return nil, fmt.Errorf("%w: two fields of %s are saved as %q", ErrParamDecl, t, name)
		}
		seen[name] = true
		kind, _, _ := kindOf(f.Type)
		if kind == ParamAny {
			return nil, fmt.Errorf("%w: state field %s is a %s; a rule's state holds numbers, integers, durations, bools and strings", ErrParamDecl, where, f.Type)
		}
		c.fields = append(c.fields, stateField{index: i, name: name, kind: kind})
	}
	c.slot = stateSlot(t)
	return c, nil
}

// stateSlots gives each state type its own scratch slot in every Env.
var stateSlots struct {
	sync.Mutex
	of map[reflect.Type]int
}

func stateSlot(t reflect.Type) int {
	stateSlots.Lock()
	defer stateSlots.Unlock()
	if stateSlots.of == nil {
		stateSlots.of = map[reflect.Type]int{}
	}
	s, ok := stateSlots.of[t]
	if !ok {
		s = len(stateSlots.of)
		stateSlots.of[t] = s
	}
	return s
}

// typedScratch is an Env's struct for one state type, and the buffer its
// bytes are encoded into.
type typedScratch struct {
	val any // *S
	buf []byte
}

// typedScratch returns the Env's scratch of a state slot.
func (e *Env) typedScratch(slot int) *typedScratch {
	if slot >= len(e.typed) {
		e.typed = append(e.typed, make([]typedScratch, slot+1-len(e.typed))...)
	}
	return &e.typed[slot]
}

// encode appends the state v (a struct of the codec's type) to b.
func (c *stateCodec) encode(b []byte, v reflect.Value) []byte {
	b = append(b, stateFormat)
	for _, f := range c.fields {
		b = binary.AppendUvarint(b, uint64(len(f.name)))
		b = append(b, f.name...)
		b = append(b, byte(f.kind))
		fv := v.Field(f.index)
		switch f.kind {
		case ParamNumber:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(fv.Float()))
		case ParamInteger, ParamDuration:
			x := int64(0)
			if fv.CanInt() {
				x = fv.Int()
			} else {
				x = int64(fv.Uint()) // its bits: decode gives them back
			}
			b = binary.AppendVarint(b, x)
		case ParamBool:
			if fv.Bool() {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case ParamString:
			s := fv.String()
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	return b
}

// decode sets the state v from b: fields b lacks (all of them when b is
// empty, at a rule's first call) get their zero value.
func (c *stateCodec) decode(b []byte, v reflect.Value) error {
	if len(b) == 0 {
		v.SetZero()
		return nil
	}
	if b[0] != stateFormat {
		return fmt.Errorf("the rule's state bytes are not a typed state (format %d)", b[0])
	}
	b = b[1:]
	next := 0 // the field expected next: bytes written by this build come in field order
	var set uint64
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n+1 {
			return errCorruptState
		}
		name := b[k : k+int(n)]
		kind := ParamKind(b[k+int(n)])
		b = b[k+int(n)+1:]
		fi := -1
		if next < len(c.fields) && c.fields[next].name == string(name) { // no allocation: the conversion is compared only
			fi = next
		} else {
			for i := range c.fields {
				if c.fields[i].name == string(name) {
					fi = i
					break
				}
			}
		}
		var f *stateField
		if fi >= 0 {
			f = &c.fields[fi]
			next = fi + 1
			if f.kind != kind {
				return fmt.Errorf("state field %q was saved as a value of kind %s; the state type's field is of kind %s", f.name, kind, f.kind)
			}
			if fi < 64 {
				set |= 1 << fi
			}
		}
		var err error
		if b, err = c.field(b, kind, f, v); err != nil {
			return err
		}
	}
	for i := range c.fields {
		if i >= 64 || set&(1<<i) == 0 {
			v.Field(c.fields[i].index).SetZero()
		}
	}
	return nil
}

var errCorruptState = fmt.Errorf("%w: the rule's typed state bytes are cut short", ErrCorrupt)

// field reads one value of kind from b into f's field of v (nil f: a saved
// field the struct no longer has, skipped) and returns the rest of b.
func (c *stateCodec) field(b []byte, kind ParamKind, f *stateField, v reflect.Value) ([]byte, error) {
	var fv reflect.Value
	if f != nil {
		fv = v.Field(f.index)
	}
	switch kind {
	case ParamNumber:
		if len(b) < 8 {
			return nil, errCorruptState
		}
		if f != nil {
			fv.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}
		return b[8:], nil
	case ParamInteger, ParamDuration:
		x, k := binary.Varint(b)
		if k <= 0 {
			return nil, errCorruptState
		}
		switch {
		case f == nil:
		case fv.CanInt():
			fv.SetInt(x)
		default:
			fv.SetUint(uint64(x))
		}
		return b[k:], nil
	case ParamBool:
		if len(b) < 1 {
			return nil, errCorruptState
		}
		if f != nil {
			fv.SetBool(b[0] != 0)
		}
		return b[1:], nil
	case ParamString:
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, errCorruptState
		}
		s := b[k : k+int(n)]
		if f != nil && fv.String() != string(s) { // allocates only when the text changes
			fv.SetString(string(s))
		}
		return b[k+int(n):], nil
	}
	return nil, fmt.Errorf("%w: the rule's typed state has a field of unknown kind %d", ErrCorrupt, kind)
}
