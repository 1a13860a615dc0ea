package lua

// btrun patch "indexcache": its test.

import "testing"

func TestIndexCache_followsEveryChangeOfIndex(t *testing.T) {
	L := NewState()
	defer L.Close()
	err := L.DoString(`
local A, B, C = {v = "A"}, {v = "B"}, {v = "C"}
local mt = {__index = A}
local o = setmetatable({}, mt)
local seen = {o.v}
mt.__index = B
seen[#seen + 1] = o.v
rawset(mt, "__index", C)
seen[#seen + 1] = o.v
mt.__index = nil
seen[#seen + 1] = tostring(o.v)
mt.__index = function(t, k) return "fn:" .. k end
seen[#seen + 1] = o.v
for i = 1, 10 do mt["k" .. i] = i end -- past smallstr's slices: the keys move to a map
mt.__index = A
seen[#seen + 1] = o.v
result = table.concat(seen, " ")
meta = mt
`)
	if err != nil {
		t.Fatal(err)
	}
	if got := L.GetGlobal("result").String(); got != "A B C nil fn:v A" {
		t.Errorf("reads through __index: %q", got)
	}
	mt := L.GetGlobal("meta").(*LTable)
	if mt.metaIdx == nil {
		t.Error("the metatable's __index is not cached after a read")
	}
	mt.RawSetString("__index", LNil)
	if mt.metaIdx != nil {
		t.Error("RawSetString kept a stale cache")
	}
}
