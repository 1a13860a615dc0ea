package luabind

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// Saving Lua state (SPEC §6). An agent's host state is a table Value
// {agent = ctx.agent, memory = ctx.memory, state = ctx.state}; the world's
// is whatever its save() returns. Saves hold nil, booleans, numbers,
// strings and tables of those; anything else, and a table reachable twice
// (which would come back as two tables), is an error naming the agent and
// the path, such as memory.target.onHit.
//
// Tables are written in gopher-lua's iteration order (array part, then keys
// in insertion order) and restored in that order, so that pairs() walks a
// restored table as it walked the saved one.

// ErrSave marks Lua state that cannot be saved or restored.
var ErrSave = errors.New("luabind: cannot save")

// BeginSave starts a save of many agents: until EndSave, a table reachable
// from two agents (or from an agent and the world) is an error too.
func (e *Engine) BeginSave() { e.saving = map[*lua.LTable]string{} }

// EndSave ends what BeginSave started.
func (e *Engine) EndSave() { e.saving = nil }

// SaveHost implements runtime.HostState.
func (e *Engine) SaveHost(a *runtime.Agent) (runtime.Value, error) {
	st, err := e.agentData(a)
	if err != nil {
		return runtime.Value{}, err
	}
	c := e.converter("agent " + a.ID())
	host := runtime.Value{Kind: runtime.TableValue}
	add := func(name string, t *lua.LTable) error {
		v, err := c.value(t, name, 0)
		if err != nil {
			return err
		}
		host.Table = append(host.Table, runtime.Field{Key: str(name), Val: v})
		return nil
	}
	if err := add("agent", st.data); err != nil {
		return runtime.Value{}, err
	}
	if err := add("memory", st.memory); err != nil {
		return runtime.Value{}, err
	}
	if t := st.State(); t != nil {
		if err := add("state", t); err != nil {
			return runtime.Value{}, err
		}
	}
	if err := e.saveLanes(a, c, &host); err != nil {
		return runtime.Value{}, err
	}
	return host, nil
}

// CheckHost implements runtime.HostState: it checks a saved host Value has
// the shape SaveHost writes, changing nothing.
func (e *Engine) CheckHost(a *runtime.Agent, v runtime.Value) error {
	if _, err := e.agentData(a); err != nil {
		return err
	}
	_, err := hostParts(v)
	if err != nil {
		return fmt.Errorf("%w: agent %s: %w", runtime.ErrCorrupt, a.ID(), err)
	}
	return nil
}

// RestoreHost implements runtime.HostState. ctx.agent and ctx.memory are
// refilled in place (the world keeps references to ctx.agent tables);
// ctx.state becomes a new table.
func (e *Engine) RestoreHost(a *runtime.Agent, v runtime.Value) error {
	st, err := e.agentData(a)
	if err != nil {
		return err
	}
	parts, err := hostParts(v)
	if err != nil {
		return fmt.Errorf("%w: agent %s: %w", runtime.ErrCorrupt, a.ID(), err)
	}
	e.refill(st.data, parts["agent"])
	e.refill(st.memory, parts["memory"])
	if s, ok := parts["state"]; ok {
		t := e.L.CreateTable(0, len(s.Table))
		e.refill(t, s)
		a.SetRuleValue(t)
		st.state.t, st.state.reuses = t, 0
		st.usesState = true
	}
	if l, ok := parts["lanes"]; ok {
		return e.restoreLanes(st, l)
	}
	return nil
}

// hostParts splits a host Value into its named tables.
func hostParts(v runtime.Value) (map[string]runtime.Value, error) {
	if v.Kind != runtime.TableValue {
		return nil, fmt.Errorf("the saved Lua state is not a table")
	}
	parts := map[string]runtime.Value{}
	for _, f := range v.Table {
		name := f.Key.Str
		if f.Key.Kind != runtime.StringValue || (name != "agent" && name != "memory" && name != "state" && name != "lanes") {
			return nil, fmt.Errorf("unexpected entry %v in the saved Lua state", describe(f.Key))
		}
		if f.Val.Kind != runtime.TableValue {
			return nil, fmt.Errorf("the saved %s is not a table", name)
		}
		if name == "lanes" {
			if err := checkLanes(f.Val); err != nil {
				return nil, err
			}
		}
		parts[name] = f.Val
	}
	if _, ok := parts["agent"]; !ok {
		return nil, fmt.Errorf("the saved Lua state has no agent table")
	}
	if _, ok := parts["memory"]; !ok {
		return nil, fmt.Errorf("the saved Lua state has no memory table")
	}
	return parts, nil
}

// SaveValue calls the world's save() and converts what it returns.
func (w *World) SaveValue() (runtime.Value, error) {
	v, err := w.Save()
	if err != nil {
		return runtime.Value{}, err
	}
	return w.e.converter("world "+w.module).value(v, "save()", 0)
}

// LoadValue gives the world's load(t) a saved value. Without a load hook
// the saved value is ignored.
func (w *World) LoadValue(v runtime.Value) error {
	return w.Load(w.e.luaValue(v))
}

