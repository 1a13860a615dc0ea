package luabind_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/runtime"
)

// Example runs a tree whose action is written in Lua.
func Example() {
	dir, _ := os.MkdirTemp("", "scripts")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "walk.lua"), []byte(`
local bt = require("bt")
bt.action("walk", function(ctx, params)
  ctx.agent.x = (ctx.agent.x or 0) + params:number("walk.speed", 1) * ctx.dt
  if ctx.agent.x >= 2 then return bt.SUCCESS end
  return bt.RUNNING
end)
`), 0o644)

	eng, err := luabind.New(luabind.Options{Paths: []string{dir}, Root: dir, Seed: 1})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	reg := runtime.NewRegistry()
	if err := eng.Load(); err != nil {
		panic(err)
	}
	if err := eng.Register(reg); err != nil {
		panic(err)
	}
	tree, err := runtime.LoadBytes("walker.xml", []byte(`<behaviorTree>
  <action id="walk" name="walk"><parameter name="walk.speed">2</parameter></action>
</behaviorTree>`), runtime.LoadOptions{})
	if err != nil {
		panic(err)
	}
	bound, err := runtime.Bind(tree, reg, runtime.BindOptions{})
	if err != nil {
		panic(err)
	}
	a := bound.NewAgent("walker-1", nil)
	eng.Attach(a)
	data, _ := eng.Data(a)
	for i := 0; i < 3; i++ {
		st, _ := a.Step(0.5)
		x, _ := data.GetField("x")
		fmt.Println(st, x)
	}
	// Output:
	// running 1
	// success 2
	// success 3
}

// body is a game object that scripts call through gopher-luar.
type body struct{ X float64 }

func (b *body) Push(dx float64) { b.X += dx }

// ExampleEngine_Wrap exposes a game's Go object to scripts with
// gopher-luar: fields and methods become usable from Lua.
func ExampleEngine_Wrap() {
	eng, _ := luabind.New(luabind.Options{})
	defer eng.Close()
	b := &body{X: 1}
	eng.SetGlobal("player", b)
	if err := eng.DoString("demo", `player:Push(2)`); err != nil {
		panic(err)
	}
	fmt.Println(b.X)
	// Output:
	// 3
}
