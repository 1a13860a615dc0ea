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
		{"unfreeze", "act.lua:9: cannot change a protected metatable"},
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
assert(n == 6, "pairs saw " .. n)   -- speed, posts, count, new, bump, speedOf (__index stays put)
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
	if n := len(f.e.frozen.entries); n != 2 {
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
