package luabind

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// sharedDump writes v as pairs() walks it, a table met again as the
// number of its first visit: two dumps are equal when the values hold the
// same entries in the same order with the same tables shared.
func sharedDump(v lua.LValue) string {
	var b strings.Builder
	ids := map[*lua.LTable]int{}
	var walk func(v lua.LValue)
	walk = func(v lua.LValue) {
		t, ok := v.(*lua.LTable)
		if !ok {
			if n, num := v.(lua.LNumber); num {
				fmt.Fprintf(&b, "%v/%x", v, math.Float64bits(float64(n)))
				return
			}
			fmt.Fprintf(&b, "%s:%v", v.Type(), v)
			return
		}
		if id, ok := ids[t]; ok {
			fmt.Fprintf(&b, "@%d", id)
			return
		}
		ids[t] = len(ids)
		b.WriteString("{")
		it := iterate(t)
		for k, x := it.next(); k != lua.LNil; k, x = it.next() {
			walk(k)
			b.WriteString("=")
			walk(x)
			b.WriteString(",")
		}
		b.WriteString("}")
	}
	walk(v)
	return b.String()
}

// sharedOf runs src, which sets the global S, in the fixture's state and
// returns S.
func sharedOf(t *testing.T, f *fixture, src string) lua.LValue {
	t.Helper()
	if err := f.e.L.DoString(src); err != nil {
		t.Fatal(err)
	}
	return f.e.L.GetGlobal("S")
}

// TestEncodeShared_btSharedOfTheDecodedValueIsBtSharedOfTheValue: what
// SetShared makes of the decoded value is what it makes of game.shared
// itself: keys in the order they were set (not sorted), boolean and
// fractional keys, -0 and NaN values, a table at two places and one that
// holds itself as one table, a removed key and a key set again, tables
// nested 200 deep. A restore in place keeps the root table.
func TestEncodeShared_btSharedOfTheDecodedValueIsBtSharedOfTheValue(t *testing.T) {
	f := newFixture(t, map[string]string{"a.lua": `return {}`})
	cases := map[string]string{
		"mixed": `local p = {x = 1}
p.self = p
S = {zeta = 1, [true] = "yes", [2.5] = -0.0, alpha = p, [false] = 0/0, mid = p, [3] = 1, [1] = "one", list = {1, 2, "three", 2^60, -7}}
S.gone = 1
S.back = 2
S.gone = nil
S.zeta = nil
S.zeta = 3`,
		"deep": `S = {}
local t = S
for i = 1, 199 do t.next = {i = i} t = t.next end`,
		"string": `S = "just this"`,
	}
	for name, src := range cases {
		v := sharedOf(t, f, src)
		if err := f.e.SetShared(v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := sharedDump(f.e.bt.RawGetString("shared"))
		b, err := f.e.EncodeShared(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := CheckShared(b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d, err := f.e.DecodeShared(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := f.e.SetShared(d); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := sharedDump(f.e.bt.RawGetString("shared")); got != want {
			t.Errorf("%s: bt.shared of the decoded value\n%s\nwant\n%s", name, got, want)
		}
		// In place: the world's own table keeps its identity, the rest too.
		game := f.e.L.NewTable()
		root := f.e.L.NewTable()
		root.RawSetString("old", lua.LTrue)
		game.RawSetString("shared", root)
		if err := f.e.RestoreShared(game, b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := game.RawGetString("shared")
		if _, isTable := v.(*lua.LTable); isTable && got != root {
			t.Errorf("%s: RestoreShared replaced the world's table", name)
		}
		if sharedDump(got) != sharedDump(v) {
			t.Errorf("%s: restored\n%s\nwant\n%s", name, sharedDump(got), sharedDump(v))
		}
	}
}

// TestEncodeShared_refusesWhatSetSharedRefuses: a function, a table key
// and tables nested deeper than SetShared copies are errors naming the
// path, as SetShared's.
func TestEncodeShared_refusesWhatSetSharedRefuses(t *testing.T) {
	f := newFixture(t, map[string]string{"a.lua": `return {}`})
	for src, want := range map[string]string{
		`S = {a = {f = print}}`: "game.shared.a.f is a function",
		`S = {a = {[{}] = 1}}`:  "game.shared.a has a table key",
		`S = {} local t = S for i = 1, 200 do t.n = {} t = t.n end`: "nests deeper than 200 tables",
	} {
		v := sharedOf(t, f, src)
		_, err := f.e.EncodeShared(v)
		if !errors.Is(err, ErrScript) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
		if err := f.e.SetShared(v); err == nil {
			t.Errorf("%s: SetShared took it", src)
		}
	}
}

// FuzzDecodeShared: any bytes are read or refused, without a panic, and
// CheckShared refuses what DecodeShared refuses.
func FuzzDecodeShared(f *testing.F) {
	e, err := New(Options{Seed: 1})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(e.Close)
	L := e.L
	if err := L.DoString(`local p = {x = 1.5} p.self = p S = {a = p, b = p, [true] = "s", s = "s", [2] = -0.0}`); err != nil {
		f.Fatal(err)
	}
	good, err := e.EncodeShared(L.GetGlobal("S"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{shTable, 1, shTableRef, 0, shNil})
	f.Add([]byte{shTable, 1, shTable, 0, shNil})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, errDecode := e.DecodeShared(b)
		errCheck := CheckShared(b)
		if (errDecode == nil) != (errCheck == nil) {
			t.Fatalf("DecodeShared: %v, CheckShared: %v", errDecode, errCheck)
		}
	})
}
