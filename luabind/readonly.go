package luabind

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

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
// gopher-lua has no read-only tables, and assigning a key a table already
// holds never asks its metatable, so a frozen table keeps its identity (a
// module's functions still see their own table) but holds nothing itself:
// every entry, "__" keys included, moves to a hidden table in the same
// order (pairs walks it as it walked the table), which the frozen table's
// new metatable reads through __index; __newindex refuses every
// assignment. The old metatable's metamethods (__call, __tostring, __eq,
// arithmetic, __len) are copied to the new one, and its __index is reached
// from the hidden table, so a frozen table behaves as before.
//
// gopher-lua reads metamethods raw from a metatable, so a frozen table
// cannot serve as one itself (its __index is hidden): wherever a frozen
// table is a metatable (instances made while loading, found by a walk of
// the state; setmetatable(o, Class) afterwards) its hidden table takes its
// place, and getmetatable answers with the frozen table again. So the
// class pattern (Class.__index = Class) works, and getmetatable(o) ==
// Class still holds.
//
// The library functions that take tables are replaced when the engine is
// made, before any script runs, so that a script keeping one in a local
// (local pairs = pairs) keeps the replacement: pairs, ipairs, next,
// unpack, rawget, #, table.concat, table.maxn and table.getn see through
// to the entries; rawset, table.insert, table.remove, table.sort and
// setmetatable refuse a frozen table. With nothing frozen they cost one
// map look-up more than the library's own.

// ErrReadOnly is the error of a write into a frozen table.
var ErrReadOnly = errors.New("luabind: read-only table")

// frozenSet is the engine's frozen tables.
type frozenSet struct {
	of       map[*lua.LTable]*frozenTable // by frozen table
	byHidden map[*lua.LTable]*lua.LTable  // hidden table -> its frozen table
	shared   []*lua.LTable                // the tables of the last SetShared, forgotten at the next
	copies   map[*lua.LTable]*lua.LTable  // SetShared's scratch: the copy of each table met
}

// frozenTable is what the engine keeps of a frozen table.
type frozenTable struct {
	hidden *lua.LTable // its entries
	meta   *lua.LTable // its metatable, made by the freeze
	// old is the metatable it had (lua.LNil when none): getmetatable shows
	// it, or its __metatable field.
	old lua.LValue
	// Where it was found, for errors: in the entry key of the frozen
	// table parent (key is metaKey for parent's metatable), or a root
	// named name ("module cfg", "bt.shared").
	parent *lua.LTable
	key    lua.LValue
	name   string
}

// metaKey marks a table found as the metatable of its parent.
var metaKey = lua.LString("(metatable)")

// frozenFns are the functions frozen tables share (seeThrough).
type frozenFns struct {
	write, length *lua.LFunction
}

// seeThrough makes the engine's frozen-table bookkeeping and replaces the
// library functions that take tables (see the top of the file). New calls
// it, after every library is open.
func (e *Engine) seeThrough() {
	e.frozen.of = map[*lua.LTable]*frozenTable{}
	e.frozen.byHidden = map[*lua.LTable]*lua.LTable{}
	L := e.L
	e.frozenFns.write = L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.RaiseError("%s: cannot set %s: %s is read-only when agents may step on several threads (run.workers is not 1); keep an agent's data in ctx.memory, ctx.state or ctx.agent",
			ErrReadOnly.Error(), keyText(L.Get(2)), e.frozenName(t))
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
			if t, ok := L.Get(1).(*lua.LTable); ok {
				if f := e.frozen.of[t]; f != nil {
					L.Replace(1, f.hidden)
				}
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
			e.refuseFrozen(L, L.Get(1), name)
			return orig.GFunction(L)
		}))
	}
	g := L.G.Global
	next := g.RawGetString("next")
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
	g.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.Push(next) // the library's: it walks the entries' table itself
		L.Push(e.entriesOf(t))
		L.Push(lua.LNil)
		return 3
	}))
	refuse(g, "rawset")
	e.metatableFns(g)
	if tab, ok := g.RawGetString("table").(*lua.LTable); ok {
		for _, name := range []string{"concat", "maxn", "getn"} {
			through(tab, name)
		}
		for _, name := range []string{"insert", "remove", "sort"} {
			refuse(tab, name)
		}
	}
}

// refuseFrozen raises the read-only error when v is a frozen table that
// the library function name would change.
func (e *Engine) refuseFrozen(L *lua.LState, v lua.LValue, name string) {
	if t, ok := v.(*lua.LTable); ok && e.frozen.of[t] != nil {
		L.RaiseError("%s: %s cannot change %s: it is read-only when agents may step on several threads (run.workers is not 1)",
			ErrReadOnly.Error(), name, e.frozenName(t))
	}
}

