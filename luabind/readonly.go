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
// tables reachable from them (their entries, their metatables and what
// those reach, however deep), read-only: writing one is a Lua error at the
// script's line. bt.shared (SetShared) is read-only the same way.
//
// A frozen table keeps its entries, its metatable and its identity: it is
// marked read-only (gopher-lua patch "readonly", third_party/PATCHES.md),
// so reading it is a plain table read, and the VM refuses every write of a
// script into it, raising the error of readOnlyWrite at the script's line.
// (It used to be an empty proxy whose metatable's __index held the entries:
// every read of a module's field or of bt.shared was a miss and a metatable
// look-up, and the library functions that take tables had to see through
// it.) The library functions that write tables without the VM are
// replaced when the engine is made, before any script runs, so that a
// script keeping one in a local (local insert = table.insert) keeps the
// replacement: rawset, table.insert, table.remove, table.sort and
// setmetatable refuse a frozen table. With nothing frozen they cost one
// flag test more than the library's own.

// ErrReadOnly is the error of a write into a frozen table.
var ErrReadOnly = errors.New("luabind: read-only table")

// frozenSet is the engine's frozen tables, kept to name them in errors.
type frozenSet struct {
	of     map[*lua.LTable]*frozenTable // by frozen table
	shared []*lua.LTable                // the tables of the last SetShared, forgotten at the next
	copies map[*lua.LTable]*lua.LTable  // SetShared's scratch: the copy of each table met
}

// frozenTable is where a frozen table was found, for errors: in the entry
// key of the frozen table parent (key is metaKey for parent's metatable),
// or a root named name ("module cfg", "bt.shared").
type frozenTable struct {
	parent *lua.LTable
	key    lua.LValue
	name   string
	params bool // a rule's params (params.go)
}

// metaKey marks a table found as the metatable of its parent.
var metaKey = lua.LString("(metatable)")

// guardWrites makes the engine's frozen-table bookkeeping, gives the state
// the error of a write into a frozen table and replaces the library
// functions that write tables (see the top of the file). New calls it,
// after every library is open.
func (e *Engine) guardWrites() {
	e.frozen.of = map[*lua.LTable]*frozenTable{}
	L := e.L
	L.SetReadOnlyHandler(e.readOnlyWrite)
	refuse := func(tab *lua.LTable, name string) {
		orig, ok := tab.RawGetString(name).(*lua.LFunction)
		if !ok || orig.GFunction == nil {
			return
		}
		tab.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			e.refuseFrozen(L, L.Get(1), name)
			return orig.GFunction(L)
		}))
	}
	g := L.G.Global
	refuse(g, "rawset")
	if set, _ := g.RawGetString("setmetatable").(*lua.LFunction); set != nil && set.GFunction != nil {
		// As in Lua 5.1, setmetatable takes a table only.
		g.RawSetString("setmetatable", L.NewFunction(func(L *lua.LState) int {
			L.CheckTable(1)
			e.refuseFrozen(L, L.Get(1), "setmetatable")
			return set.GFunction(L)
		}))
	}
	if tab, ok := g.RawGetString("table").(*lua.LTable); ok {
		for _, name := range []string{"insert", "remove", "sort"} {
			refuse(tab, name)
		}
	}
}

// readOnlyWrite is the error of a script's write of key into the frozen
// table t (the VM calls it: gopher-lua patch "readonly").
func (e *Engine) readOnlyWrite(L *lua.LState, t *lua.LTable, key lua.LValue) {
	if f := e.frozen.of[t]; f != nil && f.params {
		if _, ok := key.(lua.LString); !ok { // params[1], not params["1"]
			L.RaiseError("params are read-only (params[%s] = ...)", key.String())
		}
		L.RaiseError("params are read-only (params[%q] = ...)", lua.LVAsString(key))
	}
	L.RaiseError("%s: cannot set %s: %s is read-only when agents may step on several threads (run.workers is not 1); keep an agent's data in ctx.memory, ctx.state or ctx.agent",
		ErrReadOnly.Error(), keyText(key), e.frozenName(t))
}

// refuseFrozen raises the read-only error when v is a frozen table that
// the library function name would change.
func (e *Engine) refuseFrozen(L *lua.LState, v lua.LValue, name string) {
	if t, ok := v.(*lua.LTable); ok && t.ReadOnly() {
		if f := e.frozen.of[t]; f != nil && f.params {
			// params are read-only with one worker too: not the workers' reason
			L.RaiseError("params are read-only (%s cannot change %s)", name, f.name)
		}
		L.RaiseError("%s: %s cannot change %s: it is read-only when agents may step on several threads (run.workers is not 1)",
			ErrReadOnly.Error(), name, e.frozenName(t))
	}
}

