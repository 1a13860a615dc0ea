package host

import (
	"fmt"

	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
)

// FieldAccess is how the host reads and writes the agent fields a plugin
// declares (docs/plugins.md, "Agent fields"). The host looks for it on the
// agent's user data (runtime.Agent.UserData); the Lua binding's agent
// table implements it (on the game's own data when the game attached
// some). Values are float64, string or bool; SetField with nil deletes the
// field. When the user data does not implement it, the host uses the
// game's data (runtime.Agent.Data) if the agent has some; else every field
// is absent and writes are dropped.
type FieldAccess interface {
	GetField(name string) (any, bool)
	SetField(name string, v any) error
}

// NumberFields is what a user data implements, beside FieldAccess, to have
// number fields read and written as float64 rather than in an interface,
// which costs an allocation per value (Go boxes a float64 to put it in an
// `any`). The Lua binding's agent table implements it. NumberField reports
// false when the field does not hold a number; the host then asks GetField.
type NumberFields interface {
	NumberField(name string) (float64, bool)
	SetNumberField(name string, v float64) error
}

// numberFields is the user data ud as NumberFields when it is also
// FieldAccess (fa, ud asserted), else nil. Asserted from ud itself: an
// assertion from an interface value of static type any is answered by a
// cache at the call site, one from fa (an interface to an interface)
// looked the pair up in the runtime's table every time, some 110
// instructions per call, twice per batched call.
func numberFields(ud any, fa FieldAccess) NumberFields {
	if fa == nil {
		return nil
	}
	nf, _ := ud.(NumberFields)
	return nf
}

// readFields appends the values of the named fields to out.
func readFields(a *runtime.Agent, names []string, out []sdk.Value) []sdk.Value {
	if len(names) == 0 {
		return out
	}
	ud := a.UserData()
	fa, _ := ud.(FieldAccess)
	if fa == nil {
		if d := a.Data(); d != nil {
			return readData(d, names, out)
		}
	}
	nf := numberFields(ud, fa)
	for _, n := range names {
		var v sdk.Value
		if nf != nil {
			if x, ok := nf.NumberField(n); ok {
				out = append(out, sdk.Value{Kind: sdk.ValueNumber, Num: x})
				continue
			}
		}
		if fa != nil {
			if x, ok := fa.GetField(n); ok {
				v = toValue(x)
			}
		}
		out = append(out, v)
	}
	return out
}

// readData appends the named fields of a game's own agent data.
func readData(d runtime.AgentData, names []string, out []sdk.Value) []sdk.Value {
	for _, n := range names {
		var v sdk.Value
		switch x := d.Field(n); x.Kind {
		case runtime.NumberValue:
			v = sdk.Value{Kind: sdk.ValueNumber, Num: x.Num}
		case runtime.StringValue:
			v = sdk.Value{Kind: sdk.ValueString, Str: x.Str}
		case runtime.BoolValue:
			v = sdk.Value{Kind: sdk.ValueBool, Bool: x.Bool}
		}
		out = append(out, v)
	}
	return out
}

// dataAccess is FieldAccess on a game's own agent data, for agents whose
// user data is that data itself (a game without scripts).
type dataAccess struct{ d runtime.AgentData }

func (x dataAccess) GetField(name string) (any, bool) { return x.d.Field(name).Scalar() }

func (x dataAccess) SetField(name string, v any) error {
	rv, ok := runtime.ScalarValue(v)
	if !ok {
		return fmt.Errorf("host: field %q: cannot store a %T", name, v)
	}
	return x.d.SetField(name, rv)
}

func toValue(x any) sdk.Value {
	switch v := x.(type) {
	case float64:
		return sdk.Value{Kind: sdk.ValueNumber, Num: v}
	case string:
		return sdk.Value{Kind: sdk.ValueString, Str: v}
	case bool:
		return sdk.Value{Kind: sdk.ValueBool, Bool: v}
	case int:
		return sdk.Value{Kind: sdk.ValueNumber, Num: float64(v)}
	case int64:
		return sdk.Value{Kind: sdk.ValueNumber, Num: float64(v)}
	case float32:
		return sdk.Value{Kind: sdk.ValueNumber, Num: float64(v)}
	}
	return sdk.Value{} // nil or a type a plugin cannot receive: absent
}

// apply makes a reply's changes to the agent, in this order: fields, state
// bytes (actions), effects in the order sent, the jump (actions; applied by
// the runtime when the call completes).
func (s *site) apply(a *runtime.Agent, rep *sdk.Reply, action bool) error {
	if len(rep.Writes) > 0 {
		ud := a.UserData()
		fa, _ := ud.(FieldAccess)
		nf := numberFields(ud, fa)
		if fa == nil {
			if d := a.Data(); d != nil {
				fa = dataAccess{d}
			}
		}
		for i, w := range rep.Writes {
			if i >= len(s.writes) || w.Kind == sdk.ValueUnset || fa == nil {
				continue
			}
			var err error
			if w.Kind == sdk.ValueNumber && nf != nil {
				err = nf.SetNumberField(s.writes[i], w.Num)
			} else {
				v, _ := w.Any()
				err = fa.SetField(s.writes[i], v)
			}
			if err != nil {
				return s.applyError(fmt.Sprintf("reply cannot set field %q", s.writes[i]), err)
			}
		}
	}
	if action && rep.StateSet {
		a.SetRuleBytes(rep.State)
	}
	for _, e := range rep.Effects {
		var err error
		what := ""
		switch e.Kind {
		case sdk.EffectSignal:
			to := e.To
			if to == "" {
				to = "self"
			}
			what = fmt.Sprintf("reply cannot send signal %q to %q", e.Name, to)
			var data runtime.Value
			if data, err = dataFromSDK(e.Data); err == nil {
				err = a.Send(to, e.Name, data)
			}
		case sdk.EffectSetVar:
			what, err = fmt.Sprintf("reply cannot set variable %q", e.Name), a.SetVar(e.Name, e.Flag)
		case sdk.EffectSetStamp:
			what, err = fmt.Sprintf("reply cannot set timestamp %q", e.Name), a.SetStamp(e.Name)
		case sdk.EffectClearStamp:
			what, err = fmt.Sprintf("reply cannot clear timestamp %q", e.Name), a.ClearStamp(e.Name)
		case sdk.EffectLog:
			a.Log(e.Name)
		case sdk.EffectGraft:
			what, err = fmt.Sprintf("reply cannot graft %q into slot %q", e.To, e.Name), a.Graft(e.Name, e.To)
		case sdk.EffectUngraft:
			what, err = fmt.Sprintf("reply cannot ungraft slot %q", e.Name), a.Ungraft(e.Name)
		default:
			what, err = "reply has an unknown effect", fmt.Errorf("kind %d", e.Kind)
		}
		if err != nil {
			return s.applyError(what, err)
		}
	}
	if rep.Jump != "" {
		if !action {
			return s.applyError("a cancel hook cannot jump", fmt.Errorf("jump to %q", rep.Jump))
		}
		if err := a.Jump(rep.Jump); err != nil {
			return s.applyError(fmt.Sprintf("reply cannot jump to %q", rep.Jump), err)
		}
	}
	return nil
}

func (s *site) applyError(what string, err error) error {
	return newErr(fmt.Sprintf("host: plugin %s: %s: %v", s.p.spec.Name, what, err), ErrCall, err)
}
