package sdk

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Call is one agent's call of an action, a condition, a scorer or a cancel
// hook: what the runtime sent (agent, rule, parameters, time, the rule's
// state bytes, the declared fields) and what the reply will carry back
// (result, new state bytes, fields to set, effects, a jump).
//
// A Call belongs to one goroutine; it is valid only during the call.
type Call struct {
	Agent    string  // the agent's id
	Rule     string  // the rule's label (a scorer's: the scored child's)
	Name     string  // the action, condition or scorer name
	FirstRun bool    // the cursor has just arrived at the rule
	Time     float64 // the agent's time in seconds
	Dt       float64 // this step's dt
	Params   Params

	kind     CallKind
	state    []byte
	newState []byte
	stateSet bool
	reads    []string
	fields   []Value // the caller's: copied before the first change
	owned    bool    // fields is our copy
	writes   []string
	out      []Value
	// Storage kept from call to call when the dispatcher reuses a Call:
	// for out, and for the copy of fields.
	outBuf, fieldsBuf []Value
	effects           []Effect
	jump              string
	stimuli           []Stimulus // the declared stimuli the agent holds (actions)
}

// reset makes c the call req at site, keeping the storage it holds (outBuf,
// fieldsBuf). Field by field: a composite literal was built aside and
// copied whole, with the collector's barrier over all of it.
func (c *Call) reset(req *Request, site *Site) {
	c.Agent, c.Rule, c.Name = req.Agent, site.Rule, site.Name
	c.FirstRun, c.Time, c.Dt = req.FirstRun, req.Time, req.Dt
	c.Params = Params(site.Params)
	c.kind, c.state, c.fields, c.stimuli = req.Kind, req.State, req.Fields, req.Stimuli
	c.newState, c.stateSet, c.owned = nil, false, false
	c.reads, c.writes, c.out, c.effects, c.jump = nil, nil, nil, nil, ""
}

// State returns the state bytes this action returned last time for this
// rule; empty each time the cursor arrives at the rule.
func (c *Call) State() []byte {
	if c.stateSet {
		return c.newState
	}
	return c.state
}

// SetState sets the rule's state bytes for the next call (saved with the
// agent). The slice is kept: do not change it afterwards.
func (c *Call) SetState(b []byte) {
	c.newState, c.stateSet = b, true
}

// LoadState decodes JSON state bytes into v; empty state leaves v as is.
func (c *Call) LoadState(v any) error {
	b := c.State()
	if len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("sdk: %s %q: state bytes: %w", c.kindWord(), c.Name, err)
	}
	return nil
}

// SaveState encodes v as JSON state bytes.
func (c *Call) SaveState(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("sdk: %s %q: state bytes: %w", c.kindWord(), c.Name, err)
	}
	c.SetState(b)
	return nil
}

// Field returns a declared read field as float64, string or bool; ok is
// false when the agent has no such field (or it is not declared in Reads).
func (c *Call) Field(name string) (v any, ok bool) {
	if f := c.field(name); f != nil {
		return f.Any()
	}
	return nil, false
}

// field is the declared read field name, or nil.
func (c *Call) field(name string) *Value {
	for i, r := range c.reads {
		if r == name && i < len(c.fields) {
			return &c.fields[i]
		}
	}
	return nil
}

// FieldFloat returns a declared field that holds a number.
func (c *Call) FieldFloat(name string) (float64, bool) {
	if f := c.field(name); f != nil && f.Kind == ValueNumber {
		return f.Num, true
	}
	return 0, false
}

// FieldString returns a declared field that holds a string.
func (c *Call) FieldString(name string) (string, bool) {
	if f := c.field(name); f != nil && f.Kind == ValueString {
		return f.Str, true
	}
	return "", false
}

// FieldBool returns a declared field that holds a boolean.
func (c *Call) FieldBool(name string) (bool, bool) {
	if f := c.field(name); f != nil && f.Kind == ValueBool {
		return f.Bool, true
	}
	return false, false
}

// SetField sets a field declared in Action.Writes to a float64 (or any Go
// integer or float32), a string, a bool, or nil to delete it. Later calls
// of the same Call see the new value through Field when the field is also
// declared in Reads.
func (c *Call) SetField(name string, v any) error {
	idx := -1
	for i, w := range c.writes {
		if w == name {
			idx = i
			break
		}
	}
	if idx < 0 {
		return fmt.Errorf("%w: %s %q cannot set field %q: it is not in its Writes", ErrUndeclaredField, c.kindWord(), c.Name, name)
	}
	val, err := toValue(v)
	if err != nil {
		return fmt.Errorf("sdk: %s %q: field %q: %w", c.kindWord(), c.Name, name, err)
	}
	if c.out == nil {
		if cap(c.outBuf) >= len(c.writes) { // the storage of the reply at this place last batch
			c.out = c.outBuf[:len(c.writes)]
			clearValues(c.out)
		} else {
			c.out = make([]Value, len(c.writes))
		}
	}
	c.out[idx] = val
	for i, r := range c.reads {
		if r == name && i < len(c.fields) {
			if !c.owned {
				c.fields, c.owned = copyValues(c.fieldsBuf[:0], c.fields), true
				c.fieldsBuf = c.fields
			}
			c.fields[i] = val
		}
	}
	return nil
}

