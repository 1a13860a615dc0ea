package runtime

import (
	"fmt"
	"unicode/utf8"

	"github.com/btrun/btrun/runtime/savecodec"
)

// AgentData is a game's own data for one agent, kept in the game's Go
// values rather than in Lua tables: a Go game that embeds btrun implements
// it over its unit structs, and then Lua's ctx.agent, the agent fields of
// plugins and Go actions (Agent.Data) all read and write the game's values
// directly, with nothing mirrored by hand. Without one, ctx.agent is a Lua
// table (the default, which costs nothing new).
//
// Fields are named values: numbers, strings and booleans (Lua's ctx.agent.x
// and a plugin's field "x"); a table Value reads in Lua as a table whose
// changes a Lua call makes are given back to SetField when it returns. Field
// returns a Value of Kind NilValue for a field the agent does not have.
// SetField with a NilValue removes a field, where that means something;
// an error refuses the write (a Lua error at the script line, a plugin
// call's error).
//
// A save holds what MarshalBinary returns (and a hot reload carries it the
// same way); a restore gives those bytes back to UnmarshalBinary of the
// agent's data, which the game attached before the restore. A save holds
// them as text: they must be valid UTF-8 (JSON, or base64 of binary data),
// else the save is refused. Data that the game saves itself may return nil
// and ignore what it is given. (A struct made agent data by DeclareData
// needs none of these methods.)
//
// The methods are called on the goroutine that steps the agent (with
// workers, the agent's worker), never concurrently for one agent.
type AgentData interface {
	Field(name string) Value
	SetField(name string, v Value) error
	MarshalBinary() ([]byte, error)
	UnmarshalBinary(data []byte) error
}

// DataHolder is a host's per-agent value (Agent.UserData) that holds the
// game's AgentData beside its own state: the Lua binding's does.
type DataHolder interface {
	GameData() AgentData
}

// Data is the game's data of the agent: the AgentData the host attached
// (as the agent's UserData, or held by its UserData), or nil.
func (a *Agent) Data() AgentData {
	switch v := a.UserData().(type) {
	case AgentData:
		return v
	case DataHolder:
		return v.GameData()
	}
	return nil
}

// Number is a number Value; String, Bool likewise. Shorthands for the
// values AgentData's fields hold.
func Number(x float64) Value { return Value{Kind: NumberValue, Num: x} }

// String is a string Value.
func String(s string) Value { return Value{Kind: StringValue, Str: s} }

// Bool is a boolean Value.
func Bool(b bool) Value { return Value{Kind: BoolValue, Bool: b} }

// agentDataKey is the one entry of the saved data table: the bytes
// MarshalBinary returned.
const agentDataKey = "go"

// EncodeData writes a game's agent data as the table {go = BYTES}, which a
// host saves as the entry "data" of its state (where luabind saves
// ctx.agent's table as the entry "agent" when the agent has no AgentData).
func EncodeData(e *savecodec.Encoder, a *Agent, d AgentData) error {
	b, err := d.MarshalBinary()
	if err != nil {
		return fmt.Errorf("runtime: agent %s: saving its game data: %w", a.ID(), err)
	}
	if !utf8.Valid(b) { // a save's strings are UTF-8: refused now, or the save would not load
		return fmt.Errorf("runtime: agent %s: saving its game data: %T.MarshalBinary returned bytes that are not valid UTF-8; a save holds them as text (use JSON, or base64)", a.ID(), d)
	}
	m := e.BeginTable()
	e.ValueString(agentDataKey)
	e.ValueString(string(b))
	e.EndTable(m, 1)
	return nil
}

// IsDataTable reports whether a saved table v is game data (EncodeData's
// {go = BYTES}) and returns the bytes.
func IsDataTable(v Value) ([]byte, bool) {
	if v.Kind != TableValue || len(v.Table) != 1 {
		return nil, false
	}
	f := v.Table[0]
	if f.Key.Kind != StringValue || f.Key.Str != agentDataKey || f.Val.Kind != StringValue {
		return nil, false
	}
	return []byte(f.Val.Str), true
}

// DataHost is the HostState of a game whose agents keep no state in a
// script engine: it saves each agent's AgentData (Agent.Data) as the table
// {data = {go = BYTES}}, as the Lua binding saves the same data.
// Agents without AgentData save nil.
type DataHost struct{}

func (DataHost) EncodeHost(e *savecodec.Encoder, a *Agent) error {
	d := a.Data()
	if d == nil {
		e.ValueNil()
		return nil
	}
	m := e.BeginTable()
	e.ValueString("data")
	if err := EncodeData(e, a, d); err != nil {
		return err
	}
	e.EndTable(m, 1)
	return nil
}

func (DataHost) CheckHost(a *Agent, d *savecodec.Decoder) error {
	_, err := dataOf(a, DecodeValue(d))
	return err
}

func (DataHost) RestoreHost(a *Agent, d *savecodec.Decoder) error {
	b, err := dataOf(a, DecodeValue(d))
	if err != nil || b == nil {
		return err
	}
	if err := a.Data().UnmarshalBinary(b); err != nil {
		return fmt.Errorf("runtime: agent %s: restoring its game data: %w", a.ID(), err)
	}
	return nil
}

// dataOf checks a saved host Value against the agent: game data bytes for
// an agent with AgentData (nil bytes when neither has any).
func dataOf(a *Agent, v Value) ([]byte, error) {
	has := a.Data() != nil
	if v.Kind == NilValue && !has {
		return nil, nil
	}
	if v.Kind == TableValue && len(v.Table) == 1 && v.Table[0].Key.Kind == StringValue && v.Table[0].Key.Str == "data" {
		if b, ok := IsDataTable(v.Table[0].Val); ok {
			if !has {
				return nil, fmt.Errorf("%w: agent %s: the save holds game data (AgentData) for it, and it has none", ErrCorrupt, a.ID())
			}
			return b, nil
		}
	}
	if !has {
		return nil, fmt.Errorf("%w: agent %s: the save holds a script engine's state for it, and this game has none", ErrCorrupt, a.ID())
	}
	return nil, fmt.Errorf("%w: agent %s: the save holds no game data (AgentData) for it", ErrCorrupt, a.ID())
}

// Scalar is v as a Go value when it is a number (float64), a string or a
// boolean; false for nil and tables. (The plugin host and the Lua binding
// hand fields to code that takes Go values this way.)
func (v Value) Scalar() (any, bool) {
	switch v.Kind {
	case NumberValue:
		return v.Num, true
	case StringValue:
		return v.Str, true
	case BoolValue:
		return v.Bool, true
	}
	return nil, false
}

// ScalarValue is the Value of a Go number (any integer or float type, as
// a number), string or boolean; nil is the nil Value. Other types report
// false.
func ScalarValue(x any) (Value, bool) {
	switch x := x.(type) {
	case nil:
		return Value{}, true
	case float64:
		return Number(x), true
	case float32:
		return Number(float64(x)), true
	case int:
		return Number(float64(x)), true
	case int8:
		return Number(float64(x)), true
	case int16:
		return Number(float64(x)), true
	case int32:
		return Number(float64(x)), true
	case int64:
		return Number(float64(x)), true
	case uint:
		return Number(float64(x)), true
	case uint8:
		return Number(float64(x)), true
	case uint16:
		return Number(float64(x)), true
	case uint32:
		return Number(float64(x)), true
	case uint64:
		return Number(float64(x)), true
	case string:
		return String(x), true
	case bool:
		return Bool(x), true
	}
	return Value{}, false
}