// ToValue converts a Lua value for a save; what names the owner in errors.
func (e *Engine) ToValue(v lua.LValue, what string) (runtime.Value, error) {
	return e.converter(what).value(v, "", 0)
}

// FromValue makes a Lua value of a saved Value.
func (e *Engine) FromValue(v runtime.Value) lua.LValue { return e.luaValue(v) }

type converter struct {
	owner string
	seen  map[*lua.LTable]string // tables of this owner and path
	all   map[*lua.LTable]string // tables of every owner in this save (BeginSave)
}

func (e *Engine) converter(owner string) *converter {
	return &converter{owner: owner, seen: map[*lua.LTable]string{}, all: e.saving}
}

// maxSaveDepth bounds nesting, as the save reader does.
const maxSaveDepth = 100

func (c *converter) fail(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s: %s", ErrSave, c.owner, path, fmt.Sprintf(format, args...))
}

func (c *converter) value(v lua.LValue, path string, depth int) (runtime.Value, error) {
	switch v := v.(type) {
	case *lua.LNilType:
		return runtime.Value{}, nil
	case lua.LBool:
		return runtime.Value{Kind: runtime.BoolValue, Bool: bool(v)}, nil
	case lua.LNumber:
		return runtime.Value{Kind: runtime.NumberValue, Num: float64(v)}, nil
	case lua.LString:
		return str(string(v)), nil
	case *lua.LTable:
		if depth >= maxSaveDepth {
			return runtime.Value{}, c.fail(path, "tables nested deeper than %d", maxSaveDepth)
		}
		if other, ok := c.seen[v]; ok {
			return runtime.Value{}, c.fail(path, "the table is also at %s; a table reachable twice would come back as two tables", other)
		}
		if other, ok := c.all[v]; ok {
			return runtime.Value{}, c.fail(path, "the table is also reachable from %s; a table shared between agents or the world would come back as separate tables", other)
		}
		c.seen[v] = path
		if c.all != nil {
			c.all[v] = c.owner + " " + path
		}
		out := runtime.Value{Kind: runtime.TableValue}
		var err error
		for k, val := v.Next(lua.LNil); k != lua.LNil && err == nil; k, val = v.Next(k) {
			var kv, vv runtime.Value
			switch k.(type) {
			case lua.LString, lua.LNumber, lua.LBool:
				kv, _ = c.value(k, path, depth+1)
			default:
				err = c.fail(join(path, k), "a %s used as a key; keys must be strings, numbers or booleans", k.Type())
				continue
			}
			vv, err = c.value(val, join(path, k), depth+1)
			out.Table = append(out.Table, runtime.Field{Key: kv, Val: vv})
		}
		if err != nil {
			return runtime.Value{}, err
		}
		return out, nil
	default:
		return runtime.Value{}, c.fail(path, "a %s cannot be saved; saves hold nil, booleans, numbers, strings and tables of those", v.Type())
	}
}

// join appends a key to a path: memory.target, path[3], path["a b"].
func join(path string, k lua.LValue) string {
	switch k := k.(type) {
	case lua.LString:
		s := string(k)
		if isName(s) {
			if path == "" {
				return s
			}
			return path + "." + s
		}
		return path + "[" + strconv.Quote(s) + "]"
	case lua.LNumber:
		return path + "[" + strconv.FormatFloat(float64(k), 'g', -1, 64) + "]"
	}
	return path + "[" + k.String() + "]"
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func str(s string) runtime.Value { return runtime.Value{Kind: runtime.StringValue, Str: s} }

func describe(v runtime.Value) string {
	switch v.Kind {
	case runtime.StringValue:
		return strconv.Quote(v.Str)
	case runtime.NumberValue:
		return strconv.FormatFloat(v.Num, 'g', -1, 64)
	}
	return "of kind " + strconv.Itoa(int(v.Kind))
}

// luaValue makes a Lua value of a saved Value.
func (e *Engine) luaValue(v runtime.Value) lua.LValue {
	switch v.Kind {
	case runtime.BoolValue:
		return lua.LBool(v.Bool)
	case runtime.NumberValue:
		return lua.LNumber(v.Num)
	case runtime.StringValue:
		return lua.LString(v.Str)
	case runtime.TableValue:
		t := e.L.CreateTable(0, len(v.Table))
		e.fill(t, v)
		return t
	}
	return lua.LNil
}

// refill empties t and gives it v's entries, keeping t's identity.
func (e *Engine) refill(t *lua.LTable, v runtime.Value) {
	var keys []lua.LValue
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		keys = append(keys, k)
	}
	for _, k := range keys {
		t.RawSet(k, lua.LNil)
	}
	e.fill(t, v)
}

func (e *Engine) fill(t *lua.LTable, v runtime.Value) {
	for _, f := range v.Table {
		k := e.luaValue(f.Key)
		if k == lua.LNil {
			continue
		}
		if n, ok := k.(lua.LNumber); ok && math.IsNaN(float64(n)) {
			continue // Lua cannot index by NaN
		}
		t.RawSet(k, e.luaValue(f.Val))
	}
}

var _ runtime.HostState = (*Engine)(nil)
