package runtime_test

import (
	"fmt"

	"github.com/btrun/btrun/runtime"
)

// NPC is a game's own struct; its bt-tagged fields are what trees see.
type NPC struct {
	HP   float64  `bt:"hp"`
	Loot []string `bt:"loot"`
	Mind string   // untagged: the game's alone, never seen nor saved
}

// ExampleDeclareData makes a game's struct an agent's data: a Go action
// reads it back typed, and its fields are what Lua's ctx.agent and
// plugins read and write.
func ExampleDeclareData() {
	npcs, err := runtime.DeclareData[NPC]() // once, at start-up
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, _ := runtime.LoadBytes("npc.xml", []byte(`<behaviorTree><action id="hurt" name="hurt"/></behaviorTree>`), runtime.LoadOptions{})
	reg := runtime.NewRegistry()
	reg.RegisterAction("hurt", runtime.ActionFunc(func(a *runtime.Agent, _ runtime.Params) (runtime.Status, error) {
		npc := runtime.DataOf[*NPC](a) // the struct itself, no copy
		npc.HP--
		return runtime.Running, nil
	}))
	bound, _ := runtime.Bind(tree, reg, runtime.BindOptions{})
	a := bound.NewAgent("orc-1", nil)
	orc := &NPC{HP: 10}
	data := npcs.Of(orc)
	a.SetUserData(data)
	a.Step(0.1)
	a.Step(0.1)

	// What a script or plugin sees and writes, by tag:
	fmt.Println(data.Field("hp").Num)
	fmt.Println(data.SetField("loot", runtime.List("axe")), orc.Loot)
	fmt.Println(data.SetField("hp", runtime.String("full")))
	// Output:
	// 8
	// <nil> [axe]
	// hp is a number (float64), not a string
}

// ExampleTable builds signal data and reads it back.
func ExampleTable() {
	data := runtime.Table("who", "grunt-2", "at", runtime.List(4, 2.5))
	fmt.Println(data.Get("who").Str(), data.Get("at").Index(2).Num(), data.Get("hp").Found())
	// Output:
	// grunt-2 2.5 false
}
