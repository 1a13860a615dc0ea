package runtime_test

import (
	"fmt"

	"github.com/btrun/btrun/runtime"
)

// ExampleAgent_SetVarValue: typed variables from Go. The tree compares the
// grunt's ammunition and its target without a script; Go reads and sets
// them typed, and a value of the wrong type is refused.
func ExampleAgent_SetVarValue() {
	tree, err := runtime.LoadBytes("grunt.xml", []byte(`<behaviorTree>
  <variables>
    <variable name="Ammo" type="number" default="2"/>
    <variable name="Target" type="string" default="player"/>
  </variables>
  <choice id="root">
    <action id="shoot" name="bt.variable.set">
      <condition>Ammo &gt; 0</condition><condition>Target != ""</condition>
      <parameter name="variable.name">Ammo</parameter><parameter name="variable.add">-1</parameter>
    </action>
    <action id="reload" name="bt.variable.set">
      <parameter name="variable.name">Ammo</parameter><parameter name="variable.value">2</parameter>
    </action>
  </choice>
</behaviorTree>`), runtime.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := runtime.Bind(tree, runtime.NewRegistry(), runtime.BindOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	a := b.NewAgent("grunt-1", nil)
	for range 3 {
		a.Step(0.1)
		ammo, _ := a.VarValue("Ammo")
		fmt.Println(a.CursorLabel(), "Ammo =", ammo)
	}
	fmt.Println(a.SetVarValue("Target", runtime.StringVar("")))
	a.Step(0.1)
	ammo, _ := a.VarValue("Ammo")
	fmt.Println("no target: Ammo =", ammo)
	fmt.Println(a.SetVarValue("Ammo", runtime.StringVar("lots")))
	// Output:
	// root Ammo = 1
	// root Ammo = 0
	// root Ammo = 2
	// <nil>
	// no target: Ammo = 2
	// runtime: agent grunt-1: runtime: bad variable value: variable "Ammo" is a number, not a string
}
