package luabind

import (
	"errors"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

func TestLoad_runsFilesInPathOrderAndEachModuleOnce(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.lua":         `order = (order or "") .. "a"; local u = require("util.text"); order = order .. u.tag`,
		"b.lua":         `order = order .. "b"`,
		"util/text.lua": `order = (order or "") .. "t"; return {tag = "!"}`,
		"z.d.lua":       `error("annotation files are not loaded")`,
	})
	f.do(`assert(order == "atb!" or order == "at!b", order)`)
	f.do(`assert(order == "at!b", "got " .. order)`)
}

func TestLoad_requireFindsOnlyScriptFolders(t *testing.T) {
	f := newFixtureNoLoad(t, map[string]string{"a.lua": `require("os")`})
	err := f.e.Load()
	if err == nil {
		t.Fatal("Load succeeded")
	}
	wantContains(t, err.Error(), `a.lua:1: module "os" not found: require looks only in the script folders`)
	var se *ScriptError
	if !errors.As(err, &se) || se.File != "a.lua" || se.Line != 1 || !errors.Is(err, ErrScript) {
		t.Errorf("error %#v, want a ScriptError at a.lua:1 wrapping ErrScript", se)
	}
}

func TestLoad_requireCycleIsAnError(t *testing.T) {
	f := newFixtureNoLoad(t, map[string]string{
		"a.lua": `require("b")`,
		"b.lua": `require("a")`,
	})
	err := f.e.Load()
	if err == nil {
		t.Fatal("Load succeeded")
	}
	wantContains(t, err.Error(), `b.lua:1: module "a" requires itself`)
}

func TestLoad_reportsEverySyntaxErrorWithPosition(t *testing.T) {
	f := newFixtureNoLoad(t, map[string]string{
		"good.lua":  `x = 1`,
		"bad1.lua":  "local x = 1\nif x then\n  y = = 2\nend\n",
		"bad2.lua":  "function f()\n  return 1\n",
		"sub/3.lua": "x = 'unterminated\n",
	})
	err := f.e.Load()
	var list runtime.ErrorList
	if !errors.As(err, &list) || len(list) != 3 {
		t.Fatalf("got %v, want a list of 3 errors", err)
	}
	got := err.Error()
	wantContains(t, got, "bad1.lua:3:7: syntax error near '='", "bad2.lua:3: syntax error at the end of the file", "sub/3.lua:2: unterminated string")
	if !errors.Is(err, ErrSyntax) {
		t.Error("errors.Is(err, ErrSyntax) = false")
	}
	// The scripts that compiled still run, so that their actions bind and
	// one load reports every other problem too.
	f.do(`assert(x == 1, "a good script runs although others have syntax errors")`)
}

func TestLoad_runtimeErrorsOfEveryFileAreReported(t *testing.T) {
	f := newFixtureNoLoad(t, map[string]string{
		"a.lua": "local t = nil\nprint(t.x)",
		"b.lua": "ok = true",
		"c.lua": "error('nope')",
	})
	err := f.e.Load()
	if err == nil {
		t.Fatal("Load succeeded")
	}
	wantContains(t, err.Error(), "a.lua:2: attempt to index a non-table object(nil) with key 'x'", "c.lua:1: nope")
	f.do(`assert(ok)`)
}

func TestLoad_duplicateNamesNameBothOrigins(t *testing.T) {
	f := newFixtureNoLoad(t, map[string]string{
		"a.lua": "local bt = require('bt')\nbt.action('walk', function() return bt.SUCCESS end)",
		"b.lua": "local bt = require('bt')\n\nbt.action('walk', function() return bt.SUCCESS end)",
	})
	err := f.e.Load()
	if err == nil {
		t.Fatal("Load succeeded")
	}
	wantContains(t, err.Error(), `b.lua:3: action "walk" is already registered at a.lua:2`)
}

func TestRegister_luaAgainstBuiltinNamesBothOrigins(t *testing.T) {
	f := newFixtureNoLoad(t, map[string]string{
		"a.lua": "bt.action('bt.wait', function() return bt.SUCCESS end)\nbt.condition('bt.mine', function() return true end)",
	})
	if err := f.e.Load(); err != nil {
		t.Fatal(err)
	}
	err := f.e.Register(f.reg)
	if err == nil {
		t.Fatal("Register succeeded")
	}
	wantContains(t, err.Error(),
		`action "bt.wait" from lua a.lua:1 is already registered from builtin`,
		`condition "bt.mine" from lua a.lua:2: names starting with "bt." are reserved for the built-ins`)
	if !errors.Is(err, ErrDuplicate) || !errors.Is(err, runtime.ErrDuplicate) {
		t.Error("want errors.Is ErrDuplicate (both packages)")
	}
}

