package host

import (
	"fmt"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// gameUnit is a game's own agent data (runtime.AgentData): plain Go fields,
// no Lua table and no FieldAccess of its own.
type gameUnit struct {
	x    float64
	flag bool
}

func (u *gameUnit) Field(name string) runtime.Value {
	switch name {
	case "x":
		return runtime.Number(u.x)
	case "flag":
		return runtime.Bool(u.flag)
	}
	return runtime.Value{}
}

func (u *gameUnit) SetField(name string, v runtime.Value) error {
	if name != "x" || v.Kind != runtime.NumberValue {
		return fmt.Errorf("gameUnit: no field %s of kind %d", name, v.Kind)
	}
	u.x = v.Num
	return nil
}

func (u *gameUnit) MarshalBinary() ([]byte, error) { return nil, nil }
func (u *gameUnit) UnmarshalBinary([]byte) error   { return nil }

// TestPlugin_readsAndWritesTheGamesOwnAgentData runs the plugin action that
// reads and writes field x, and the condition that reads field flag, on
// agents whose data is the game's Go values: the plugin sees and changes
// them directly.
func TestPlugin_readsAndWritesTheGamesOwnAgentData(t *testing.T) {
	w := newWorld(t, `<behaviorTree><sequence id="root" loop="true">
  <action id=".move" name="test.move"><parameter name="move.dx">2.5</parameter><condition>test.flag</condition></action>
  <yield id=".rest"/>
</sequence></behaviorTree>`, []Spec{helperSpec("test", "plugin")}, Options{}, 2, nil)
	units := []*gameUnit{{x: 1, flag: true}, {x: 1, flag: false}}
	for i, a := range w.agents {
		a.SetUserData(units[i])
	}
	for range 3 {
		for _, o := range w.step() {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
		}
	}
	if units[0].x != 1+3*2.5 {
		t.Errorf("unit 1: x = %v, want 8.5 (a move a step; the plugin's writes reach the Go value)", units[0].x)
	}
	if units[1].x != 1 {
		t.Errorf("unit 2: x = %v, want 1 (its flag is false: the condition read it)", units[1].x)
	}
}

// taggedUnit is a game's struct made agent data by its bt tags.
type taggedUnit struct {
	X    float64 `bt:"x"`
	Flag bool    `bt:"flag"`
}

// TestPlugin_readsAndWritesATaggedStruct: a plugin's fields are the
// tagged struct's fields, read and written in the game's Go value.
func TestPlugin_readsAndWritesATaggedStruct(t *testing.T) {
	typ, err := runtime.DeclareData[taggedUnit]()
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, `<behaviorTree><sequence id="root" loop="true">
  <action id=".move" name="test.move"><parameter name="move.dx">2.5</parameter><condition>test.flag</condition></action>
  <yield id=".rest"/>
</sequence></behaviorTree>`, []Spec{helperSpec("test", "plugin")}, Options{}, 2, nil)
	units := []*taggedUnit{{X: 1, Flag: true}, {X: 1, Flag: false}}
	for i, a := range w.agents {
		a.SetUserData(typ.Of(units[i]))
	}
	for range 3 {
		for _, o := range w.step() {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
		}
	}
	if units[0].X != 1+3*2.5 || units[1].X != 1 {
		t.Errorf("x = %v and %v, want 8.5 (moved) and 1 (its flag is false)", units[0].X, units[1].X)
	}
}
