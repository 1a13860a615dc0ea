package luabind

import (
	"errors"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

const frozenModules = `
local M = {speed = 3, posts = {{1, 2}, {3, 4}}, count = 0}
M.__index = M
function M.new() return setmetatable({}, M) end
function M.bump() M.count = M.count + 1 end
function M:speedOf() return self.speed end
return M
`

func TestFreeze_writingAModuleTableIsAnErrorAtTheScriptLine(t *testing.T) {
	f := newFixture(t, map[string]string{
		"cfg.lua": frozenModules,
		"act.lua": `local cfg = require("cfg")
bt.action("bump", function(ctx) cfg.bump() return bt.SUCCESS end)
bt.action("nest", function(ctx)
  cfg.posts[1][1] = 9
  return bt.SUCCESS
end)
bt.action("insert", function(ctx) table.insert(cfg.posts, {5, 6}) return bt.SUCCESS end)
bt.action("raw", function(ctx) rawset(cfg, "x", 1) return bt.SUCCESS end)
bt.action("unfreeze", function(ctx) setmetatable(cfg, nil) return bt.SUCCESS end)
`,
	})
	f.e.Freeze()
	f.bind(tree(`<action id='a' name='bump'/>`))
	for _, tc := range []struct{ action, want string }{
		{"bump", "cfg.lua:5: luabind: read-only table: cannot set count: module cfg is read-only"},
		{"nest", "act.lua:4: luabind: read-only table: cannot set [1]: module cfg.posts[1] is read-only"},
		{"insert", "act.lua:7: luabind: read-only table: insert cannot change module cfg.posts"},
		{"raw", "act.lua:8: luabind: read-only table: rawset cannot change module cfg"},
		{"unfreeze", "act.lua:9: luabind: read-only table: setmetatable cannot change module cfg"},
	} {
		t.Run(tc.action, func(t *testing.T) {
			f.bind(tree(`<action id='a' name='` + tc.action + `'/>`))
			got := step(t, f.agent("x"))
			if !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

func TestFreeze_aFrozenTableStillReadsAsBefore(t *testing.T) {
	f := newFixture(t, map[string]string{"cfg.lua": frozenModules})
	f.e.Freeze()
	f.do(`
local cfg = require("cfg")
assert(cfg.speed == 3 and #cfg.posts == 2 and cfg.posts[2][1] == 3)
local n = 0
for k, v in pairs(cfg) do n = n + 1 end
assert(n == 7, "pairs saw " .. n)   -- speed, posts, count, __index, new, bump, speedOf
local s = 0
for i, p in ipairs(cfg.posts) do s = s + p[1] + p[2] end
assert(s == 10, "ipairs summed " .. s)
assert(next(cfg) ~= nil and rawget(cfg, "speed") == 3)
assert(unpack(cfg.posts[1]) == 1 and table.concat(cfg.posts[2], ",") == "3,4")
local o = cfg.new()        -- the class pattern still works
assert(o:speedOf() == 3)
o.speed = 5                -- an instance is not frozen
assert(o:speedOf() == 5)
local mine = {}
table.insert(mine, 1)      -- other tables are untouched
rawset(mine, "k", 2)
assert(#mine == 1 and mine.k == 2)
`)
}

func TestSetShared_isAReadOnlyCopyMadeAnewEachTime(t *testing.T) {
	f := newFixture(t, map[string]string{"a.lua": `return {}`})
	L := f.e.L
	src := L.NewTable()
	p := L.NewTable()
	p.RawSetString("x", lua.LNumber(4))
	src.RawSetString("player", p)
	src.RawSetString("n", lua.LNumber(2))
	if err := f.e.SetShared(src); err != nil {
		t.Fatal(err)
	}
	p.RawSetString("x", lua.LNumber(99)) // the world changes its own table after publishing
	f.do(`assert(bt.shared.player.x == 4 and bt.shared.n == 2)
local ok, err = pcall(function() bt.shared.player.x = 1 end)
assert(not ok and string.find(err, "bt.shared.player is read-only", 1, true), err)`)
	if err := f.e.SetShared(src); err != nil {
		t.Fatal(err)
	}
	f.do(`assert(bt.shared.player.x == 99)`)
	if n := len(f.e.frozen.of); n != 2 {
		t.Errorf("%d frozen tables kept, want the 2 of the last SetShared", n)
	}
	if err := f.e.SetShared(lua.LNil); err != nil {
		t.Fatal(err)
	}
	f.do(`assert(bt.shared == nil)`)
	bad := L.NewTable()
	bad.RawSetString("f", L.NewFunction(func(*lua.LState) int { return 0 }))
	if err := f.e.SetShared(bad); !errors.Is(err, ErrScript) || !strings.Contains(err.Error(), "game.shared.f is a function") {
		t.Errorf("err = %v", err)
	}
}

// freezeHoles is a module whose tables a script could once write, or see
// as empty, after Freeze: functions kept in locals while loading, a table
// reached through the module's metatable, "__" keys, a table nested
// deeper than the freeze used to walk, and instances made while loading
// (in the module and in a module-local variable) of a class the module
// exports.
const freezeHoles = `
local pairs, ipairs, next, unpack, rawget = pairs, ipairs, next, unpack, rawget
local insert, remove, sort, rawset, setmt = table.insert, table.remove, table.sort, rawset, setmetatable
local defaults = {list = {1, 2}, speed = 3}
local M = setmetatable({}, {__index = defaults, __call = function(self, x) return "called " .. x end,
  __tostring = function() return "the M module" end})
M.Class = {__data = {n = 1}}
M.Class.__index = M.Class
function M.Class.new() return setmt({}, M.Class) end
function M.Class:n() return self.__data.n end
M.made = M.Class.new()
local mine = M.Class.new()         -- a module-local instance, made while loading
M.deep = {}
local d = M.deep
for i = 1, 100 do d.next = {} d = d.next end
d.leaf = {v = 7}
M.order = {}
for _, k in ipairs({"k", "c", "x", "a", "q"}) do M.order[k] = #k end
M.order.c = nil
M.order.z, M.order.c = 1, 2

function M.walk(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = tostring(k) end
  local n = 0
  for _ in ipairs(t) do n = n + 1 end
  return table.concat(keys, ",") .. " ipairs " .. n .. " next " .. tostring(next(t) ~= nil) ..
    " unpack " .. tostring(unpack(t) or "-") .. " rawget " .. tostring(rawget(t, 1))
end
function M.keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  return table.concat(keys, ",")
end
function M.insert(t) insert(t, 9) end
function M.remove(t) remove(t) end
function M.sort(t) sort(t) end
function M.rawset(t) rawset(t, "x", 1) end
function M.mineN() return mine:n() end
return M
`

func TestFreeze_functionsKeptInLocalsWhileLoadingSeeTheEntries(t *testing.T) {
	for _, frozen := range []bool{false, true} {
		f := newFixture(t, map[string]string{"m.lua": freezeHoles})
		if frozen {
			f.e.Freeze()
		}
		f.do(`local M = require("m")
local got = M.walk(M.list) .. " | " .. M.walk({1, 2, 3}) .. " | " .. M.keys(M) .. " | " .. M.walk(M.order)
assert(got == "1,2 ipairs 2 next true unpack 1 rawget 1 | 1,2,3 ipairs 3 next true unpack 1 rawget 1 | " ..
  "Class,deep,insert,keys,made,mineN,order,rawset,remove,sort,walk | k,c,x,a,q,z ipairs 0 next true unpack - rawget nil", got)`)
	}
}

func TestFreeze_writesThroughFunctionsKeptInLocalsAreErrors(t *testing.T) {
	f := newFixture(t, map[string]string{"m.lua": freezeHoles})
	f.e.Freeze()
	for _, tc := range []struct{ call, want string }{
		{`M.insert(M.list)`, "m.lua:36: luabind: read-only table: insert cannot change module m(metatable).__index.list"},
		{`M.remove(M.order)`, "m.lua:37: luabind: read-only table: remove cannot change module m.order"},
		{`M.sort(M.list)`, "m.lua:38: luabind: read-only table: sort cannot change module m(metatable).__index.list"},
		{`M.rawset(M)`, "m.lua:39: luabind: read-only table: rawset cannot change module m"},
	} {
		err := f.e.DoString("test", `local M = require("m") `+tc.call)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrScript) {
			t.Errorf("%s: %v, want %q", tc.call, err, tc.want)
		}
	}
	f.do(`local M = require("m") assert(#M.list == 2 and M.order.k == 1 and rawget(M, "x") == nil)`)
}

func TestFreeze_tablesThroughTheMetatableAndUnderscoreKeysAreReadOnly(t *testing.T) {
	f := newFixture(t, map[string]string{"m.lua": freezeHoles})
	f.e.Freeze()
	for _, tc := range []struct{ code, want string }{
		{`M.list[3] = 1`, "cannot set [3]: module m(metatable).__index.list is read-only"},
		{`M.speed = 4`, "cannot set speed: module m is read-only"},
		{`getmetatable(M).__call = nil`, "cannot set __call: module m(metatable) is read-only"},
		{`M.Class.__index = {}`, "cannot set __index: module m.Class is read-only"},
		{`M.Class.__data.n = 2`, "cannot set n: module m.Class.__data is read-only"},
		{`M.made.__data = {}`, "cannot set __data: module m.made is read-only"},
		{`setmetatable(M.made, nil)`, "setmetatable cannot change module m.made"},
		{`setmetatable(1, {})`, "bad argument #1 to setmetatable (table expected, got number)"},
	} {
		err := f.e.DoString("test", "local M = require('m')\n"+tc.code)
		if err == nil || !strings.Contains(err.Error(), "test:2: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want test:2: ... %q", tc.code, err, tc.want)
		}
	}
	// What the module does keeps working: its metatable's __index,
	// __call and __tostring, the class pattern, instances made while
	// loading (in the module and in a local), new ones, getmetatable.
	f.do(`local M = require("m")
assert(M.speed == 3 and M.list[2] == 2 and #M.list == 2)
assert(M(5) == "called 5" and tostring(M) == "the M module")
assert(M.made:n() == 1 and M.mineN() == 1)
local o = M.Class.new()
assert(o:n() == 1 and getmetatable(o) == M.Class and getmetatable(M.made) == M.Class)
assert(getmetatable(M).__index.speed == 3 and getmetatable(M.Class) == nil)
o.x = 1 -- an instance made now is the caller's
local mine = setmetatable({}, M.Class)
assert(mine:n() == 1 and rawequal(getmetatable(mine), M.Class))`)
}

func TestFreeze_tablesNestedAnyDepthAreReadOnly(t *testing.T) {
	f := newFixture(t, map[string]string{"m.lua": freezeHoles})
	f.e.Freeze()
	err := f.e.DoString("test", `local M = require("m")
local d = M.deep
while d.next do d = d.next end
d.leaf.v = 8`)
	want := "test:4: luabind: read-only table: cannot set v: module m.deep.next.next.next.next.next.next.next...(86 more)....next.next.next.next.next.next.next.leaf is read-only"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %q", err, want)
	}
}

func TestSetShared_functionsKeptInLocalsSeeIt(t *testing.T) {
	f := newFixture(t, map[string]string{"a.lua": `local pairs, next = pairs, next
local bt = require("bt")
return {count = function()
  local n = 0
  for k, v in pairs(bt.shared) do n = n + 1 end
  return n, next(bt.shared) ~= nil
end}`})
	L := f.e.L
	src := L.NewTable()
	for _, k := range []string{"b", "a", "c"} {
		src.RawSetString(k, lua.LString(k))
	}
	part := L.NewTable()
	src.RawSetString("p", part)
	src.RawSetString("q", part) // met twice: copied once
	if err := f.e.SetShared(src); err != nil {
		t.Fatal(err)
	}
	f.do(`local n, any = require("a").count()
assert(n == 5 and any, n)
local keys = {}
for k in pairs(bt.shared) do keys[#keys + 1] = k end
assert(table.concat(keys, ",") == "b,a,c,p,q", table.concat(keys, ","))
assert(bt.shared.p == bt.shared.q)`)
}

// TestFreeze_aFrozenTableHoldsItsEntries: frozen tables and bt.shared are
// the tables themselves, marked read-only, not proxies in front of hidden
// ones, so that a script's read is a plain table read.
func TestFreeze_aFrozenTableHoldsItsEntries(t *testing.T) {
	f := newFixture(t, map[string]string{"cfg.lua": frozenModules})
	f.e.Freeze()
	L := f.e.L
	if err := L.DoString(`cfg = require("cfg")`); err != nil {
		t.Fatal(err)
	}
	src := L.NewTable()
	src.RawSetString("n", lua.LNumber(2))
	if err := f.e.SetShared(src); err != nil {
		t.Fatal(err)
	}
	cfg := L.GetGlobal("cfg").(*lua.LTable)
	shared := f.e.bt.RawGetString("shared").(*lua.LTable)
	for name, c := range map[string]struct {
		t   *lua.LTable
		key string
	}{"module": {cfg, "speed"}, "bt.shared": {shared, "n"}} {
		if !c.t.ReadOnly() || c.t.RawGetString(c.key) == lua.LNil {
			t.Errorf("%s: read-only %v, holds %s: %v", name, c.t.ReadOnly(), c.key, c.t.RawGetString(c.key))
		}
	}
	if cfg.Metatable != lua.LNil || shared.Metatable != lua.LNil {
		t.Error("a frozen table was given a metatable")
	}
}