// Freeze makes every loaded module table of the scripts read-only, with
// the tables reachable from it. Call it after Load (and LoadWorld).
func (e *Engine) Freeze() {
	skip := e.libTables()
	var work []frozenWork
	for _, m := range e.modules.order {
		if t, ok := m.value.(*lua.LTable); ok && m.state == modLoaded {
			work = append(work, frozenWork{t: t, name: "module " + m.name})
		}
	}
	// A list, not recursion: tables nest as deep as a script makes them.
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		if skip[w.t] || e.frozen.of[w.t] != nil {
			continue
		}
		w.t.SetReadOnly(true)
		e.frozen.of[w.t] = &frozenTable{parent: w.parent, key: w.key, name: w.name}
		// Children pushed in reverse, so that the first entry is frozen
		// (and named) first.
		var kids []frozenWork
		it := iterate(w.t)
		for k, v := it.next(); k != lua.LNil; k, v = it.next() {
			if sub, ok := v.(*lua.LTable); ok {
				kids = append(kids, frozenWork{t: sub, parent: w.t, key: k})
			}
		}
		if mt, ok := w.t.Metatable.(*lua.LTable); ok {
			kids = append(kids, frozenWork{t: mt, parent: w.t, key: metaKey})
		}
		for i := len(kids) - 1; i >= 0; i-- {
			work = append(work, kids[i])
		}
	}
}

// frozenWork is a table for Freeze to freeze, with where it was found.
type frozenWork struct {
	t      *lua.LTable
	parent *lua.LTable
	key    lua.LValue
	name   string
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

// frozenName names a frozen table for errors: the module or bt.shared it
// was found in and the path from there (module cfg.posts[1]); a long path
// keeps its two ends.
func (e *Engine) frozenName(t *lua.LTable) string {
	var keys []lua.LValue
	root := "a read-only table"
	for f := e.frozen.of[t]; f != nil; f = e.frozen.of[f.parent] {
		if f.parent == nil {
			root = f.name
			break
		}
		keys = append(keys, f.key)
	}
	const ends = 8
	var b strings.Builder
	b.WriteString(root)
	for i := len(keys) - 1; i >= 0; i-- {
		if len(keys) > 2*ends && i == len(keys)-1-ends {
			fmt.Fprintf(&b, "...(%d more)...", len(keys)-2*ends)
			i = ends - 1
		}
		b.WriteString(childName("", keys[i]))
	}
	return b.String()
}

// childName names the table at key k of the table name: a.b, a[1], and
// a(metatable) for its metatable.
func childName(name string, k lua.LValue) string {
	if k == metaKey {
		return name + string(metaKey)
	}
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

// SetShared makes v (a table of plain data: nil, booleans, numbers,
// strings and tables of those; from any state) this state's bt.shared: a
// read-only copy, made anew for each call. nil removes bt.shared.
func (e *Engine) SetShared(v lua.LValue) error {
	if e.closed {
		return ErrClosed
	}
	for _, t := range e.frozen.shared {
		delete(e.frozen.of, t) // still read-only: a script may keep it
	}
	clear(e.frozen.shared)
	e.frozen.shared = e.frozen.shared[:0]
	if v == lua.LNil {
		e.bt.RawSetString("shared", lua.LNil)
		return nil
	}
	if e.frozen.copies == nil {
		e.frozen.copies = map[*lua.LTable]*lua.LTable{}
	}
	c, err := e.copyShared(v, "shared", 0, e.frozen.copies)
	clear(e.frozen.copies)
	if err != nil {
		return err
	}
	e.bt.RawSetString("shared", c)
	return nil
}

// copyShared copies plain data into this state, freezing its tables. A
// table met twice (a shared part, a cycle) is copied once: copies is the
// copy of each table met so far.
func (e *Engine) copyShared(v lua.LValue, path string, depth int, copies map[*lua.LTable]*lua.LTable) (lua.LValue, error) {
	switch x := v.(type) {
	case *lua.LNilType, lua.LBool, lua.LNumber, lua.LString:
		return v, nil
	case *lua.LTable:
		if c, ok := copies[x]; ok {
			return c, nil
		}
		if depth >= maxSharedDepth {
			return nil, fmt.Errorf("%w: game.%s nests deeper than %d tables", ErrScript, path, maxSharedDepth)
		}
		c := e.L.CreateTable(0, 0)
		e.frozenShared(c, "bt."+path)
		copies[x] = c
		it := iterate(x)
		for k, val := it.next(); k != lua.LNil; k, val = it.next() {
			switch k.(type) {
			case lua.LString, lua.LNumber, lua.LBool:
			default:
				return nil, fmt.Errorf("%w: game.%s has a %s key; shared data holds plain values only", ErrScript, path, k.Type())
			}
			cv, err := e.copyShared(val, childName(path, k), depth+1, copies)
			if err != nil {
				return nil, err
			}
			c.RawSet(k, cv)
		}
		return c, nil
	default:
		return nil, fmt.Errorf("%w: game.%s is a %s; shared data holds nil, booleans, numbers, strings and tables of those", ErrScript, path, v.Type())
	}
}

// maxSharedDepth bounds the nesting of game.shared that SetShared copies
// (it recurses).
const maxSharedDepth = 200

// frozenShared makes t, a table of bt.shared, read-only; it is forgotten
// (but stays read-only) at the next SetShared.
func (e *Engine) frozenShared(t *lua.LTable, name string) {
	t.SetReadOnly(true)
	e.frozen.of[t] = &frozenTable{name: name}
	e.frozen.shared = append(e.frozen.shared, t)
}
