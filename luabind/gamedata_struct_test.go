package luabind

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// sentry is a game's struct as agent data through its bt tags, nothing
// written by hand.
type sentry struct {
	HP    float64            `bt:"hp"`
	Name  string             `bt:"name"`
	Pos   struct{ X, Y int } `bt:"-"`
	At    spot               `bt:"at"`
	Loot  []string           `bt:"loot"`
	Marks map[string]int     `bt:"marks"`
}

type spot struct {
	X float64 `bt:"x"`
	Y float64 `bt:"y"`
}

const structScripts = `local bt = require("bt")
bt.action("work", function(ctx, params)
  ctx.agent.hp = ctx.agent.hp - 1
  ctx.agent.at.x = ctx.agent.at.x + 2
  ctx.agent.loot[#ctx.agent.loot + 1] = "coin" .. ctx.agent.hp
  ctx.agent.marks.seen = (ctx.agent.marks.seen or 0) + 1
  return bt.RUNNING
end)
bt.action("spoil", function(ctx, params)
  ctx.agent.at.x = "far"
  return bt.RUNNING
end)
bt.action("bad", function(ctx, params)
  ctx.agent.hp = "lots"
  return bt.RUNNING
end)
`

// TestStructData_luaReadsAndWritesTheStruct: ctx.agent of a tagged struct
// reads its fields by tag, and Lua's writes, into scalar fields and into
// fields that are tables (a nested struct, a slice, a map), change the Go
// values; a write that does not fit is an error at the script, naming the
// field, never dropped: a table's at the line that read it, as its write
// is known only when the call returns.
func TestStructData_luaReadsAndWritesTheStruct(t *testing.T) {
	typ, err := runtime.DeclareData[sentry]()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, map[string]string{"g.lua": structScripts})
	f.bind(tree(`<action id="go" name="work"/>`))
	g := &sentry{HP: 10, At: spot{1, 1}, Marks: map[string]int{}}
	a := f.tree.NewAgent("g", f.env)
	if err := f.e.AttachData(a, typ.Of(g)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got := step(t, a); got != "running" {
			t.Fatal(got)
		}
	}
	if g.HP != 8 || g.At.X != 5 || strings.Join(g.Loot, ",") != "coin9,coin8" || g.Marks["seen"] != 2 {
		t.Errorf("after two steps: %+v", g)
	}
	for _, c := range []struct{ action, want string }{
		{"spoil", "g.lua:10: ctx.agent.at: writing the table back into the game's data: at.x is a number (float64), not a string"},
		{"bad", "g.lua:14: ctx.agent.hp: hp is a number (float64), not a string"},
	} {
		f.bind(tree(`<action id="go" name="` + c.action + `"/>`))
		b := f.tree.NewAgent("g2", f.env)
		if err := f.e.AttachData(b, typ.Of(&sentry{})); err != nil {
			t.Fatal(err)
		}
		if got := step(t, b); !strings.Contains(got, c.want) || !strings.Contains(got, "g.lua") {
			t.Errorf("%s: %s, want an error at the script with %q", c.action, got, c.want)
		}
	}
}
