package luabind

import (
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Read-only tables, for games whose agents step on several threads (a Lua
// state per thread): what one agent writes into a module's table would be
// seen by the agents of its own state only, so a run would depend on how
// agents are spread. Freeze makes the scripts' module tables, and the
// tables reachable from them, read-only: writing one is a Lua error at the
// script's line. bt.shared (SetShared) is read-only the same way.
//
// A frozen table keeps its identity (a module's functions still see their
// own table): its entries move to a hidden table that its new metatable's
// __index reads, and __newindex refuses new ones; keys starting with "__"
// stay in place, so that a frozen table still works as a metatable (the
// class pattern Class.__index = Class). Its old metatable moves to the
// hidden table. pairs, ipairs, next, unpack, rawget, #, table.concat and
// table.maxn see through to the entries; table.insert, table.remove,
// table.sort and rawset refuse a frozen table.

// ErrReadOnly is the error of a write into a frozen table.
var ErrReadOnly = errors.New("luabind: read-only table")

// frozenSet is the engine's frozen tables: each one's hidden entries and
// the name errors give it.
type frozenSet struct {
	entries map[*lua.LTable]*lua.LTable
	names   map[*lua.LTable]string
	shared  []*lua.LTable // the tables of the last SetShared, forgotten at the next
}

// Freeze makes every loaded module table of the scripts read-only, with
// the tables reachable from it. Call it after Load (and LoadWorld).
func (e *Engine) Freeze() {
	e.seeThrough()
	skip := e.libTables()
	for _, m := range e.modules.order {
		if t, ok := m.value.(*lua.LTable); ok && m.state == modLoaded {
			e.freeze(t, "module "+m.name, skip, 0)
		}
	}
}

// libTables are tables never frozen: the bt module, the globals and the
// libraries (a module that keeps a reference to them does not own them).
func (e *Engine) libTables() map[*lua.LTable]bool {
	skip := map[*lua.LTable]bool{e.bt: true}
	g := e.L.G.Global
	skip[g] = true
	g.ForEach(func(_, v lua.LValue) {
		if t, ok := v.(*lua.LTable); ok {
			skip[t] = true
		}
	})
	return skip
}

// maxFreezeDepth bounds the nesting Freeze follows.
const maxFreezeDepth = 64

func (e *Engine) freeze(t *lua.LTable, name string, skip map[*lua.LTable]bool, depth int) {
	if skip[t] || depth > maxFreezeDepth {
		return
	}
	if _, done := e.frozen.entries[t]; done {
		return
	}
	L := e.L
	hidden := L.CreateTable(t.MaxN(), 0)
	var keys []lua.LValue
	t.ForEach(func(k, v lua.LValue) {
		if s, ok := k.(lua.LString); ok && strings.HasPrefix(string(s), "__") {
			return
		}
		hidden.RawSet(k, v)
		keys = append(keys, k)
	})
	for _, k := range keys {
		t.RawSet(k, lua.LNil)
	}
	if old, ok := t.Metatable.(*lua.LTable); ok {
		hidden.Metatable = old
	}
	t.Metatable = e.frozenMeta(hidden)
	e.frozen.entries[t] = hidden
	e.frozen.names[t] = name
	hidden.ForEach(func(k, v lua.LValue) {
		if sub, ok := v.(*lua.LTable); ok {
			e.freeze(sub, childName(name, k), skip, depth+1)
		}
	})
}

// frozenMeta is the metatable of a frozen table whose entries are in
// hidden. __metatable protects it: setmetatable cannot undo the freeze.
func (e *Engine) frozenMeta(hidden *lua.LTable) *lua.LTable {
	meta := e.L.CreateTable(0, 4)
	meta.RawSetString("__index", hidden)
	meta.RawSetString("__newindex", e.frozenFns.write)
	meta.RawSetString("__len", e.frozenFns.length)
	meta.RawSetString("__metatable", lua.LString("read-only"))
	return meta
}

// childName names the table at key k of the table name: a.b, a[1].
func childName(name string, k lua.LValue) string {
	if s, ok := k.(lua.LString); ok {
		return name + "." + string(s)
	}
	return fmt.Sprintf("%s[%s]", name, k.String())
}

func keyText(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok {
		return string(s)
	}
	return "[" + k.String() + "]"
}

// entriesOf is the table whose entries t shows: its hidden one when t is
// frozen, else t.
func (e *Engine) entriesOf(v lua.LValue) lua.LValue {
	if t, ok := v.(*lua.LTable); ok {
		if h, ok := e.frozen.entries[t]; ok {
			return h
		}
	}
	return v
}

// frozenFns are the functions frozen tables and the see-through library
// share; made once per engine (seeThrough).
type frozenFns struct {
	write, length *lua.LFunction
}

// seeThrough installs, once, the metamethods of frozen tables and the
// library functions that see through them.
func (e *Engine) seeThrough() {
	if e.frozen.entries != nil {
		return
	}
	e.frozen.entries = map[*lua.LTable]*lua.LTable{}
	e.frozen.names = map[*lua.LTable]string{}
	L := e.L
	e.frozenFns.write = L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.RaiseError("%s: cannot set %s: %s is read-only when agents may step on several threads (run.workers is not 1); keep an agent's data in ctx.memory, ctx.state or ctx.agent",
			ErrReadOnly.Error(), keyText(L.Get(2)), e.frozen.names[t])
		return 0
	})
	e.frozenFns.length = L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(e.entriesOf(L.CheckTable(1)).(*lua.LTable).Len()))
		return 1
	})
	// Arguments replaced by their entries, then the library's own function.
	through := func(tab *lua.LTable, name string) {
		orig, ok := tab.RawGetString(name).(*lua.LFunction)
		if !ok || orig.GFunction == nil {
			return
		}
		tab.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if L.GetTop() >= 1 {
				L.Replace(1, e.entriesOf(L.Get(1)))
			}
			return orig.GFunction(L)
		}))
	}
	refuse := func(tab *lua.LTable, name string) {
		orig, ok := tab.RawGetString(name).(*lua.LFunction)
		if !ok || orig.GFunction == nil {
			return
		}
		tab.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if t, ok := L.Get(1).(*lua.LTable); ok {
				if _, frozen := e.frozen.entries[t]; frozen {
					L.RaiseError("%s: %s cannot change %s: it is read-only when agents may step on several threads (run.workers is not 1)",
						ErrReadOnly.Error(), name, e.frozen.names[t])
				}
			}
			return orig.GFunction(L)
		}))
	}
	g := L.G.Global
	for _, name := range []string{"next", "unpack", "rawget"} {
		through(g, name)
	}
	// ipairs: Lua 5.1's, over the entries (the library's keeps its
	// iterator in an upvalue, which a wrapper cannot reach).
	iter := L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		i := L.CheckInt(2) + 1
		v := t.RawGetInt(i)
		if v == lua.LNil {
			return 0
		}
		L.Push(lua.LNumber(i))
		L.Push(v)
		return 2
	})
	g.RawSetString("ipairs", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.Push(iter)
		L.Push(e.entriesOf(t))
		L.Push(lua.LNumber(0))
		return 3
	}))
	refuse(g, "rawset")
	next := g.RawGetString("next")
	g.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.Push(next)
		L.Push(e.entriesOf(t))
		L.Push(lua.LNil)
		return 3
	}))
	if tab, ok := g.RawGetString("table").(*lua.LTable); ok {
		for _, name := range []string{"concat", "maxn", "getn"} {
			through(tab, name)
		}
		for _, name := range []string{"insert", "remove", "sort"} {
			refuse(tab, name)
		}
	}
}

