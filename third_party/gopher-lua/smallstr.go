package lua

// btrun patch "smallstr" (third_party/PATCHES.md): a table holds its first
// few string keys in two short slices, searched in order, instead of a Go
// map. Most tables of a game script are small records (an agent's fields, a
// rule's state, a metatable with __index): a Go map hashes the key at every
// read and write, where comparing a handful of short strings (lengths first)
// is several times cheaper. A table moves its string keys into strdict, as
// upstream keeps them, when it gets more than smallStrMax of them, and
// never back. What pairs() walks and in which order does not change: the
// key list (keys, k2i) is kept as upstream keeps it.
//
// The invariant: while strdict is nil, every string key the table holds or
// held (a removed key keeps its slot, with the value LNil, as upstream's
// key list keeps it) is in skeys, its value at the same index of svals.

import "unsafe"

// Keys are compared by length, then by where their bytes are (a script's
// constants and Go's string literals are often the very string the table
// holds: no call to compare bytes), then by their bytes.

// smallStrMax is the most string keys a table keeps in its slices.
const smallStrMax = 8

// smallIndex is the index of key in skeys, or -1.
func (tb *LTable) smallIndex(key string) int {
	for i, k := range tb.skeys {
		if len(k) == len(key) && (unsafe.StringData(k) == unsafe.StringData(key) || k == key) {
			return i
		}
	}
	return -1
}

// smallGet is RawGetString while strdict is nil.
func (tb *LTable) smallGet(key string) LValue {
	for i, k := range tb.skeys {
		if len(k) == len(key) && (unsafe.StringData(k) == unsafe.StringData(key) || k == key) {
			return tb.svals[i]
		}
	}
	return LNil
}

// smallSet is RawSetString while strdict is nil; it reports false, having
// done nothing, when key is new and the slices are full.
func (tb *LTable) smallSet(key string, lkey LValue, value LValue) bool {
	if i := tb.smallIndex(key); i >= 0 {
		tb.svals[i] = value // the key is in the key list since it was first set
		return true
	}
	if value == LNil {
		return true // removing a key the table does not hold
	}
	if len(tb.skeys) >= smallStrMax {
		return false
	}
	if tb.skeys == nil {
		tb.skeys = make([]string, 0, smallStrMax/2)
		tb.svals = make([]LValue, 0, smallStrMax/2)
	}
	tb.skeys = append(tb.skeys, key)
	tb.svals = append(tb.svals, value)
	if tb.keys == nil {
		// Room for the slices' first keys at once: growing from empty
		// took three allocations for four keys.
		tb.keys = make([]LValue, 0, smallStrMax/2)
		tb.k2i = map[LValue]int{}
	}
	if lkey == nil { // btrun patch "boxedkeys"
		lkey = LString(key)
	}
	if _, ok := tb.k2i[lkey]; !ok {
		tb.k2i[lkey] = len(tb.keys)
		tb.keys = append(tb.keys, lkey)
	}
	return true
}

// toStrdict moves the string keys into strdict, where upstream keeps them.
func (tb *LTable) toStrdict() {
	tb.strdict = make(map[string]LValue, 2*smallStrMax)
	for i, k := range tb.skeys {
		if v := tb.svals[i]; v != LNil {
			tb.strdict[k] = v
		}
	}
	tb.skeys, tb.svals = nil, nil
}

// strLen is how many string keys hold a value (len(strdict) upstream).
func (tb *LTable) strLen() int {
	if tb.strdict != nil {
		return len(tb.strdict)
	}
	n := 0
	for _, v := range tb.svals {
		if v != LNil {
			n++
		}
	}
	return n
}