// metatableFns replaces getmetatable and setmetatable: a frozen table in a
// metatable's place is its hidden table (see the top of the file), which
// getmetatable shows as the frozen table; a frozen table's own metatable
// is the one it had; setmetatable refuses a frozen table, and, as in Lua
// 5.1, anything but a table.
func (e *Engine) metatableFns(g *lua.LTable) {
	L := e.L
	get, _ := g.RawGetString("getmetatable").(*lua.LFunction)
	set, _ := g.RawGetString("setmetatable").(*lua.LFunction)
	if get == nil || get.GFunction == nil || set == nil || set.GFunction == nil {
		return
	}
	g.RawSetString("getmetatable", L.NewFunction(func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			if f := e.frozen.of[t]; f != nil {
				L.Push(e.shownMetatable(f))
				return 1
			}
		}
		n := get.GFunction(L)
		if mt, ok := L.Get(-1).(*lua.LTable); ok && n == 1 {
			if t := e.frozen.byHidden[mt]; t != nil {
				L.Replace(-1, t)
			}
		}
		return n
	}))
	g.RawSetString("setmetatable", L.NewFunction(func(L *lua.LState) int {
		L.CheckTable(1)
		e.refuseFrozen(L, L.Get(1), "setmetatable")
		L.Replace(2, e.asMetatable(L.Get(2)))
		return set.GFunction(L)
	}))
}

// shownMetatable is what getmetatable gives for a frozen table: its old
// metatable's __metatable field, or the old metatable (frozen too), or nil.
func (e *Engine) shownMetatable(f *frozenTable) lua.LValue {
	old, ok := f.old.(*lua.LTable)
	if !ok {
		return lua.LNil
	}
	if v := e.entriesOf(old).(*lua.LTable).RawGetString("__metatable"); v != lua.LNil {
		return v
	}
	return old
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
	var made []*lua.LTable
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		if skip[w.t] || e.frozen.of[w.t] != nil {
			continue
		}
		f := e.freezeOne(w)
		made = append(made, w.t)
		// Children pushed in reverse, so that the first entry is frozen
		// (and named) first.
		var kids []frozenWork
		it := iterate(f.hidden)
		for k, v := it.next(); k != lua.LNil; k, v = it.next() {
			if sub, ok := v.(*lua.LTable); ok {
				kids = append(kids, frozenWork{t: sub, parent: w.t, key: k})
			}
		}
		if old, ok := f.old.(*lua.LTable); ok {
			kids = append(kids, frozenWork{t: old, parent: w.t, key: metaKey})
		}
		for i := len(kids) - 1; i >= 0; i-- {
			work = append(work, kids[i])
		}
	}
	for _, t := range made {
		e.copyMetamethods(e.frozen.of[t])
	}
	e.hideFrozenMetatables()
}

// frozenWork is a table for Freeze to freeze, with where it was found.
type frozenWork struct {
	t      *lua.LTable
	parent *lua.LTable
	key    lua.LValue
	name   string
}

