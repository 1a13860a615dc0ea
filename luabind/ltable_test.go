package luabind

import (
	"slices"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// dump lists a table's entries in Next's order, as pairs() sees them,
// nested tables by their contents.
func dump(t *lua.LTable) string {
	var b strings.Builder
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		b.WriteString(entry(k, v))
	}
	return b.String()
}

func entry(k, v lua.LValue) string {
	show := func(x lua.LValue) string {
		if t, ok := x.(*lua.LTable); ok {
			return "{" + dump(t) + "}"
		}
		return x.String()
	}
	return show(k) + "=" + show(v) + " "
}

// withoutLayout runs f as if the mirror of LTable did not match, so that
// every function takes its fallback through LTable's methods.
func withoutLayout(t *testing.T, f func()) {
	t.Helper()
	saved := layoutMatches
	layoutMatches = false
	defer func() { layoutMatches = saved }()
	f()
}

func TestLTable_layoutMatchesGopherLua(t *testing.T) {
	if !layoutMatches {
		t.Fatal("tableLayout no longer mirrors lua.LTable: saves and loads take the slow path; update ltable.go")
	}
}

// TestTableIter_walksAsNextDoes on tables of every shape, with the mirror
// and without.
func TestTableIter_walksAsNextDoes(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for seed := range uint64(200) {
		m := newTableMaker(L, seed, false)
		for _, tb := range append([]*lua.LTable{L.NewTable()}, m.table(1), m.table(2)) {
			want := dump(tb)
			for _, mirror := range []bool{true, false} {
				var got strings.Builder
				walk := func() {
					it := iterate(tb)
					for k, v := it.next(); k != lua.LNil; k, v = it.next() {
						got.WriteString(entry(k, v))
					}
				}
				if mirror {
					walk()
				} else {
					withoutLayout(t, walk)
				}
				if got.String() != want {
					t.Fatalf("seed %d, mirror %v:\n got  %s\n want %s", seed, mirror, got.String(), want)
				}
			}
		}
	}
}

// TestClearTable_forgetsTheKeyListAndKeepsTheMetatable: with the mirror, a
// cleared table takes new entries in the order a new table would (the
// places of its old keys are forgotten) and keeps its metatable; without
// it, clearing is setting every key to nil (keys set again keep their
// place).
func TestClearTable_forgetsTheKeyListAndKeepsTheMetatable(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	refill := func(tb *lua.LTable) string {
		for _, k := range []string{"heading", "x", "new", "k7"} {
			tb.RawSetString(k, lua.LString("again"))
		}
		tb.RawSetInt(2, lua.LTrue)
		return dump(tb)
	}
	for seed := range uint64(100) {
		a := newTableMaker(L, seed, false).table(1)
		b := newTableMaker(L, seed, false).table(1)
		c := newTableMaker(L, seed, false).table(1)
		var keys []lua.LValue
		for k, _ := a.Next(lua.LNil); k != lua.LNil; k, _ = a.Next(k) {
			keys = append(keys, k)
		}
		for _, k := range keys {
			a.RawSet(k, lua.LNil)
		}
		mt := L.NewTable()
		b.Metatable = mt
		clearTable(b)
		withoutLayout(t, func() { clearTable(c) })
		if got, want := refill(b), refill(L.NewTable()); got != want || b.Metatable != mt {
			t.Fatalf("seed %d, mirror:\n got  %s\n want %s", seed, got, want)
		}
		if got, want := refill(c), refill(a); got != want {
			t.Fatalf("seed %d, fallback:\n got  %s\n want %s", seed, got, want)
		}
	}
}

// TestResetTable_makesItAsANewTable: whatever a table held or once held
// (keys gone, a metatable), after resetTable it takes new entries in the
// order a new table would, and has no metatable.
func TestResetTable_makesItAsANewTable(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	fill := func(tb *lua.LTable) string {
		for _, k := range []string{"b", "heading", "a", "x", "k3"} {
			tb.RawSetString(k, lua.LNumber(len(k)))
		}
		tb.RawSetInt(1, lua.LTrue)
		tb.RawSet(lua.LNumber(-2), lua.LFalse)
		return dump(tb)
	}
	want := fill(L.NewTable())
	for seed := range uint64(100) {
		tb := newTableMaker(L, seed, false).table(1)
		tb.Metatable = L.NewTable()
		if !resetTable(tb) {
			t.Fatal("resetTable refused with a matching mirror")
		}
		if tb.Metatable != lua.LNil || dump(tb) != "" {
			t.Fatalf("seed %d: not empty: %s", seed, dump(tb))
		}
		if got := fill(tb); got != want {
			t.Fatalf("seed %d:\n got  %s\n want %s", seed, got, want)
		}
	}
	withoutLayout(t, func() {
		if resetTable(L.NewTable()) {
			t.Error("resetTable claims success without the mirror")
		}
	})
}

