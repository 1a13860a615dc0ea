package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/btrun/btrun/plugins/sdk"
)

// Plugin declares nav's action and condition.
//
// Agent fields (docs/plugins.md): x, y (position, world units), heading
// (radians, 0 along +x, counter-clockwise), and the targets playerX/playerY
// and targetX/targetY (any spot a script picks: a post, a pickup, the
// place the player was last seen).
func Plugin() *sdk.Plugin {
	return &sdk.Plugin{
		Name: "nav",
		Actions: []sdk.Action{{
			Name:   "nav.moveTo",
			Reads:  targetFields,
			Writes: []string{"x", "y", "heading"},
			Run:    moveTo,
			Doc:    "walks the agent towards a target along a shortest grid path: running while moving, success on arrival, failure when the target cannot be reached",
			Params: []sdk.ParamInfo{targetParam,
				{Name: "nav.speed", Type: "number", Default: "4", Doc: "units per second"},
				{Name: "nav.arrive", Type: "number", Default: "0.5", Doc: "distance at which the agent has arrived"},
				gridParam},
		}},
		Conditions: []sdk.Condition{{
			Name:   "nav.reachable",
			Reads:  targetFields,
			Test:   reachable,
			Doc:    "the target can be reached from the agent's cell",
			Params: []sdk.ParamInfo{targetParam, gridParam},
		}},
	}
}

var (
	targetParam = sdk.ParamInfo{Name: "nav.target", Type: "player, target or X,Y", Required: true,
		Doc: "player (fields playerX, playerY), target (fields targetX, targetY), or X,Y in world units"}
	gridParam = sdk.ParamInfo{Name: "nav.grid", Type: "grid rows", Default: "the arena",
		Doc: "another grid: rows separated by /, # for a wall, . for floor"}
)

// targetFields are the fields nav reads. Only declared fields travel with a
// call, so the list is short: a script that wants another target copies it
// to targetX/targetY.
var targetFields = []string{"x", "y", "playerX", "playerY", "targetX", "targetY"}

// Parameter defaults.
const (
	defaultSpeed  = 4.0 // units per second
	defaultArrive = 0.5 // units
)

// target resolves nav.target: "player", "target" (the agent's fields
// playerX/playerY, targetX/targetY) or "X,Y" in world units.
func target(c *sdk.Call) (float64, float64, error) {
	t, ok := c.Params.Get("nav.target")
	if !ok {
		return 0, 0, fmt.Errorf("nav: %s needs parameter nav.target (player, target, or X,Y)", c.Name)
	}
	if xs, ys, ok := strings.Cut(t, ","); ok {
		x, err1 := strconv.ParseFloat(strings.TrimSpace(xs), 64)
		y, err2 := strconv.ParseFloat(strings.TrimSpace(ys), 64)
		if err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("nav: nav.target = %q: X,Y must be two numbers", t)
		}
		return x, y, nil
	}
	switch t {
	case "player", "target":
		x, okx := c.FieldFloat(t + "X")
		y, oky := c.FieldFloat(t + "Y")
		if !okx || !oky {
			return 0, 0, fmt.Errorf("nav: nav.target = %q: agent %s has no numeric fields %sX and %sY", t, c.Agent, t, t)
		}
		return x, y, nil
	}
	return 0, 0, fmt.Errorf("nav: nav.target = %q: use player, target, or X,Y", t)
}

func position(c *sdk.Call) (float64, float64, error) {
	x, okx := c.FieldFloat("x")
	y, oky := c.FieldFloat("y")
	if !okx || !oky {
		return 0, 0, fmt.Errorf("nav: agent %s has no numeric fields x and y", c.Agent)
	}
	return x, y, nil
}

// moveTo walks the agent towards its target along a grid path: running
// while it moves, success once within nav.arrive of the target, failure when
// the target cannot be reached. The path is planned on the first call and
// again whenever the target moves to another cell; it lives in the rule's
// state bytes.
func moveTo(c *sdk.Call) (sdk.Status, error) {
	g, err := gridFor(c.Params.String("nav.grid", ""))
	if err != nil {
		return 0, err
	}
	speed, err := c.Params.Float("nav.speed", defaultSpeed)
	if err != nil {
		return 0, err
	}
	arrive, err := c.Params.Float("nav.arrive", defaultArrive)
	if err != nil {
		return 0, err
	}
	x, y, err := position(c)
	if err != nil {
		return 0, err
	}
	tx, ty, err := target(c)
	if err != nil {
		return 0, err
	}
	if math.Hypot(tx-x, ty-y) <= arrive {
		return sdk.Success, nil
	}
	r, err := decodeRoute(c.State())
	if err != nil {
		return 0, err
	}
	goalX, goalY := g.Cell(tx, ty)
	goal := Point{goalX, goalY}
	if r == nil || r.goal != goal {
		sx, sy := g.Cell(x, y)
		cells, ok := g.FindPath(Point{sx, sy}, goal)
		if !ok {
			c.SetState(nil)
			return sdk.Failure, nil
		}
		r = &route{goal: goal, cells: cells}
	}
	// Walk speed*dt along the waypoints: the centres of the route's cells
	// but the goal's, then the target itself.
	budget := speed * c.Dt
	heading := math.NaN()
	for budget > 1e-12 {
		wx, wy := tx, ty
		if r.next < len(r.cells)-1 {
			wx, wy = float64(r.cells[r.next].X)+0.5, float64(r.cells[r.next].Y)+0.5
		}
		dx, dy := wx-x, wy-y
		d := math.Hypot(dx, dy)
		if d > 0 {
			heading = math.Atan2(dy, dx)
		}
		if d <= budget {
			x, y, budget = wx, wy, budget-d
			if r.next >= len(r.cells)-1 {
				break // at the target
			}
			r.next++
			continue
		}
		x, y = x+dx/d*budget, y+dy/d*budget
		budget = 0
	}
	if err := c.SetField("x", x); err != nil {
		return 0, err
	}
	if err := c.SetField("y", y); err != nil {
		return 0, err
	}
	if !math.IsNaN(heading) {
		if err := c.SetField("heading", heading); err != nil {
			return 0, err
		}
	}
	if math.Hypot(tx-x, ty-y) <= arrive {
		c.SetState(nil)
		return sdk.Success, nil
	}
	c.SetState(r.encode())
	return sdk.Running, nil
}

// reachable is true when the target's cell can be reached from the agent's.
func reachable(c *sdk.Call) (bool, error) {
	g, err := gridFor(c.Params.String("nav.grid", ""))
	if err != nil {
		return false, err
	}
	x, y, err := position(c)
	if err != nil {
		return false, err
	}
	tx, ty, err := target(c)
	if err != nil {
		return false, err
	}
	sx, sy := g.Cell(x, y)
	gx, gy := g.Cell(tx, ty)
	return g.Reachable(sx, sy, gx, gy), nil
}
