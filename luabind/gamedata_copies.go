package luabind

import (
	"fmt"
	"slices"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// Table-valued fields of a game's agent data (ctx.agent.pos when pos is a
// table): Field hands out a Value, which Lua reads as a table of its own,
// so a write into it (ctx.agent.pos.x = 5) changed that table only and
// was lost without a word. Now the table read is kept for the rest of the
// Lua call (read again, the field gives the same table, writes and all),
// and when the call returns each such table that changed is written back
// with SetField: the write reaches the game's value. A table that cannot be
// written back (a function put in it, or a SetField that refuses it) is an
// error of the call, naming the field, at the script line that read the
// field (where the write is, or near: the write itself leaves no trace in
// a plain table). A table kept past the call (in ctx.memory) is a copy
// from then on.
//
// The cost is paid by table fields only: a call that read none checks one
// slice length.

// dataCopy is a table field handed out during the current call.
type dataCopy struct {
	st   *AgentData
	name string
	t    *lua.LTable
	was  runtime.Value // the table as handed out, to see whether it changed
	at   string        // "FILE:LINE" of the script that read it, for errors
}

// tableField is ctx.agent.NAME for a table-valued field v: the table the
// current call was given already, or a new one kept until the call ends.
func (e *Engine) tableField(L *lua.LState, st *AgentData, name string, v runtime.Value) lua.LValue {
	for _, c := range e.dataCopies {
		if c.st == st && c.name == name {
			return c.t
		}
	}
	lv := e.luaValue(v)
	t, ok := lv.(*lua.LTable)
	if !ok {
		return lv
	}
	was, err := e.ToValue(t, "ctx.agent."+name)
	if err != nil { // a table made from a Value is plain data: cannot happen
		return lv
	}
	at := where(L)
	if _, line, _, ok := splitPosition(at + ": "); !ok || line <= 0 {
		at = "" // read from Go, not from a script's line
	}
	e.dataCopies = append(e.dataCopies, dataCopy{st: st, name: name, t: t, was: was, at: at})
	return t
}

// forgetField drops the table kept for ctx.agent.NAME: an assignment of
// the whole field wins over writes into the table read before it.
func (e *Engine) forgetField(st *AgentData, name string) {
	e.dataCopies = slices.DeleteFunc(e.dataCopies, func(c dataCopy) bool { return c.st == st && c.name == name })
}

// commitFields writes back the table fields the call changed, and forgets
// them all; fn is the function called, for the error's position.
func (e *Engine) commitFields(fn *lua.LFunction) error {
	var first error
	for _, c := range e.dataCopies {
		if first != nil || c.st.game == nil {
			continue
		}
		what := "ctx.agent." + c.name
		v, err := e.ToValue(c.t, what)
		if err == nil && sameValue(v, c.was) {
			continue
		}
		if err == nil {
			err = c.st.game.SetField(c.name, v)
		}
		if err != nil {
			file, line := funcPos(fn) // where the function starts, unless the read's line is known
			if c.at != "" {
				err = fmt.Errorf("%s: %s: writing the table back into the game's data: %w", c.at, what, err)
			} else {
				err = fmt.Errorf("%s: writing the table back into the game's data: %w", what, err)
			}
			first = scriptError(err, ErrScript, file, line)
		}
	}
	clear(e.dataCopies)
	e.dataCopies = e.dataCopies[:0]
	return first
}

// sameValue reports whether two Values are equal, entry by entry in order.
func sameValue(a, b runtime.Value) bool {
	if a.Kind != b.Kind || a.Bool != b.Bool || a.Num != b.Num || a.Str != b.Str || len(a.Table) != len(b.Table) {
		return false
	}
	for i := range a.Table {
		if !sameValue(a.Table[i].Key, b.Table[i].Key) || !sameValue(a.Table[i].Val, b.Table[i].Val) {
			return false
		}
	}
	return true
}