func TestRegister_luaAgainstGoNamesBothOrigins(t *testing.T) {
	f := newFixtureNoLoad(t, map[string]string{"walk.lua": "bt.action('walk', function() return bt.SUCCESS end)"})
	if err := f.e.Load(); err != nil {
		t.Fatal(err)
	}
	f.reg.RegisterAction("walk", runtime.ActionFunc(func(*runtime.Agent, runtime.Params) (runtime.Status, error) { return runtime.Success, nil }))
	err := f.e.Register(f.reg)
	if err == nil {
		t.Fatal("Register succeeded")
	}
	wantContains(t, err.Error(), `action "walk" from lua walk.lua:1 is already registered from go`)
}

func TestLoad_badRegistrations(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`bt.action("", function() end)`, "bad argument #1"},
		{`bt.action("x", 5)`, "a function, or a table {start = fn, run = fn, cancel = fn, on = {...}, params = {...}}"},
		{`bt.action("x", {start = function() end})`, `bt.action "x": the long form needs a run function`},
		{`bt.action("x", {run = function() end, canel = function() end})`, `unknown key "canel"`},
		{`bt.action("x", {run = 1})`, `run must be a function, not a number`},
		{`bt.condition("!x", function() end)`, `cannot start with "!"`},
		{`bt.condition("x", {})`, `bt.condition "x": the long form needs a test function`},
		{`bt.condition("x", 5)`, `a function(ctx, params) returning true or false, or a table {test = fn, params = {...}}`},
		{`bt.condition("x", {test = function() end, tset = 1})`, `unknown key "tset"; the long form has test and params`},
		{`bt.action("x", {run = function() end, params = "speed"})`, `params must be a table of parameter names, not a string`},
		{`bt.action("x", {run = function() end, params = {1}})`, `params lists parameter names (strings), not a number`},
		{`bt.action("x", {run = function() end, params = {["a.b"] = 2}})`, `params["a.b"] must be a description (a string), not a number`},
	} {
		f := newFixtureNoLoad(t, map[string]string{"r.lua": c.src})
		err := f.e.Load()
		if err == nil {
			t.Errorf("%s: Load succeeded", c.src)
			continue
		}
		if !strings.HasPrefix(err.Error(), "r.lua:1: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got  %v\n want r.lua:1: ...%s", c.src, err, c.want)
		}
	}
}

func TestLoad_registeringAfterLoadIsAnError(t *testing.T) {
	f := newFixture(t, nil)
	err := f.e.DoString("late.lua", `bt.action("late", function() end)`)
	if err == nil || !strings.Contains(err.Error(), "late.lua:1: bt.action may only be called while the scripts load") {
		t.Errorf("got %v", err)
	}
}

func TestNew_missingFolder(t *testing.T) {
	_, err := New(Options{Paths: []string{"no/such/folder"}})
	if err == nil || !strings.HasPrefix(err.Error(), "luabind: script folder") {
		t.Errorf("got %v", err)
	}
}

// TestRegister_declaredParams: the long forms' params reach the registry
// (names, and names with descriptions); without params nothing is declared.
func TestRegister_declaredParams(t *testing.T) {
	f := newFixture(t, map[string]string{"p.lua": `
bt.action("chase", {run = function() return bt.SUCCESS end, params = {"chase.speed", ["chase.range"] = "metres"}})
bt.action("none", {run = function() return bt.SUCCESS end, params = {}})
bt.action("quiet", function() return bt.SUCCESS end)
bt.condition("near", {test = function() return true end, params = {"near.range"}})`})
	chase, _ := f.reg.LookupAction("chase")
	if got := chase.Params; len(got) != 2 || got[0].Name != "chase.speed" || got[1].Name != "chase.range" || got[1].Doc != "metres" {
		t.Errorf("chase: %+v", got)
	}
	if none, _ := f.reg.LookupAction("none"); none.Params == nil || len(none.Params) != 0 {
		t.Errorf("params = {} declares none: %#v", none.Params)
	}
	if quiet, _ := f.reg.LookupAction("quiet"); quiet.Params != nil {
		t.Errorf("the short form declares nothing: %#v", quiet.Params)
	}
	if near, _ := f.reg.LookupCondition("near"); len(near.Params) != 1 || near.Params[0].Name != "near.range" {
		t.Errorf("near: %+v", near.Params)
	}
}
