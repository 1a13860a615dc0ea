package game

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// frozenGame is a game whose scripts read module tables and bt.shared the
// ways that once saw them empty when agents could step on several threads
// (library functions kept in locals while loading), and, with one tree per
// way, write them the ways that once got through (functions kept in
// locals, a table reached through the module's metatable, "__" keys, a
// table nested deeper than the freeze walked).
func frozenGame() map[string]string {
	files := map[string]string{
		"ai/cfg.lua": `local pairs, ipairs, next, unpack, rawget = pairs, ipairs, next, unpack, rawget
local insert, rawset = table.insert, rawset
local defaults = {list = {1, 2, 3}, speed = 3}
local M = setmetatable({}, {__index = defaults})
M.Class = {__data = {n = 1}}
M.Class.__index = M.Class
M.posts = {{x = 1, y = 2}, {x = 3, y = 4}}
M.deep = {}
local d = M.deep
for i = 1, 80 do d.next = {} d = d.next end
d.leaf = {v = 7}
local function s(v) return type(v) == "table" and "{}" or type(v) == "function" and "fn" or tostring(v) end
function M.show(t)
  local out = {}
  for k, v in pairs(t) do out[#out + 1] = s(k) .. "=" .. s(v) end
  local n = 0
  for _ in ipairs(t) do n = n + 1 end
  return table.concat(out, " ") .. " #" .. n .. " next:" .. tostring(next(t) ~= nil) ..
    " unpack:" .. s((unpack(t))) .. " rawget:" .. s(rawget(t, 1))
end
function M.insert() insert(M.list, 4) end
function M.rawset() rawset(M.posts[1], "x", 9) end
function M.index() M.list[1] = 0 end
function M.under() M.Class.__index = nil end
function M.underData() M.Class.__data.n = 2 end
function M.deepest() local d = M.deep while d.next do d = d.next end d.leaf.v = 8 end
return M
`,
		"ai/world.lua": `local world = {}
function world.tick(game) game.shared = {wave = game.step, spots = {{1, 2}, {3, 4}}, who = {b = 1, a = 2}} end
return world
`,
		"ai/act.lua": `local bt = require("bt")
local cfg = require("cfg")
local pairs = pairs
bt.action("report", function(ctx)
  local shared = {}
  for k, v in pairs(bt.shared.who) do shared[#shared + 1] = k .. v end
  ctx:log("module " .. cfg.show(cfg) .. " | posts " .. cfg.show(cfg.posts) .. " | list " .. cfg.show(cfg.list) ..
    " | shared " .. table.concat(shared, ",") .. " " .. cfg.show(bt.shared.spots) .. " | " .. cfg.show(bt.shared))
  if ctx.id == "report-1" then ctx.memory.posts = cfg.posts[2] end -- saved as it reads
  return bt.SUCCESS
end)
for _, w in ipairs({"insert", "rawset", "index", "under", "underData", "deepest"}) do
  bt.action(w, function(ctx) cfg[w]() return bt.SUCCESS end)
end
`,
		"ai/report.xml": `<behaviorTree><sequence id="root"><action id=".r" name="report"/><running id=".rest"/></sequence></behaviorTree>`,
	}
	config := "[run]\nsteps = 2\nseed = 3\n[scripts]\npaths = [\"ai\"]\nworld = \"ai/world.lua\"\n" +
		"[[trees]]\nname = \"report\"\nfile = \"ai/report.xml\"\n[[agents]]\ntree = \"report\"\ncount = 3\n"
	for _, w := range []string{"insert", "rawset", "index", "under", "underData", "deepest"} {
		files["ai/"+w+".xml"] = fmt.Sprintf(`<behaviorTree><action id="root" name="%s"/></behaviorTree>`, w)
		config += fmt.Sprintf("[[trees]]\nname = %q\nfile = \"ai/%s.xml\"\n[[agents]]\ntree = %q\ncount = 2\n", w, w, w)
	}
	files["config.toml"] = config
	return files
}

