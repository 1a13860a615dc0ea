package lua

// btrun patch "readonly" (third_party/PATCHES.md): tables that scripts can
// read but not write. Lua 5.1 has no such tables; a host makes one with a
// proxy (an empty table whose metatable's __index holds the data and whose
// __newindex refuses), which makes every read of it a miss followed by a
// metatable look-up. A read-only table holds its data itself, so reads are
// plain table reads; the VM's writes (t.k = v, t[k] = v, a global set in
// a function whose environment is the table) check one flag and raise the
// host's error at the script's line. Go's Raw* methods still write it (the
// host owns the data); the library functions that write tables (rawset,
// table.insert, ...) are the host's to wrap when it needs them refused.

// SetReadOnly makes scripts' writes into tb errors (on), or lets them
// through again (off).
func (tb *LTable) SetReadOnly(on bool) { tb.readOnly = on }

// ReadOnly reports whether tb is read-only to scripts.
func (tb *LTable) ReadOnly() bool { return tb.readOnly }

// SetReadOnlyHandler sets the function that raises the error of a script's
// write of key into the read-only table tb, for the state and its threads.
// It should raise (L.RaiseError: the message gets the script's position);
// if it returns, or when none is set, the write raises a default error.
func (ls *LState) SetReadOnlyHandler(fn func(L *LState, tb *LTable, key LValue)) {
	ls.G.readOnlyWrite = fn
}

// readOnlyWrite raises the error of a write into the read-only table tb.
func (ls *LState) readOnlyWrite(tb *LTable, key LValue) {
	if fn := ls.G.readOnlyWrite; fn != nil {
		fn(ls, tb, key)
	}
	ls.RaiseError("cannot set %s: the table is read-only", key.String())
}

// boxedKey is the string key as a value: lkey, the key already boxed, or
// a new box when that is nil.
func boxedKey(key string, lkey LValue) LValue {
	if lkey != nil {
		return lkey
	}
	return LString(key)
}
