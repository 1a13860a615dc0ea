package main

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/btrun/btrun/runtime"
)

// The program's own game state: the courtyard, its thief (moved by the
// program, not by a tree) and its guards' units. The behavior trees read
// and write the units directly through runtime.AgentData: Lua's ctx.agent,
// the sight plugin's fields and the Go actions (Agent.Data) are the unit,
// nothing is copied into Lua tables and back.

// Courtyard is the program's world.
type Courtyard struct {
	ThiefX, ThiefY float64
	AlarmX, AlarmY float64 // where the last alarm said the thief was
	Units          map[string]*Unit
}

// moveThief moves the thief along its path: a loop around the courtyard,
// a function of the frame, so that two runs of the program agree.
func (c *Courtyard) moveThief(frame int) {
	a := float64(frame) * 0.05
	c.ThiefX, c.ThiefY = 6+5*math.Cos(a), 4+3*math.Sin(2*a)
}

// Unit is one guard: its position, its post, whether it caught the thief.
type Unit struct {
	X, Y         float64
	PostX, PostY float64
	Caught       bool
	yard         *Courtyard
}

// unit makes the guard's unit at its post.
func (c *Courtyard) unit(id string, postX, postY float64) *Unit {
	u := &Unit{X: postX, Y: postY, PostX: postX, PostY: postY, yard: c}
	c.Units[id] = u
	return u
}

// Field is runtime.AgentData: what a tree reads of the unit. thiefX and
// thiefY are the courtyard's, read where they are.
func (u *Unit) Field(name string) runtime.Value {
	switch name {
	case "x":
		return runtime.Number(u.X)
	case "y":
		return runtime.Number(u.Y)
	case "thiefX":
		return runtime.Number(u.yard.ThiefX)
	case "thiefY":
		return runtime.Number(u.yard.ThiefY)
	case "caught":
		return runtime.Bool(u.Caught)
	}
	return runtime.Value{}
}

// SetField is runtime.AgentData: what a tree may change of the unit.
func (u *Unit) SetField(name string, v runtime.Value) error {
	switch {
	case name == "x" && v.Kind == runtime.NumberValue:
		u.X = v.Num
	case name == "y" && v.Kind == runtime.NumberValue:
		u.Y = v.Num
	case name == "caught" && v.Kind == runtime.BoolValue:
		u.Caught = v.Bool
	default:
		return fmt.Errorf("a unit's %s cannot be set to that", name)
	}
	return nil
}

// unitSave is what a save holds of a unit.
type unitSave struct {
	X, Y, PostX, PostY float64
	Caught             bool
}

// MarshalBinary is runtime.AgentData: a btrun save holds these bytes.
func (u *Unit) MarshalBinary() ([]byte, error) {
	return json.Marshal(unitSave{u.X, u.Y, u.PostX, u.PostY, u.Caught})
}

// UnmarshalBinary is runtime.AgentData: a restore gives the bytes back.
func (u *Unit) UnmarshalBinary(b []byte) error {
	var s unitSave
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	u.X, u.Y, u.PostX, u.PostY, u.Caught = s.X, s.Y, s.PostX, s.PostY, s.Caught
	return nil
}
