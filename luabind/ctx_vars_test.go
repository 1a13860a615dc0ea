package luabind

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

const typedDeclsXML = `<variables>
  <variable name="Ammo" type="number" default="12"/>
  <variable name="Target" type="string" default="grunt-2"/>
  <variable name="Pos" type="vector" default="1,2,3"/>
  <variable name="Alert"/>
</variables>`

func TestCtx_getAndSetAreTyped(t *testing.T) {
	f := newFixture(t, map[string]string{"v.lua": `
		bt.action("vars", function(ctx)
			local p = ctx:get("Pos")
			r = {ammo = ctx:get("Ammo"), target = ctx:get("Target"), x = p.x, y = p.y, z = p.z, alert = ctx:get("Alert")}
			ctx:set("Ammo", ctx:get("Ammo") - 3)
			ctx:set("Target", "grunt-7")
			ctx:set("Pos", {x = 4, y = 5, z = -6})
			ctx:set("Alert", true)
			return bt.SUCCESS
		end)`})
	f.bind(tree(typedDeclsXML + `<action id='v' name='vars'><condition>Ammo &gt;= 12</condition></action>`))
	a := f.agent("a1")
	if got := step(t, a); got != "success" {
		t.Fatal(got)
	}
	expectGlobals(t, f, map[string]any{"r.ammo": 12.0, "r.target": "grunt-2", "r.x": 1.0, "r.y": 2.0, "r.z": 3.0, "r.alert": false})
	for name, want := range map[string]runtime.VarValue{"Ammo": runtime.NumberVar(9), "Target": runtime.StringVar("grunt-7"),
		"Pos": runtime.VectorVar(4, 5, -6), "Alert": runtime.BoolVar(true)} {
		if got, _ := a.VarValue(name); !got.Equal(want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}

func TestCtx_setOfTheWrongTypeIsTheStepsError(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`ctx:set("Ammo", "3")`, `ctx:set("Ammo"): variable "Ammo" is a number; got string (expected a finite number)`},
		{`ctx:set("Ammo", 0/0)`, `ctx:set("Ammo"): variable "Ammo" is a number; got the number NaN (expected a finite number)`},
		{`ctx:set("Ammo", math.huge)`, `ctx:set("Ammo"): variable "Ammo" is a number; got the number +Inf (expected a finite number)`},
		{`ctx:set("Pos", {x = 1, y = 2, z = math.huge})`, `ctx:set("Pos"): variable "Pos" is a vector; got a table with a number that is not finite`},
		{`ctx:set("Target", 3)`, `ctx:set("Target"): variable "Target" is a string; got number (expected a string)`},
		{`ctx:set("Pos", {x = 1, y = 2})`, `ctx:set("Pos"): variable "Pos" is a vector; got table (expected a table {x=, y=, z=} of finite numbers)`},
		{`ctx:set("Pos", {x = 1, y = 2, z = 3, w = 4})`, `ctx:set("Pos"): variable "Pos" is a vector; got table`},
		{`ctx:set("Alert", 1)`, `ctx:set("Alert"): variable "Alert" is a boolean; got number (expected true or false)`},
		{`ctx:set("Amo", 1)`, `ctx:set("Amo"): the tree test.xml declares no variable "Amo"; did you mean "Ammo"?`},
		{`ctx:get("Amo")`, `ctx:get("Amo"): the tree test.xml declares no variable "Amo"; did you mean "Ammo"?`},
		{`ctx:var("Ammo")`, `ctx:var("Ammo"): variable "Ammo" is a number, not a boolean; ctx:get reads any type`},
		{`ctx:setVar("Ammo", true)`, `ctx:setVar("Ammo"): variable "Ammo" is a number, not a boolean; ctx:set writes any type`},
	} {
		f := newFixture(t, map[string]string{"e.lua": "bt.action('bad', function(ctx, params)\n  local unused = 1\n  " + c.body + "\n  return bt.SUCCESS\nend)"})
		f.bind(tree(typedDeclsXML + "\n<action id='bad' name='bad'/>"))
		a := f.agent("a1")
		got := step(t, a)
		if !strings.Contains(got, "e.lua:3: "+c.want) || !strings.HasPrefix(got, "error: test.xml:") {
			t.Errorf("%s:\n got  %s\n want e.lua:3: %s", c.body, got, c.want)
		}
		if v, _ := a.VarValue("Ammo"); !v.Equal(runtime.NumberVar(12)) {
			t.Errorf("%s: Ammo = %v after a refused set", c.body, v)
		}
	}
}
