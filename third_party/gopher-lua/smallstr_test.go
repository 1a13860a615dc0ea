package lua

// btrun patch "smallstr": its tests. The table of a script sees no
// difference: every read, write, removal and pairs() order is the same on
// either side of the move to strdict.

import (
	"fmt"
	"strings"
	"testing"
)

func TestSmallStr_tableBehavesAsUpstreamAcrossTheMove(t *testing.T) {
	L := NewState()
	defer L.Close()
	// Keys are set, removed and set again around the move (the 9th key),
	// mixed with array and other keys; pairs() must list them in the order
	// first set, removed keys keeping their place, as upstream's key list does.
	err := L.DoString(`
local t = {}
local order = {}
for i = 1, 12 do
  t["k" .. i] = i
  if i == 3 then t.k2 = nil end
  if i == 5 then t[1.5] = "x"; t[1] = "a" end
  if i == 10 then t.k2 = 22 end
end
for k, v in pairs(t) do order[#order + 1] = tostring(k) .. "=" .. tostring(v) end
result = table.concat(order, " ")
small = {a = 1, b = 2}
small.a = nil
small.c = 3
small.a = 4
local o = {}
for k, v in pairs(small) do o[#o + 1] = k .. "=" .. v end
smallResult = table.concat(o, " ")
`)
	if err != nil {
		t.Fatal(err)
	}
	want := "1=a k1=1 k2=22 k3=3 k4=4 k5=5 1.5=x k6=6 k7=7 k8=8 k9=9 k10=10 k11=11 k12=12"
	if got := L.GetGlobal("result").String(); got != want {
		t.Errorf("pairs order:\n got %s\nwant %s", got, want)
	}
	if got := L.GetGlobal("smallResult").String(); got != "a=4 b=2 c=3" {
		t.Errorf("small table: %s", got)
	}
}

func TestSmallStr_movesToStrdictPastTheLimit(t *testing.T) {
	tb := newLTable(0, 0)
	for i := range smallStrMax {
		tb.RawSetString(fmt.Sprint("k", i), LNumber(i))
	}
	if tb.strdict != nil || len(tb.skeys) != smallStrMax {
		t.Fatalf("%d keys: strdict %v, skeys %d", smallStrMax, tb.strdict != nil, len(tb.skeys))
	}
	tb.RawSetString("k0", LNil) // a removal keeps the slot
	tb.RawSetString("more", LTrue)
	if tb.strdict == nil || tb.skeys != nil || len(tb.strdict) != smallStrMax {
		t.Fatalf("past the limit: strdict %d entries, skeys %v", len(tb.strdict), tb.skeys)
	}
	for i := 1; i < smallStrMax; i++ {
		if v := tb.RawGetString(fmt.Sprint("k", i)); v != LNumber(i) {
			t.Errorf("k%d = %v after the move", i, v)
		}
	}
	if tb.RawGetString("k0") != LNil || tb.RawGet(LString("more")) != LTrue || tb.RawGetH(LString("more")) != LTrue {
		t.Error("removed or new key wrong after the move")
	}
}

func TestSmallStr_readsAndForEach(t *testing.T) {
	tb := newLTable(0, 4)
	if tb.strdict != nil {
		t.Fatal("a small size hint made a map")
	}
	tb.RawSetString("x", LNumber(1))
	tb.RawSetH(LString("y"), LNumber(2))
	tb.RawSet(LString("z"), LNumber(3))
	tb.RawSetString("y", LNil)
	var b strings.Builder
	tb.ForEach(func(k, v LValue) { fmt.Fprintf(&b, "%v=%v ", k, v) })
	if b.String() != "x=1 z=3 " {
		t.Errorf("ForEach: %q", b.String())
	}
	if tb.RawGet(LString("y")) != LNil || tb.RawGetH(LString("z")) != LNumber(3) || tb.RawGetString("nope") != LNil {
		t.Error("reads")
	}
	if k, v := tb.Next(LNil); k != LString("x") || v != LNumber(1) {
		t.Errorf("Next: %v %v", k, v)
	}
	empty := newLTable(0, 0)
	empty.RawSetString("gone", LTrue)
	empty.RawSetString("gone", LNil)
	if k, _ := empty.Next(LNil); k != LNil {
		t.Errorf("Next of a table whose only key was removed: %v", k)
	}
	if newLTable(0, 2*smallStrMax).strdict == nil {
		t.Error("a large size hint made no map")
	}
}
