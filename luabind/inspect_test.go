package luabind

import (
	"encoding/json"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestInspect_showsEveryValueWithinItsBudget: Inspect never fails: values
// a save cannot hold are named, cycles are marked, long strings and big
// tables are cut, and the result is JSON.
func TestInspect_showsEveryValueWithinItsBudget(t *testing.T) {
	f := newFixture(t, map[string]string{})
	L := f.e.State()
	if err := L.DoString(`
		v = { 1, "two", true, x = 0/0, y = 1/0, z = -1/0, f = print, nested = { deep = { 3 } } }
		v.self = v
		long = string.rep("é", 800)
		big = {}
		for i = 1, 50 do big[i] = i end
	`); err != nil {
		t.Fatal(err)
	}
	show := func(name string, budget int) string {
		data, err := json.Marshal(Inspect(L.GetGlobal(name), budget))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	got := show("v", 0)
	for _, want := range []string{`[1,1]`, `[2,"two"]`, `[3,true]`, `["x",{"number":"nan"}]`, `["y",{"number":"inf"}]`,
		`["z",{"number":"-inf"}]`, `["f",{"lua":"function"}]`, `["nested",{"table":[["deep",{"table":[[1,3]]}]]}]`, `["self",{"cycle":true}]`} {
		if !strings.Contains(got, want) {
			t.Errorf("v: %s lacks %s", got, want)
		}
	}
	if got := show("long", 0); !strings.Contains(got, `"length":1600`) || strings.Count(got, "é") != InspectMaxString/2 {
		t.Errorf("long string: %.80s...", got)
	}
	if got := show("big", 21); !strings.Contains(got, `"more":40`) {
		t.Errorf("big table with a budget of 21 values: %s", got)
	}
	if got := Inspect(lua.LNil, 0); got != nil {
		t.Errorf("nil: %v", got)
	}
}

// TestInspectAgent_showsAFrozenTableByItsEntries: a module table kept in
// ctx.memory shows what it holds, frozen or not (readonly.go).
func TestInspectAgent_showsAFrozenTableByItsEntries(t *testing.T) {
	f := newFixture(t, map[string]string{
		"cfg.lua": `return {posts = {{x = 1}}}`,
		"act.lua": `local cfg = require("cfg")
bt.action("keep", function(ctx) ctx.memory.posts = cfg.posts return bt.SUCCESS end)`,
	})
	f.e.Freeze()
	f.bind(tree(`<action id='a' name='keep'/>`))
	a := f.agent("x")
	if got := step(t, a); got != "success" {
		t.Fatal(got)
	}
	_, memory, _ := f.e.InspectAgent(a, 0)
	data, _ := json.Marshal(memory)
	if want := `{"table":[["posts",{"table":[[1,{"table":[["x",1]]}]]}]]}`; string(data) != want {
		t.Errorf("memory: %s, want %s", data, want)
	}
}