// TestSetString_isRawSetString on fresh, emptied and reset tables, for new
// keys, keys set before and keys that came and went.
func TestSetString_isRawSetString(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	var box texts
	for seed := range uint64(100) {
		for _, how := range []string{"as made", "emptied", "reset", "new"} {
			a := newTableMaker(L, seed, false).table(1)
			b := newTableMaker(L, seed, false).table(1)
			switch how {
			case "emptied":
				clearTable(a)
				clearTable(b)
			case "reset":
				resetTable(a)
				resetTable(b)
			case "new":
				a, b = L.CreateTable(0, 4), L.CreateTable(0, 4)
			}
			for i, k := range []string{"x", "k1", "heading", "zz", "x", "k500", "onHit"} {
				v := lua.LNumber(float64(i))
				a.RawSetString(k, v)
				setString(b, k, v, &box)
			}
			if got, want := dump(b), dump(a); got != want {
				t.Fatalf("seed %d, %s:\n got  %s\n want %s", seed, how, got, want)
			}
		}
	}
}

// TestSmallTable_tellsTheTablesWorthReusing: at most eight entries, keyed
// by strings or indices 1 to 8, with no longer array part (a big index set
// and cleared again leaves its padding); and no allocation to tell it.
func TestSmallTable_tellsTheTablesWorthReusing(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for _, c := range []struct {
		code string
		want bool
	}{
		{"", true},
		{"t.a, t.b, t.c = 1, 2, 3", true},
		{"for i = 1, 8 do t['k' .. i] = i end", true},
		{"for i = 1, 9 do t['k' .. i] = i end", false},
		{"for i = 1, 9 do t['k' .. i] = i end for i = 1, 3 do t['k' .. i] = nil end", true},
		{"for i = 1, 8 do t[i] = i end", true},
		{"t[9] = 1", false},
		{"t[100] = 1 t[100] = nil", false},
		{"t[1], t[2], t.a, t.b, t.c, t.d, t.e, t.f = 1, 2, 3, 4, 5, 6, 7, 8", true},
		{"t[1], t[2], t.a, t.b, t.c, t.d, t.e, t.f, t.g = 1, 2, 3, 4, 5, 6, 7, 8, 9", false},
		{"t[1.5] = 1", false},
		{"t[0] = 1", false},
		{"t[true] = 1", false},
		{"t[{}] = 1", false},
	} {
		if err := L.DoString("t = {} " + c.code); err != nil {
			t.Fatal(err)
		}
		tb := L.GetGlobal("t").(*lua.LTable)
		if got := smallTable(tb, 8); got != c.want {
			t.Errorf("%q: smallTable = %v, want %v", c.code, got, c.want)
		}
		if n := testing.AllocsPerRun(10, func() { smallTable(tb, 8) }); n != 0 {
			t.Errorf("%q: %v allocations", c.code, n)
		}
	}
}

// TestSetString_forgetsACachedIndex: the mirror's writes forget the
// "__index" entry gopher-lua's patch "indexcache" caches in a metatable.
func TestSetString_forgetsACachedIndex(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(`A, B = {v = "A"}, {v = "B"}; mt = {__index = A}; o = setmetatable({}, mt); first = o.v`); err != nil {
		t.Fatal(err)
	}
	mt := L.GetGlobal("mt").(*lua.LTable)
	var box texts
	setString(mt, "__index", L.GetGlobal("B"), &box)
	if err := L.DoString(`second = o.v`); err != nil {
		t.Fatal(err)
	}
	if got := L.GetGlobal("first").String() + L.GetGlobal("second").String(); got != "AB" {
		t.Errorf("reads through __index: %s, want AB", got)
	}
}

// TestTableIter_stringKeysOutOfTheirListOrder: a walk looks for a string
// key's value at the place after the last one first; a key list whose
// string keys are not in the small list's order (which gopher-lua does not
// make, but the walk must not rely on) still gives every key its value.
func TestTableIter_stringKeysOutOfTheirListOrder(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	tb := L.CreateTable(0, 0) // as a script's {}: string keys in the small list
	for i, k := range []string{"a", "b", "c", "d"} {
		tb.RawSetString(k, lua.LNumber(i+1))
	}
	tb.RawSetString("b", lua.LNil) // a removed key keeps its place
	lay := layoutOf(tb)
	if lay == nil || len(lay.skeys) != 4 {
		t.Skip("the mirror does not match, or the table is not small")
	}
	// the small list reversed, values with their keys
	slices.Reverse(lay.skeys)
	slices.Reverse(lay.svals)
	var got strings.Builder
	it := iterateAll(tb)
	for k, v := it.next(); k != lua.LNil; k, v = it.next() {
		got.WriteString(entry(k, v))
	}
	if want := "a=1 b=nil c=3 d=4 "; got.String() != want {
		t.Fatalf("got %q, want %q", got.String(), want)
	}
}
