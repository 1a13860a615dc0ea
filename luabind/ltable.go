package luabind

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Direct access to gopher-lua's tables, for saves and restores of many
// agents. LTable's public methods cost there: Next finds its place again at
// every call with a map look-up of the previous key (saving the example game
// spent half its time in it), ForEach and RawSetString box every string key
// they hand out or add (an allocation each), and a table cannot be emptied
// without leaving every key it ever had in its key list.
//
// tableLayout mirrors LTable's fields; layoutMatches checks once, field by
// field (names, types, offsets), that it still does. Every function here
// falls back to the public methods when it does not, and the tests compare
// both ways (ltable_test.go).

// tableIter walks a table in the order of LTable.Next (the array part, then
// the other keys in the order they were first set), which is the order a
// save must keep.
type tableIter struct {
	t       *lua.LTable
	lay     *tableLayout // nil: use Next
	i       int          // next index in lay.array, then len(array)+index in lay.keys
	prev    lua.LValue   // the Next fallback's last key
	removed bool         // also yield the removed keys the key list holds, with lua.LNil
	// si is where in lay.skeys the next string key most likely is: both
	// lists keep the string keys in the order first set, so a walk finds
	// each key's value at the next place instead of searching skeys for it
	// (a fifth of a save's walk of the tables); searched when it is not.
	si int
}

// tableLayout mirrors lua.LTable of gopher-lua v1.1.2 with this
// repository's patch set (third_party/PATCHES.md).
type tableLayout struct {
	Metatable lua.LValue
	array     []lua.LValue
	dict      map[lua.LValue]lua.LValue
	strdict   map[string]lua.LValue
	keys      []lua.LValue
	k2i       map[lua.LValue]int
	// Patch "smallstr": while strdict is nil, the string keys and their
	// values (lua.LNil for a removed key), in the order first set.
	skeys []string
	svals []lua.LValue
	// Patch "indexcache": the table's "__index" entry, cached when it
	// serves as a metatable; nil (unknown) after any write here.
	metaIdx lua.LValue
	// Patch "readonly": scripts cannot write the table (Freeze, SetShared).
	readOnly bool
}

// smallStrKeys is the patch's smallStrMax: the most string keys a table
// keeps in skeys.
const smallStrKeys = 8

// str is the value of the string key k (lua.LNil when it has none).
func (lay *tableLayout) str(k string) lua.LValue {
	if lay.strdict != nil {
		if v, ok := lay.strdict[k]; ok {
			return v
		}
		return lua.LNil
	}
	for i, s := range lay.skeys {
		if s == k {
			return lay.svals[i]
		}
	}
	return lua.LNil
}

// strAt is str(k) for a walk of the key list whose next string key was
// not at *hint in skeys: *hint moves past k's place.
func (lay *tableLayout) strAt(k string, hint *int) lua.LValue {
	if lay.strdict == nil {
		for i, s := range lay.skeys {
			if s == k {
				*hint = i + 1
				return lay.svals[i]
			}
		}
		return lua.LNil
	}
	return lay.str(k)
}

// strLen is how many string keys hold a value.
func (lay *tableLayout) strLen() int {
	if lay.strdict != nil {
		return len(lay.strdict)
	}
	n := 0
	for _, v := range lay.svals {
		if v != lua.LNil {
			n++
		}
	}
	return n
}

// setListed sets the string key k, which the key list holds already, to v
// (lua.LNil removes it, keeping its place in the list).
func (lay *tableLayout) setListed(k string, v lua.LValue) {
	lay.metaIdx = nil
	if lay.strdict == nil {
		for i, s := range lay.skeys {
			if s == k {
				lay.svals[i] = v
				return
			}
		}
		if len(lay.skeys) < smallStrKeys {
			lay.skeys = append(lay.skeys, k)
			lay.svals = append(lay.svals, v)
			return
		}
		lay.strdict = make(map[string]lua.LValue, 2*smallStrKeys)
		for i, s := range lay.skeys {
			if lay.svals[i] != lua.LNil {
				lay.strdict[s] = lay.svals[i]
			}
		}
		lay.skeys, lay.svals = nil, nil
	}
	if v == lua.LNil {
		delete(lay.strdict, k)
	} else {
		lay.strdict[k] = v
	}
}

// clearStr removes the string keys (keeping the storage).
func (lay *tableLayout) clearStr() {
	lay.metaIdx = nil
	clear(lay.strdict)
	clear(lay.skeys)
	clear(lay.svals)
	lay.skeys, lay.svals = lay.skeys[:0], lay.svals[:0]
}

// layoutMatches reports whether tableLayout still mirrors lua.LTable.
var layoutMatches = func() bool {
	lt, mt := reflect.TypeOf(lua.LTable{}), reflect.TypeOf(tableLayout{})
	if lt.NumField() != mt.NumField() || lt.Size() != mt.Size() {
		return false
	}
	for i := range lt.NumField() {
		a, b := lt.Field(i), mt.Field(i)
		if a.Name != b.Name || a.Type != b.Type || a.Offset != b.Offset {
			return false
		}
	}
	return true
}()

// layoutOf is t's fields, or nil when the mirror does not match.
func layoutOf(t *lua.LTable) *tableLayout {
	if !layoutMatches {
		return nil
	}
	return (*tableLayout)(unsafe.Pointer(t))
}

func iterate(t *lua.LTable) tableIter {
	return tableIter{t: t, lay: layoutOf(t), prev: lua.LNil}
}