// clearValues and copyValues are clear and append for the few values of
// a call, element by element: the bulk forms go through the runtime's
// typed memory functions (the collector's barrier over the whole range),
// several times the cost for one or two values.
func clearValues(vs []Value) {
	for i := range vs {
		vs[i].Kind, vs[i].Num, vs[i].Str, vs[i].Bool = 0, 0, "", false
	}
}

func copyValues(dst, src []Value) []Value {
	for i := range src {
		dst = append(dst, src[i])
	}
	return dst
}

func toValue(v any) (Value, error) {
	switch x := v.(type) {
	case nil:
		return Value{Kind: ValueNil}, nil
	case float64:
		return Value{Kind: ValueNumber, Num: x}, nil
	case float32:
		return Value{Kind: ValueNumber, Num: float64(x)}, nil
	case int:
		return Value{Kind: ValueNumber, Num: float64(x)}, nil
	case int32:
		return Value{Kind: ValueNumber, Num: float64(x)}, nil
	case int64:
		return Value{Kind: ValueNumber, Num: float64(x)}, nil
	case uint32:
		return Value{Kind: ValueNumber, Num: float64(x)}, nil
	case string:
		return Value{Kind: ValueString, Str: x}, nil
	case bool:
		return Value{Kind: ValueBool, Bool: x}, nil
	}
	// reflect.TypeOf, not fmt's %T: v must not escape, so that a caller's
	// number needs no heap box to be passed in.
	return Value{}, fmt.Errorf("a field holds a number, a string, a bool or nil, not %s", reflect.TypeOf(v))
}

// Signal sends a signal to the agent itself, at once.
func (c *Call) Signal(name string) { c.Send("self", name) }

// Send sends a signal to another agent ("self", an agent id, or "all").
func (c *Call) Send(to, name string) {
	c.effects = append(c.effects, Effect{Kind: EffectSignal, Name: name, To: to})
}

// SendData sends a signal carrying data (DataOf converts it: a map, a
// slice, a number, a string, a Data...) to "self", an agent id or "all".
// Data DataOf cannot convert is an error, and nothing is sent; data the
// host refuses (more than 64 KiB once encoded) fails the call there.
func (c *Call) SendData(to, name string, data any) error {
	d, err := DataOf(data)
	if err != nil {
		return fmt.Errorf("sdk: %s %q: signal %q: %w", c.kindWord(), c.Name, name, err)
	}
	c.effects = append(c.effects, Effect{Kind: EffectSignal, Name: name, To: to, Data: d})
	return nil
}

// Stimulus returns the agent's stimulus of a signal the action declares in
// Action.Stimuli: the data of the last such signal it received (Kind
// DataNil when it carried none) and its age in seconds; ok is false when
// the agent holds none (it never received one, forgot it, or it expired)
// or the action does not declare the signal.
func (c *Call) Stimulus(signal string) (data Data, age float64, ok bool) {
	for _, s := range c.stimuli {
		if s.Signal == signal {
			return s.Data, s.Age, true
		}
	}
	return Data{}, 0, false
}

// SetVar sets a declared variable of the agent's tree.
func (c *Call) SetVar(name string, v bool) {
	c.effects = append(c.effects, Effect{Kind: EffectSetVar, Name: name, Flag: v})
}

// SetStamp sets a declared timestamp to the agent's time.
func (c *Call) SetStamp(name string) {
	c.effects = append(c.effects, Effect{Kind: EffectSetStamp, Name: name})
}

// ClearStamp unsets a declared timestamp.
func (c *Call) ClearStamp(name string) {
	c.effects = append(c.effects, Effect{Kind: EffectClearStamp, Name: name})
}

// Graft makes the agent's slot run the game's tree (a [[trees]] name)
// from the next time the slot is entered, as Lua's ctx:graft does. A tree
// that does not fit the agent's makes the call fail.
func (c *Call) Graft(slot, tree string) {
	c.effects = append(c.effects, Effect{Kind: EffectGraft, Name: slot, To: tree})
}

// Ungraft gives the agent's slot back its default tree (or none) from the
// next time it is entered.
func (c *Call) Ungraft(slot string) {
	c.effects = append(c.effects, Effect{Kind: EffectUngraft, Name: slot})
}

// Log writes its arguments to the agent's log (with its id, time and
// rule), formatted with %v and separated by spaces, as Lua's ctx:log writes
// them: c.Log("arrived at", x, y).
func (c *Call) Log(args ...any) {
	msg := fmt.Sprintln(args...)
	c.effects = append(c.effects, Effect{Kind: EffectLog, Name: msg[:len(msg)-1]})
}

// Jump makes the rule with the given id the agent's cursor when the call
// returns (SPEC §2, Jumping): an action that jumps and then finishes has its
// result discarded and the target runs in the same step; one that returns
// Running lets the target run at the next step.
func (c *Call) Jump(id string) { c.jump = id }

func (c *Call) kindWord() string {
	switch c.kind {
	case KindCondition:
		return "condition"
	case KindScorer:
		return "scorer"
	}
	return "action"
}

// changes reports whether the call asked to change the agent.
func (c *Call) changes() bool {
	return c.stateSet || c.out != nil || len(c.effects) > 0 || c.jump != ""
}
