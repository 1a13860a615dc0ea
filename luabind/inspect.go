package luabind

import (
	"math"
	"unicode/utf8"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// Inspecting Lua values for people (btrun's live view shows ctx.memory,
// ctx.state and ctx.agent). Unlike a save, inspecting never fails: a value a
// save cannot hold (a function, a userdata, a table met again on its own
// path) is shown as what it is, and big values are cut to a budget, so that
// a watcher's request stays small and quick whatever a script keeps.
//
// The result is plain Go data that encoding/json writes as:
//
//	nil, true, 12.5, "text"        nil, booleans, finite numbers, strings
//	{"number": "nan"}              also "inf" and "-inf"
//	{"string": "...", "length": N} a string longer than InspectMaxString bytes, cut
//	{"table": [[K, V], ...]}       a table's entries in iteration order (pairs);
//	                               "more": N when N entries were cut
//	{"cycle": true}                a table met again inside itself
//	{"lua": "function"}            a value of another type (function, userdata, thread, channel)
//	{"go": "..."}                  ctx.agent when it is the game's own data (AttachData)

// InspectMaxString is the length beyond which Inspect cuts strings.
const InspectMaxString = 1000

// inspectMaxDepth bounds nesting: deeper tables are cut.
const inspectMaxDepth = 32

// Inspect converts v for people, with at most budget values (a table, and
// each key and value in it, count one each); budget ≤ 0 means 2,000.
func Inspect(v lua.LValue, budget int) any {
	if budget <= 0 {
		budget = 2000
	}
	in := inspector{left: budget, open: map[*lua.LTable]bool{}}
	return in.value(v, 0)
}

// InspectAgent returns the agent's ctx.agent, ctx.memory and ctx.state as
// Inspect shows them (state is nil when no Lua call was made since the
// cursor arrived at its rule); budget is shared by the three. An agent the
// engine does not know (not attached) has none of them.
func (e *Engine) InspectAgent(a *runtime.Agent, budget int) (agent, memory, state any) {
	st, ok := a.UserData().(*AgentData)
	if !ok || st.e != e {
		return nil, nil, nil
	}
	if budget <= 0 {
		budget = 2000
	}
	in := inspector{left: budget, open: map[*lua.LTable]bool{}}
	if st.game != nil {
		agent = map[string]any{"go": "the game's own data (AgentData)"} // its fields are the game's to list
	} else {
		agent = in.value(st.data, 0)
	}
	memory = in.value(st.memory, 0)
	if s := st.State(); s != nil {
		state = in.value(s, 0)
	} else {
		// ctx.state is a table for the rule the agent is at, empty until a
		// script writes to it; the agent is handed its table when its scripts
		// first read it (a restored agent later than the original), which is
		// no difference to show.
		state = map[string]any{"table": [][2]any{}}
	}
	return agent, memory, state
}

type inspector struct {
	left int                  // values still allowed
	open map[*lua.LTable]bool // tables on the path being walked (cycles)
}

func (in *inspector) value(v lua.LValue, depth int) any {
	in.left--
	switch v := v.(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		return bool(v)
	case lua.LNumber:
		f := float64(v)
		switch {
		case math.IsNaN(f):
			return map[string]any{"number": "nan"}
		case math.IsInf(f, 1):
			return map[string]any{"number": "inf"}
		case math.IsInf(f, -1):
			return map[string]any{"number": "-inf"}
		}
		return f
	case lua.LString:
		s := string(v)
		if len(s) <= InspectMaxString {
			return s
		}
		cut := InspectMaxString
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return map[string]any{"string": s[:cut], "length": len(s)}
	case *lua.LTable:
		return in.table(v, depth)
	}
	return map[string]any{"lua": v.Type().String()}
}

func (in *inspector) table(t *lua.LTable, depth int) any {
	if in.open[t] {
		return map[string]any{"cycle": true}
	}
	in.open[t] = true
	defer delete(in.open, t)
	entries := [][2]any{}
	more := 0
	it := iterate(t)
	for k, v := it.next(); k != lua.LNil; k, v = it.next() {
		if in.left <= 0 || depth >= inspectMaxDepth {
			more++
			continue
		}
		key := in.value(k, depth+1)
		entries = append(entries, [2]any{key, in.value(v, depth+1)})
	}
	out := map[string]any{"table": entries}
	if more > 0 {
		out["more"] = more
	}
	return out
}
