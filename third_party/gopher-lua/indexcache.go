package lua

// btrun patch "indexcache" (third_party/PATCHES.md): a metatable remembers
// its "__index" entry. Every read that misses a table (or reads a
// userdata) asks the object's metatable for __index: a look-up of the
// string "__index" at every link of a chain, 9 per agent-step of the
// example game. The entry is cached in the metatable (metaIdx) at its first
// use and forgotten whenever the table's "__index" key is set (setString,
// which every write of a string key goes through); LNil is cached as well.

// metaIndex is metaOp1(lvalue, "__index").
func (ls *LState) metaIndex(lvalue LValue) LValue {
	var mt LValue
	switch obj := lvalue.(type) {
	case *LTable:
		mt = obj.Metatable
	case *LUserData:
		mt = obj.Metatable
	default:
		return ls.metaOp1(lvalue, "__index")
	}
	tb, ok := mt.(*LTable)
	if !ok {
		return LNil
	}
	if v := tb.metaIdx; v != nil {
		return v
	}
	v := tb.RawGetString("__index")
	tb.metaIdx = v
	return v
}
