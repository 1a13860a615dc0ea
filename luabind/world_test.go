package luabind

import (
	"errors"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

const worldLua = `
local world = {log = {}}
local function rec(s) world.log[#world.log + 1] = s end
function world.init(game) rec("init " .. game.name) end
function world.spawn(ctx)
  ctx.agent.x, ctx.agent.y = #world.log, 0
  rec("spawn " .. ctx.id)
end
function world.tick(game) rec("tick " .. game.step) end
function world.save() return {count = #world.log} end
function world.load(t) rec("load " .. t.count) end
return world
`

func TestWorld_hooks(t *testing.T) {
	f := newFixture(t, map[string]string{"world.lua": worldLua, "act.lua": `bt.action("ok", function() return bt.SUCCESS end)`})
	f.bind(tree(`<action id='a' name='ok'/>`))
	w, err := f.e.LoadWorld("world.lua")
	if err != nil {
		t.Fatal(err)
	}
	if w.Module() != "world" || !w.Has("tick") || w.Has("nope") {
		t.Errorf("module %q", w.Module())
	}
	game := f.e.L.NewTable()
	game.RawSetString("name", lua.LString("demo"))
	game.RawSetString("step", lua.LNumber(0))
	if err := w.Init(game); err != nil {
		t.Fatal(err)
	}
	a := f.agent("a1")
	if err := w.Spawn(a); err != nil {
		t.Fatal(err)
	}
	if x, _ := a.UserData().(*AgentData).GetField("x"); x != 1.0 {
		t.Errorf("spawn set x = %v", x)
	}
	if err := w.Tick(game); err != nil {
		t.Fatal(err)
	}
	saved, err := w.Save()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Load(saved); err != nil {
		t.Fatal(err)
	}
	f.do(`local w = require("world"); _log = table.concat(w.log, ", ")`)
	if got := f.e.L.GetGlobal("_log").String(); got != "init demo, spawn a1, tick 0, load 3" {
		t.Errorf("log: %s", got)
	}
}

func TestWorld_hooksAreOptional(t *testing.T) {
	f := newFixture(t, map[string]string{"w.lua": `return {}`})
	w, err := f.e.LoadWorld("w")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Init(nil); err != nil {
		t.Error(err)
	}
	if err := w.Tick(nil); err != nil {
		t.Error(err)
	}
	if v, err := w.Save(); err != nil || v != lua.LNil {
		t.Errorf("Save without hook: %v, %v", v, err)
	}
}

func TestWorld_errors(t *testing.T) {
	f := newFixture(t, map[string]string{
		"notable.lua": `return 5`,
		"badhook.lua": `return {tick = "soon"}`,
		"boom.lua":    "return {tick = function(game)\n  error('world fell over')\nend}",
	})
	if _, err := f.e.LoadWorld("missing"); !errors.Is(err, ErrModule) {
		t.Errorf("missing: %v", err)
	}
	if _, err := f.e.LoadWorld("notable"); err == nil || !strings.Contains(err.Error(), "world module \"notable\" returns a number") {
		t.Errorf("notable: %v", err)
	}
	if _, err := f.e.LoadWorld("badhook"); err == nil || !strings.Contains(err.Error(), "tick is a string, not a function") {
		t.Errorf("badhook: %v", err)
	}
	w, err := f.e.LoadWorld("boom")
	if err != nil {
		t.Fatal(err)
	}
	err = w.Tick(f.e.L.NewTable())
	if err == nil || err.Error() != `luabind: world module "boom", tick: boom.lua:2: world fell over` || !errors.Is(err, ErrScript) {
		t.Errorf("tick: %v", err)
	}
}

// TestLoad_aBrokenModuleIsReportedOnce: a module with a syntax error is one
// problem. Scripts that require it, and a world module that is it, add none
// of their own, and the names it would register are known as unloaded (so
// binding does not call them unknown).
func TestLoad_aBrokenModuleIsReportedOnce(t *testing.T) {
	f := newFixtureNoLoad(t, map[string]string{
		"world.lua": "local bt = require('bt')\nlocal world = {\nbt.action(\"spot\", function() end)\nreturn world\n",
		"user.lua":  "local bt = require('bt')\nlocal w = require('world')\nbt.condition('near', function() return true end)\n",
		"ok.lua":    "local bt = require('bt')\nbt.action('fine', function() return bt.SUCCESS end)\n",
	})
	err := f.e.Load()
	var list runtime.ErrorList
	if !errors.As(err, &list) || len(list) != 1 || !strings.Contains(list[0].Error(), "world.lua:4:6: syntax error") {
		t.Fatalf("Load: want only world.lua's syntax error, got %v", err)
	}
	if _, err := f.e.LoadWorld("world"); !errors.Is(err, ErrNotLoaded) {
		t.Errorf("LoadWorld of the broken module: %v, want ErrNotLoaded", err)
	}
	if _, err := f.e.LoadWorld("world.lua"); err != nil && !errors.Is(err, ErrNotLoaded) {
		t.Errorf("LoadWorld by file: %v, want ErrNotLoaded", err)
	}
	for _, n := range []struct{ kind, name, file string }{{"action", "spot", "world.lua"}, {"condition", "near", "user.lua"}} {
		if file, ok := f.e.Unloaded(n.kind, n.name); !ok || file != n.file {
			t.Errorf("Unloaded(%s %s) = %q, %v; want %s", n.kind, n.name, file, ok, n.file)
		}
	}
	if _, ok := f.e.Unloaded("action", "fine"); ok {
		t.Error("a loaded script's action counts as unloaded")
	}
}