// TestWorkers_moduleTablesAndSharedReadAlikeOnAnyWorkers: a script that
// keeps pairs, ipairs, next, unpack and rawget in locals while loading
// sees the module's tables (reached directly and through its metatable)
// and bt.shared as they are, with one worker (nothing read-only) and two:
// the output, the trace and the save are the same.
func TestWorkers_moduleTablesAndSharedReadAlikeOnAnyWorkers(t *testing.T) {
	config := writeGame(t, frozenGame())
	open := func(n int, contract bool) *session {
		cfg, err := LoadConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Agents = cfg.Agents[:1] // the readers
		if contract {
			cfg.Run.Workers = 0
		}
		s := startSession(t, cfg, cfg.Dir, &n)
		s.run(2)
		return s
	}
	one := open(1, false)
	if want := "module Class={} posts={} deep={} show=fn insert=fn rawset=fn index=fn under=fn underData=fn deepest=fn #0 next:true unpack:nil rawget:nil | posts 1={} 2={} #2 next:true unpack:{} rawget:{} | list 1=1 2=2 3=3 #3 next:true unpack:1 rawget:1 | shared b1,a2 1={} 2={} #2 next:true unpack:{} rawget:{} | wave=1 spots={} who={} #0 next:true unpack:nil rawget:nil"; !strings.Contains(one.people.String(), want) {
		t.Fatalf("one worker's output lacks %q:\n%s", want, one.people.String())
	}
	for _, tc := range []struct {
		n        int
		contract bool
	}{{1, true}, {2, true}, {3, true}} {
		s := open(tc.n, tc.contract)
		if got, want := s.people.String(), one.people.String(); got != want {
			t.Errorf("workers=%d: the output differs from one worker's without read-only tables:\n%s", tc.n, firstDiff(got, want))
		}
		if got, want := s.trace.String(), one.trace.String(); got != want {
			t.Errorf("workers=%d: the trace differs:\n%s", tc.n, firstDiff(got, want))
		}
		if !bytes.Equal(s.save(), one.save()) {
			t.Errorf("workers=%d: the save differs", tc.n)
		}
	}
}

// TestWorkers_everyWriteToAModuleTableIsAnErrorAtItsLine: on one worker
// and on two, with the contract of several threads, each way of writing a
// module's tables is an error at the script line that writes, and the
// traces are the same.
func TestWorkers_everyWriteToAModuleTableIsAnErrorAtItsLine(t *testing.T) {
	config := writeGame(t, frozenGame())
	var traces []string
	for _, n := range []int{1, 2} {
		cfg, err := LoadConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Run.Workers = 0
		s := startSession(t, cfg, cfg.Dir, &n)
		s.run(1)
		for _, want := range []string{
			`ai/cfg.lua:21: luabind: read-only table: insert cannot change module cfg(metatable).__index.list`,
			`ai/cfg.lua:22: luabind: read-only table: rawset cannot change module cfg.posts[1]`,
			`ai/cfg.lua:23: luabind: read-only table: cannot set [1]: module cfg(metatable).__index.list is read-only`,
			`ai/cfg.lua:24: luabind: read-only table: cannot set __index: module cfg.Class is read-only`,
			`ai/cfg.lua:25: luabind: read-only table: cannot set n: module cfg.Class.__data is read-only`,
			`ai/cfg.lua:26: luabind: read-only table: cannot set v: module cfg.deep.next.next.next.next.next.next.next...(66 more)....next.next.next.next.next.next.next.leaf is read-only`,
		} {
			if !strings.Contains(s.trace.String(), want) {
				t.Errorf("workers=%d: the trace lacks %q:\n%s", n, want, s.trace.String())
			}
		}
		traces = append(traces, s.trace.String())
	}
	if traces[0] != traces[1] {
		t.Errorf("the traces of one and two workers differ:\n%s", firstDiff(traces[1], traces[0]))
	}
}