// SetShared makes v (a table of plain data: nil, booleans, numbers,
// strings and tables of those; from any state) this state's bt.shared: a
// read-only copy, made anew for each call. nil removes bt.shared.
func (e *Engine) SetShared(v lua.LValue) error {
	if e.closed {
		return ErrClosed
	}
	e.seeThrough()
	for _, t := range e.frozen.shared {
		delete(e.frozen.entries, t)
		delete(e.frozen.names, t)
	}
	clear(e.frozen.shared)
	e.frozen.shared = e.frozen.shared[:0]
	if v == lua.LNil {
		e.bt.RawSetString("shared", lua.LNil)
		return nil
	}
	c, err := e.copyShared(v, "shared", 0)
	if err != nil {
		return err
	}
	e.bt.RawSetString("shared", c)
	return nil
}

// copyShared copies plain data into this state, freezing its tables.
func (e *Engine) copyShared(v lua.LValue, path string, depth int) (lua.LValue, error) {
	switch x := v.(type) {
	case *lua.LNilType, lua.LBool, lua.LNumber, lua.LString:
		return v, nil
	case *lua.LTable:
		if depth >= maxFreezeDepth {
			return nil, fmt.Errorf("%w: game.%s nests deeper than %d tables (a cycle?)", ErrScript, path, maxFreezeDepth)
		}
		x = e.entriesOf(x).(*lua.LTable) // a frozen table of the main state reads through
		h := e.L.CreateTable(x.MaxN(), 0)
		var err error
		x.ForEach(func(k, val lua.LValue) {
			if err != nil {
				return
			}
			switch k.(type) {
			case lua.LString, lua.LNumber, lua.LBool:
			default:
				err = fmt.Errorf("%w: game.%s has a %s key; shared data holds plain values only", ErrScript, path, k.Type())
				return
			}
			var cv lua.LValue
			if cv, err = e.copyShared(val, childName(path, k), depth+1); err == nil {
				h.RawSet(k, cv)
			}
		})
		if err != nil {
			return nil, err
		}
		return e.frozenShared(h, "bt."+path), nil
	default:
		return nil, fmt.Errorf("%w: game.%s is a %s; shared data holds nil, booleans, numbers, strings and tables of those", ErrScript, path, v.Type())
	}
}

// frozenShared is a frozen table showing hidden's entries, for bt.shared;
// it is forgotten at the next SetShared.
func (e *Engine) frozenShared(hidden *lua.LTable, name string) *lua.LTable {
	t := e.L.CreateTable(0, 0)
	t.Metatable = e.frozenMeta(hidden)
	e.frozen.entries[t] = hidden
	e.frozen.names[t] = name
	e.frozen.shared = append(e.frozen.shared, t)
	return t
}