// iterateAll walks t as iterate does, and also yields, with the value
// lua.LNil and in their places, the keys removed from t that its key list
// still holds. A key set again takes its old place in that list, so where
// pairs() will put it depends on them: a save keeps them (the removed
// keys), so that a restored table walks as the saved one will.
func iterateAll(t *lua.LTable) tableIter {
	it := iterate(t)
	it.removed = true
	return it
}

// next returns the next entry; k is lua.LNil after the last.
func (it *tableIter) next() (k, v lua.LValue) {
	lay := it.lay
	if lay == nil {
		k, v = it.t.Next(it.prev)
		it.prev = k
		return k, v
	}
	for ; it.i < len(lay.array); it.i++ {
		if v := lay.array[it.i]; v != lua.LNil {
			it.i++
			if it.i < len(smallNumbers) {
				return smallNumbers[it.i], v // boxed once, not at every key
			}
			return lua.LNumber(it.i), v
		}
	}
	// Next stops as soon as both maps are empty, whatever the key list
	// still holds (gopher-lua never shortens it).
	if !it.removed && len(lay.dict) == 0 && lay.strLen() == 0 {
		return lua.LNil, lua.LNil
	}
	for j := it.i - len(lay.array); j < len(lay.keys); j++ {
		k := lay.keys[j]
		var v lua.LValue
		if s, ok := k.(lua.LString); ok {
			if h := it.si; h < len(lay.skeys) && lay.skeys[h] == string(s) {
				v, it.si = lay.svals[h], h+1 // skeys is nil once strdict is made
			} else {
				v = lay.strAt(string(s), &it.si)
			}
		} else {
			v = lay.dict[k]
		}
		if v != nil && v != lua.LNil {
			it.i = len(lay.array) + j + 1
			return k, v
		}
		if it.removed {
			it.i = len(lay.array) + j + 1
			return k, lua.LNil
		}
	}
	it.i = len(lay.array) + len(lay.keys)
	return lua.LNil, lua.LNil
}

// clearTable removes every entry of t and its key list (the places of
// removed keys), keeping its metatable and its identity: filled from a
// save, it then walks as the saved table did. Without the mirror, its
// entries are removed and the key list stays (keys set again keep their
// old place in pairs()).
func clearTable(t *lua.LTable) {
	lay := layoutOf(t)
	if lay == nil {
		var keys []lua.LValue
		for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
			keys = append(keys, k)
		}
		for _, k := range keys {
			t.RawSet(k, lua.LNil)
		}
		return
	}
	clear(lay.array)
	lay.array = lay.array[:0]
	lay.clearStr()
	clear(lay.dict)
	clear(lay.keys)
	lay.keys = lay.keys[:0]
	clear(lay.k2i)
}

// reserveKeys makes t's key list, when it has none yet, with room for n
// keys, rather than letting it grow key by key (an allocation at every
// doubling of the list and of its index).
func reserveKeys(t *lua.LTable, n int) {
	lay := layoutOf(t)
	if lay == nil || lay.keys != nil || n <= 0 {
		return
	}
	lay.keys, lay.k2i = make([]lua.LValue, 0, n), make(map[lua.LValue]int, n)
	if lay.strdict == nil && n > smallStrKeys && len(lay.skeys) == 0 {
		lay.strdict = make(map[string]lua.LValue, n)
	}
}

// resetTable makes t as a new table is, keeping its storage: no entries, no
// key list, no metatable. It reports false when it cannot (the mirror does
// not match).
func resetTable(t *lua.LTable) bool {
	lay := layoutOf(t)
	if lay == nil {
		return false
	}
	lay.Metatable = lua.LNil
	clear(lay.array)
	lay.array = lay.array[:0]
	clear(lay.dict)
	lay.clearStr()
	clear(lay.keys)
	lay.keys = lay.keys[:0]
	clear(lay.k2i)
	return true
}

// smallTable reports whether t holds at most max entries, each with a
// string key or an index from 1 to max, its array part no longer than max:
// a table whose storage is worth keeping (reuseState). ForEach would tell
// the same, boxing every key it hands out (an allocation per key); without
// the mirror it is false.
func smallTable(t *lua.LTable, max int) bool {
	lay := layoutOf(t)
	if lay == nil || len(lay.array) > max || len(lay.dict) > 0 {
		// gopher-lua keeps an integer key up to 2^26 in the array part,
		// padding it with nils, and any other key that is not a string
		// (a table, 1.5, 0) in dict.
		return false
	}
	n := lay.strLen() // gopher-lua deletes the keys set to nil
	for _, v := range lay.array {
		if v != nil && v != lua.LNil {
			n++
		}
	}
	return n <= max
}

// setString is t.RawSetString(key, v), with the key boxed
// by box when it is new to t, rather than by a heap allocation.
func setString(t *lua.LTable, key string, v lua.LValue, box *texts) {
	lay := layoutOf(t)
	if lay == nil || lay.k2i == nil || v == lua.LNil {
		t.RawSetString(key, v)
		return
	}
	lay.metaIdx = nil
	if lay.strdict == nil {
		for i, s := range lay.skeys {
			if s == key {
				lay.svals[i] = v
				return
			}
		}
		if len(lay.skeys) >= smallStrKeys {
			t.RawSetString(key, v) // moves the string keys to strdict
			return
		}
		lay.skeys = append(lay.skeys, key)
		lay.svals = append(lay.svals, v)
	} else {
		lay.strdict[key] = v
	}
	if _, ok := lay.k2i[lua.LString(key)]; !ok {
		k := box.box(key)
		lay.k2i[k] = len(lay.keys)
		lay.keys = append(lay.keys, k)
	}
}
