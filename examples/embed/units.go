package main

import (
	"math"
)

// The program's own game state: the courtyard, its thief (moved by the
// program, not by a tree) and its guards' units. The units are plain Go
// structs whose bt-tagged fields the behavior trees read and write
// directly: Lua's ctx.agent, the sight plugin's fields and the Go actions
// (runtime.DataOf) are the unit; nothing is copied into Lua tables and
// back, and no method is written for it (runtime.DeclareData reads the
// tags once).

// Courtyard is the program's world.
type Courtyard struct {
	ThiefX, ThiefY float64
	AlarmX, AlarmY float64 // where the last alarm said the thief was
	Units          map[string]*Unit
}

// moveThief moves the thief along its path: a loop around the courtyard,
// a function of the frame, so that two runs of the program agree. Every
// guard's unit learns where it is (what the sight plugin compares).
func (c *Courtyard) moveThief(frame int) {
	a := float64(frame) * 0.05
	c.ThiefX, c.ThiefY = 6+5*math.Cos(a), 4+3*math.Sin(2*a)
	for _, u := range c.Units {
		u.ThiefX, u.ThiefY = c.ThiefX, c.ThiefY
	}
}

// Unit is one guard: its position, its post, whether it caught the thief,
// where it caught it before. The bt tags are the names the trees use; a
// btrun save holds those fields (and the program's own, yard, is none of
// btrun's).
type Unit struct {
	X       float64 `bt:"x"`
	Y       float64 `bt:"y"`
	PostX   float64 `bt:"postX"`
	PostY   float64 `bt:"postY"`
	Caught  bool    `bt:"caught"`
	ThiefX  float64 `bt:"thiefX"`  // where the thief is, as the program tells the guard
	ThiefY  float64 `bt:"thiefY"`  //
	Catches []Spot  `bt:"catches"` // a table in Lua: chase adds to it
	yard    *Courtyard
}

// Spot is a place in the courtyard (a table {x =, y =} in Lua).
type Spot struct {
	X float64 `bt:"x"`
	Y float64 `bt:"y"`
}

// unit makes the guard's unit at its post.
func (c *Courtyard) unit(id string, postX, postY float64) *Unit {
	u := &Unit{X: postX, Y: postY, PostX: postX, PostY: postY, ThiefX: c.ThiefX, ThiefY: c.ThiefY, yard: c}
	c.Units[id] = u
	return u
}
