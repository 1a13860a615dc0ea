package luabind

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestParams_rawAndTypedReads(t *testing.T) {
	f := newFixture(t, map[string]string{"p.lua": `
		bt.action("read", function(ctx, params)
			p = {
				raw = params["wait.seconds"], missing = params["nope"], flag = params["flag"],
				num = params:number("wait.seconds", 9), numDefault = params:number("nope", 9), numNil = params:number("nope"),
				spaced = params:number("spaced"),
				bool = params:bool("flag", false), boolDefault = params:bool("nope", true),
				str = params:string("name", "x"), strDefault = params:string("nope", "x"),
				hidden = params:string("number"), method = type(params.number),
				empty = params:string("empty"), text = tostring(params),
			}
			return bt.SUCCESS
		end)
		bt.condition("sameParams", function(ctx, params) cond = params["name"] return true end)`})
	f.bind(tree(`<action id='r' name='read'>
		<parameter name='wait.seconds'>1.5</parameter>
		<parameter name='flag'>true</parameter>
		<parameter name='name'>bob</parameter>
		<parameter name='spaced'> -2e1 </parameter>
		<parameter name='number'>shadow</parameter>
		<parameter name='empty'></parameter>
		<condition>sameParams</condition>
	</action>`))
	a := f.agent("a1")
	if got := step(t, a); got != "success" {
		t.Fatal(got)
	}
	expectGlobals(t, f, map[string]any{
		"p.raw": "1.5", "p.missing": nil, "p.flag": "true",
		"p.num": 1.5, "p.numDefault": 9.0, "p.numNil": nil, "p.spaced": -20.0,
		"p.bool": true, "p.boolDefault": true, "p.str": "bob", "p.strDefault": "x",
		"p.hidden": "shadow", "p.method": "function", "p.empty": "", "p.text": "params of r",
		"cond": "bob",
	})
}

func TestParams_errorsNameTheRuleAndParameter(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`params:number("name")`, `p.lua:2: params:number: rule r: parameter "name" = "bob" is not a number`},
		{`params:number("inf")`, `p.lua:2: params:number: rule r: parameter "inf" = "inf" is not a number`},
		{`params:bool("name")`, `p.lua:2: params:bool: rule r: parameter "name" = "bob" is not a boolean (true or false)`},
		{`params:number("nope", "5")`, `p.lua:2: bad argument #3 to number (params:number: the default must be a number or nil, not a string)`},
		{`params.number("name")`, `p.lua:2: params:number: call it as a method, with a colon`},
		{`params.x = 1`, `p.lua:2: params are read-only (params["x"] = ...)`},
		{`params[1] = 1`, `p.lua:2: params are read-only (params[1] = ...)`},
		// The library functions that write tables say the same: params are
		// read-only with any number of workers, not because of them.
		{`rawset(params, "x", 1)`, `p.lua:2: params are read-only (rawset cannot change params of r)`},
		{`setmetatable(params, {})`, `p.lua:2: params are read-only (setmetatable cannot change params of r)`},
		{`table.insert(params, 1)`, `p.lua:2: params are read-only (insert cannot change params of r)`},
		{`local remove = table.remove; remove(params)`, `p.lua:2: params are read-only (remove cannot change params of r)`},
		{`table.sort(params)`, `p.lua:2: params are read-only (sort cannot change params of r)`},
	} {
		f := newFixture(t, map[string]string{"p.lua": "bt.action('read', function(ctx, params)\n  " + c.body + "\n  return bt.SUCCESS end)"})
		f.bind(tree(`<action id='r' name='read'><parameter name='name'>bob</parameter><parameter name='inf'>inf</parameter></action>`))
		got := step(t, f.agent("a1"))
		if !strings.Contains(got, `rule r: action "read": `+c.want) {
			t.Errorf("%s:\n got  %s\n want ...%s", c.body, got, c.want)
		}
	}
}

// TestParams_methodsAreFoundAtTheFirstLink: params is the rule's table
// itself, read-only, holding params:number and its kin: a read or a method
// call is a table hit, with no metatable on the way.
func TestParams_methodsAreFoundAtTheFirstLink(t *testing.T) {
	f := newFixture(t, map[string]string{"p.lua": `bt.action("read", function(ctx, params) return bt.SUCCESS end)`})
	f.bind(tree(`<action id='r' name='read'><parameter name='a'>1</parameter></action>`))
	for _, values := range f.e.params {
		for _, m := range []string{"number", "bool", "string", "a"} {
			if values.RawGetString(m) == lua.LNil {
				t.Errorf("params.%s is not in the rule's table", m)
			}
		}
		if !values.ReadOnly() {
			t.Error("the rule's table is not read-only")
		}
	}
	if len(f.e.params) == 0 {
		t.Fatal("no params were bound")
	}
}