// freezeOne moves t's entries to a hidden table, in pairs order, and gives
// t the metatable of a frozen table.
func (e *Engine) freezeOne(w frozenWork) *frozenTable {
	t := w.t
	L := e.L
	hidden := L.CreateTable(t.MaxN(), 0)
	// The removed keys that t's key list still holds go over too, so that
	// a save of the entries is the save of t.
	it := iterateAll(t)
	for k, v := it.next(); k != lua.LNil; k, v = it.next() {
		if v == lua.LNil {
			hidden.RawSet(k, lua.LTrue)
		}
		hidden.RawSet(k, v)
	}
	clearTable(t)
	f := &frozenTable{hidden: hidden, old: t.Metatable, parent: w.parent, key: w.key, name: w.name}
	if f.old == nil {
		f.old = lua.LNil
	}
	hidden.Metatable = f.old // its __index still answers what the entries do not
	f.meta = e.frozenMeta(hidden)
	t.Metatable = f.meta
	e.frozen.of[t] = f
	e.frozen.byHidden[hidden] = t
	return f
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

// frozenMeta is the metatable of a frozen table whose entries are in
// hidden. __metatable keeps the library's setmetatable away from it (the
// engine's refuses frozen tables first).
func (e *Engine) frozenMeta(hidden *lua.LTable) *lua.LTable {
	meta := e.L.CreateTable(0, 4)
	meta.RawSetString("__index", hidden)
	meta.RawSetString("__newindex", e.frozenFns.write)
	meta.RawSetString("__len", e.frozenFns.length)
	meta.RawSetString("__metatable", lua.LString("read-only"))
	return meta
}

// copyMetamethods gives a frozen table's metatable the metamethods of the
// one it had (whose entries are hidden by now, if it was frozen too), but
// for the ones the freeze owns: reads, writes and getmetatable.
func (e *Engine) copyMetamethods(f *frozenTable) {
	old, ok := f.old.(*lua.LTable)
	if !ok {
		return
	}
	it := iterate(e.entriesOf(old).(*lua.LTable))
	for k, v := it.next(); k != lua.LNil; k, v = it.next() {
		s, ok := k.(lua.LString)
		if !ok || !strings.HasPrefix(string(s), "__") {
			continue
		}
		switch s {
		case "__index", "__newindex", "__metatable":
		default:
			f.meta.RawSet(k, v)
		}
	}
}

// hideFrozenMetatables walks everything the state can reach and puts the
// hidden table of a frozen table wherever the frozen table is a metatable:
// gopher-lua reads metamethods raw, and the frozen table holds none.
func (e *Engine) hideFrozenMetatables() {
	seen := map[unsafe.Pointer]bool{}
	var todo []lua.LValue
	add := func(v lua.LValue) {
		if v != nil {
			todo = append(todo, v)
		}
	}
	e.memoryRoots(add)
	for len(todo) > 0 {
		v := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		switch v := v.(type) {
		case *lua.LTable:
			if seen[unsafe.Pointer(v)] {
				continue
			}
			seen[unsafe.Pointer(v)] = true
			v.Metatable = e.asMetatable(v.Metatable)
			add(v.Metatable)
			it := iterate(v)
			for k, val := it.next(); k != lua.LNil; k, val = it.next() {
				add(k)
				add(val)
			}
		case *lua.LFunction:
			if seen[unsafe.Pointer(v)] {
				continue
			}
			seen[unsafe.Pointer(v)] = true
			add(v.Env)
			for _, uv := range v.Upvalues {
				if uv != nil {
					add(uv.Value())
				}
			}
		case *lua.LUserData:
			if seen[unsafe.Pointer(v)] {
				continue
			}
			seen[unsafe.Pointer(v)] = true
			v.Metatable = e.asMetatable(v.Metatable)
			add(v.Metatable)
			add(v.Env)
		}
	}
}

// asMetatable is what stands in a metatable's place for mt: its hidden
// table when mt is frozen, else mt.
func (e *Engine) asMetatable(mt lua.LValue) lua.LValue {
	if t, ok := mt.(*lua.LTable); ok {
		if f := e.frozen.of[t]; f != nil {
			return f.hidden
		}
	}
	return mt
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

// entriesOf is the table whose entries t shows: its hidden one when t is
// frozen, else t.
func (e *Engine) entriesOf(v lua.LValue) lua.LValue {
	if t, ok := v.(*lua.LTable); ok {
		if f := e.frozen.of[t]; f != nil {
			return f.hidden
		}
	}
	return v
}

// SetShared makes v (a table of plain data: nil, booleans, numbers,
// strings and tables of those; from any state) this state's bt.shared: a
// read-only copy, made anew for each call. nil removes bt.shared.
func (e *Engine) SetShared(v lua.LValue) error {
	if e.closed {
		return ErrClosed
	}
	for _, t := range e.frozen.shared {
		delete(e.frozen.byHidden, e.frozen.of[t].hidden)
		delete(e.frozen.of, t)
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
		h := e.L.CreateTable(0, 0)
		c := e.frozenShared(h, "bt."+path)
		copies[x] = c
		src := e.entriesOf(x).(*lua.LTable) // a frozen table of the main state reads through
		it := iterate(src)
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
			h.RawSet(k, cv)
		}
		return c, nil
	default:
		return nil, fmt.Errorf("%w: game.%s is a %s; shared data holds nil, booleans, numbers, strings and tables of those", ErrScript, path, v.Type())
	}
}

// maxSharedDepth bounds the nesting of game.shared that SetShared copies
// (it recurses).
const maxSharedDepth = 200

// frozenShared is a frozen table showing hidden's entries, for bt.shared;
// it is forgotten at the next SetShared.
func (e *Engine) frozenShared(hidden *lua.LTable, name string) *lua.LTable {
	t := e.L.CreateTable(0, 0)
	f := &frozenTable{hidden: hidden, old: lua.LNil, name: name}
	f.meta = e.frozenMeta(hidden)
	t.Metatable = f.meta
	e.frozen.of[t] = f
	e.frozen.byHidden[hidden] = t
	e.frozen.shared = append(e.frozen.shared, t)
	return t
}
