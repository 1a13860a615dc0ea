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
		{`bt.action("x", 5)`, "a function, or a table {start = fn, run = fn, cancel = fn}"},
		{`bt.action("x", {start = function() end})`, `bt.action "x": the long form needs a run function`},
		{`bt.action("x", {run = function() end, canel = function() end})`, `unknown key "canel"`},
		{`bt.action("x", {run = 1})`, `run must be a function, not a number`},
		{`bt.condition("!x", function() end)`, `cannot start with "!"`},
		{`bt.condition("x", {})`, `a function(ctx, params) returning true or false`},
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
