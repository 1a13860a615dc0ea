package runtime

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"sync"
	"unsafe"
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
// before the call and encoded back after it. The struct is read once, when
// the action is defined: each field's offset, size and kind. Decoding and
// encoding then read and write the fields at their offsets, with no
// reflection: a state of a few numbers costs a few tens of nanoseconds a
// call and no allocation (a string field that changes costs one); an
// action whose S has no fields pays nothing.
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
	off    uintptr // the field's offset in the struct
	size   uintptr // of a number or an integer: 4 or 8, 1, 2, 4 or 8
	signed bool    // an integer's
	name   string
	kind   ParamKind
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
		kind, _, signed := kindOf(f.Type)
		if kind == ParamAny {
			return nil, fmt.Errorf("%w: state field %s is a %s; a rule's state holds numbers, integers, durations, bools and strings", ErrParamDecl, where, f.Type)
		}
		c.fields = append(c.fields, stateField{off: f.Offset, size: f.Type.Size(), signed: signed, name: name, kind: kind})
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

// encode appends the state at p (a *S of the codec's type) to b.
func (c *stateCodec) encode(b []byte, p unsafe.Pointer) []byte {
	b = append(b, stateFormat)
	for i := range c.fields {
		f := &c.fields[i]
		b = binary.AppendUvarint(b, uint64(len(f.name)))
		b = append(b, f.name...)
		b = append(b, byte(f.kind))
		q := unsafe.Add(p, f.off)
		switch f.kind {
		case ParamNumber:
			x := *(*float64)(q)
			if f.size == 4 {
				x = float64(*(*float32)(q))
			}
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		case ParamInteger, ParamDuration:
			var x int64
			if f.signed {
				x = readInt(q, f.size)
			} else {
				x = int64(readUint(q, f.size)) // its bits: decode gives them back
			}
			b = binary.AppendVarint(b, x)
		case ParamBool:
			if *(*bool)(q) {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case ParamString:
			s := *(*string)(q)
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	return b
}

// decode sets the state at p from b: fields b lacks (all of them when b is
// empty, at a rule's first call) get their zero value.
func (c *stateCodec) decode(b []byte, p unsafe.Pointer) error {
	if len(b) == 0 {
		for i := range c.fields {
			c.fields[i].zero(p)
		}
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
		if b, err = c.field(b, kind, f, p); err != nil {
			return err
		}
	}
	for i := range c.fields {
		if i >= 64 || set&(1<<i) == 0 {
			c.fields[i].zero(p)
		}
	}
	return nil
}

var errCorruptState = fmt.Errorf("%w: the rule's typed state bytes are cut short", ErrCorrupt)

// zero sets f's field of the state at p to its zero value.
func (f *stateField) zero(p unsafe.Pointer) {
	q := unsafe.Add(p, f.off)
	switch f.kind {
	case ParamNumber, ParamInteger, ParamDuration:
		writeUint(q, f.size, 0)
	case ParamBool:
		*(*bool)(q) = false
	case ParamString:
		*(*string)(q) = ""
	}
}

// field reads one value of kind from b into f's field of the state at p
// (nil f: a saved field the struct no longer has, skipped) and returns the
// rest of b.
func (c *stateCodec) field(b []byte, kind ParamKind, f *stateField, p unsafe.Pointer) ([]byte, error) {
	var q unsafe.Pointer
	if f != nil {
		q = unsafe.Add(p, f.off)
	}
	switch kind {
	case ParamNumber:
		if len(b) < 8 {
			return nil, errCorruptState
		}
		if f != nil {
			x := math.Float64frombits(binary.LittleEndian.Uint64(b))
			if f.size == 4 {
				*(*float32)(q) = float32(x)
			} else {
				*(*float64)(q) = x
			}
		}
		return b[8:], nil
	case ParamInteger, ParamDuration:
		x, k := binary.Varint(b)
		if k <= 0 {
			return nil, errCorruptState
		}
		switch {
		case f == nil:
		case f.signed:
			writeInt(q, f.size, x)
		default:
			writeUint(q, f.size, uint64(x))
		}
		return b[k:], nil
	case ParamBool:
		if len(b) < 1 {
			return nil, errCorruptState
		}
		if f != nil {
			*(*bool)(q) = b[0] != 0
		}
		return b[1:], nil
	case ParamString:
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, errCorruptState
		}
		s := b[k : k+int(n)]
		if f != nil && *(*string)(q) != string(s) { // allocates only when the text changes
			*(*string)(q) = string(s)
		}
		return b[k+int(n):], nil
	}
	return nil, fmt.Errorf("%w: the rule's typed state has a field of unknown kind %d", ErrCorrupt, kind)
}
