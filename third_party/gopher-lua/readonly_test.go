package lua

// btrun patch "readonly": its test.

import (
	"strings"
	"testing"
)

func TestReadOnly_scriptWritesRaiseAtTheLineAndReadsAreDirect(t *testing.T) {
	L := NewState()
	defer L.Close()
	data := L.NewTable()
	data.RawSetString("x", LNumber(1))
	inner := L.NewTable()
	inner.RawSetInt(1, LString("a"))
	data.RawSetString("inner", inner)
	data.SetReadOnly(true)
	inner.SetReadOnly(true)
	if !data.ReadOnly() || L.NewTable().ReadOnly() {
		t.Fatal("ReadOnly does not report SetReadOnly")
	}
	L.SetGlobal("data", data)
	if err := L.DoString(`assert(data.x == 1 and data.inner[1] == "a" and #data.inner == 1)
local n = 0
for k, v in pairs(data) do n = n + 1 end
assert(n == 2)`); err != nil {
		t.Fatal(err)
	}
	// The default error, then the host's, for each kind of write.
	for _, tc := range []struct{ code, want string }{
		{"data.x = 2", `<string>:2: cannot set x: the table is read-only`},
		{"data.y = 2", `<string>:2: cannot set y: the table is read-only`},
		{"data.inner[1] = 'b'", `<string>:2: cannot set 1: the table is read-only`},
		{"local k = 'x' data[k] = 3", `<string>:2: cannot set x: the table is read-only`},
		{"setfenv(1, data) z = 1", `<string>:2: cannot set z: the table is read-only`},
	} {
		err := L.DoString("local _ = 0\n" + tc.code)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.code, err, tc.want)
		}
	}
	L.SetReadOnlyHandler(func(L *LState, tb *LTable, key LValue) {
		name := "inner"
		if tb == data {
			name = "data"
		}
		L.RaiseError("%s is read-only (key %s)", name, key.String())
	})
	for _, tc := range []struct{ code, want string }{
		{"data.x = 2", `<string>:2: data is read-only (key x)`},
		{"data.inner[1] = 'b'", `<string>:2: inner is read-only (key 1)`},
		{"co = coroutine.wrap(function() data.y = 1 end) co()", `<string>:2: data is read-only (key y)`},
	} {
		err := L.DoString("local _ = 0\n" + tc.code)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.code, err, tc.want)
		}
	}
	if data.RawGetString("x") != LNumber(1) || data.RawGetString("y") != LNil || inner.RawGetInt(1) != LString("a") {
		t.Error("a refused write changed the table")
	}
	// Go writes (the host's own), and a table made writable again.
	data.RawSetString("x", LNumber(5))
	data.SetReadOnly(false)
	if err := L.DoString(`data.x = data.x + 1 assert(data.x == 6)`); err != nil {
		t.Fatal(err)
	}
}
