package main

import (
	"math"
	"strings"
	"testing"

	"github.com/btrun/btrun/plugins/sdk"
)

func tester(t *testing.T) *sdk.Tester {
	t.Helper()
	tt, err := sdk.NewTester(Plugin())
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// walk runs nav.moveTo until it finishes (at most max steps of dt 0.1),
// checking that the agent never stands in a wall.
func walk(t *testing.T, tt *sdk.Tester, ag *sdk.TestAgent, params map[string]string, max int) (sdk.Status, int) {
	t.Helper()
	g, _ := gridFor(params["nav.grid"])
	for i := 1; i <= max; i++ {
		st, err := tt.Run(ag, "nav.moveTo", params, 0.1)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		x, y := ag.Fields["x"].(float64), ag.Fields["y"].(float64)
		if cx, cy := g.Cell(x, y); g.Blocked(cx, cy) {
			t.Fatalf("step %d: the agent walked into the wall cell %d,%d (%.2f, %.2f)", i, cx, cy, x, y)
		}
		if st != sdk.Running {
			return st, i
		}
	}
	return sdk.Running, max
}

func TestMoveTo_walksAroundWallsAndArrives(t *testing.T) {
	tt := tester(t)
	ag := sdk.NewTestAgent("guard-1", map[string]any{"x": 2.5, "y": 2.5})
	params := map[string]string{"nav.target": "37.5,27.5", "nav.speed": "5"}
	st, steps := walk(t, tt, ag, params, 1000)
	if st != sdk.Success {
		t.Fatalf("got %v after %d steps at (%v, %v)", st, steps, ag.Fields["x"], ag.Fields["y"])
	}
	x, y := ag.Fields["x"].(float64), ag.Fields["y"].(float64)
	if math.Hypot(37.5-x, 27.5-y) > defaultArrive {
		t.Errorf("finished at (%.2f, %.2f), not near the target", x, y)
	}
	// The straight line is 43 units; the path is a little longer; 5 units/s.
	if steps < 86 || steps > 130 {
		t.Errorf("took %d steps of 0.5 units", steps)
	}
	if _, ok := ag.Fields["heading"].(float64); !ok {
		t.Error("no heading written")
	}
	if len(ag.State) != 0 {
		t.Error("state bytes kept after arrival")
	}
}

func TestMoveTo_unreachableFails(t *testing.T) {
	tt := tester(t)
	for _, target := range []string{"20.5,25.5" /* the closed room */, "0.5,0.5" /* a wall */, "50,50" /* outside */} {
		ag := sdk.NewTestAgent("a", map[string]any{"x": 2.5, "y": 2.5})
		st, err := tt.Run(ag, "nav.moveTo", map[string]string{"nav.target": target}, 0.1)
		if err != nil || st != sdk.Failure {
			t.Errorf("target %s: %v %v, want failure", target, st, err)
		}
		ok, err := tt.Test(ag, "nav.reachable", map[string]string{"nav.target": target})
		if err != nil || ok {
			t.Errorf("nav.reachable %s: %v %v, want false", target, ok, err)
		}
	}
	ag := sdk.NewTestAgent("a", map[string]any{"x": 2.5, "y": 2.5, "playerX": 30.0, "playerY": 5.0})
	if ok, err := tt.Test(ag, "nav.reachable", map[string]string{"nav.target": "player"}); !ok || err != nil {
		t.Errorf("the player is reachable: %v %v", ok, err)
	}
}

// TestMoveTo_followsAMovingTarget: the route is re-planned when the target
// changes cell, and kept (in the state bytes) while it does not.
func TestMoveTo_followsAMovingTarget(t *testing.T) {
	tt := tester(t)
	ag := sdk.NewTestAgent("a", map[string]any{"x": 2.5, "y": 10.5, "playerX": 20.5, "playerY": 10.5})
	params := map[string]string{"nav.target": "player"}
	tt.Run(ag, "nav.moveTo", params, 0.1)
	r1, err := decodeRoute(ag.State)
	if err != nil || r1 == nil || r1.goal != (Point{20, 10}) {
		t.Fatalf("route after the first step: %+v %v", r1, err)
	}
	ag.Fields["playerY"] = 16.5
	tt.Run(ag, "nav.moveTo", params, 0.1)
	r2, _ := decodeRoute(ag.State)
	if r2 == nil || r2.goal != (Point{20, 16}) {
		t.Fatalf("route after the player moved: %+v", r2)
	}
	if st, _ := walk(t, tt, ag, params, 500); st != sdk.Success {
		t.Fatalf("got %v", st)
	}
}

func TestMoveTo_customGridAndNoCornerCutting(t *testing.T) {
	g, err := ParseGrid(".#./..#/...")
	if err != nil {
		t.Fatal(err)
	}
	// From (0,0) to (2,0): around the walls, never diagonally between them.
	path, ok := g.FindPath(Point{0, 0}, Point{2, 0})
	if ok {
		t.Fatalf("(2,0) is walled in on both open sides, got path %v", path)
	}
	path, ok = g.FindPath(Point{0, 0}, Point{2, 2})
	if !ok || path[len(path)-1] != (Point{2, 2}) {
		t.Fatalf("path %v %v", path, ok)
	}
	for i, p := range path {
		prev := Point{0, 0}
		if i > 0 {
			prev = path[i-1]
		}
		if dx, dy := p.X-prev.X, p.Y-prev.Y; dx != 0 && dy != 0 && (g.Blocked(prev.X+dx, prev.Y) || g.Blocked(prev.X, prev.Y+dy)) {
			t.Errorf("step %v -> %v cuts a corner", prev, p)
		}
	}
	tt := tester(t)
	ag := sdk.NewTestAgent("a", map[string]any{"x": 0.5, "y": 0.5})
	if st, _ := walk(t, tt, ag, map[string]string{"nav.target": "2.5,2.5", "nav.grid": ".#./..#/..."}, 100); st != sdk.Success {
		t.Errorf("custom grid: %v", st)
	}
}

func TestMoveTo_badParametersAreErrors(t *testing.T) {
	tt := tester(t)
	cases := map[string]struct {
		params map[string]string
		fields map[string]any
		want   string
	}{
		"no target":     {map[string]string{}, map[string]any{"x": 1.0, "y": 1.0}, "needs parameter nav.target"},
		"bad target":    {map[string]string{"nav.target": "moon"}, map[string]any{"x": 1.0, "y": 1.0}, `nav.target = "moon": use player, target, or X,Y`},
		"bad speed":     {map[string]string{"nav.target": "3,3", "nav.speed": "fast"}, map[string]any{"x": 1.0, "y": 1.0}, `parameter "nav.speed" = "fast" is not a number`},
		"no player":     {map[string]string{"nav.target": "player"}, map[string]any{"x": 1.0, "y": 1.0}, "has no numeric fields playerX and playerY"},
		"no position":   {map[string]string{"nav.target": "3,3"}, nil, "has no numeric fields x and y"},
		"bad grid":      {map[string]string{"nav.target": "3,3", "nav.grid": "..x/..."}, map[string]any{"x": 1.0, "y": 1.0}, "use '#' for walls"},
		"ragged grid":   {map[string]string{"nav.target": "3,3", "nav.grid": "../..."}, map[string]any{"x": 1.0, "y": 1.0}, "row 1 has 3 cells, row 0 has 2"},
		"coords syntax": {map[string]string{"nav.target": "3,b"}, map[string]any{"x": 1.0, "y": 1.0}, "X,Y must be two numbers"},
	}
	for name, c := range cases {
		_, err := tt.Run(sdk.NewTestAgent("a", c.fields), "nav.moveTo", c.params, 0.1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, c.want)
		}
	}
}

func TestRoute_encodeDecode(t *testing.T) {
	r := &route{goal: Point{7, 9}, cells: []Point{{1, 2}, {3, 4}, {7, 9}}, next: 1}
	got, err := decodeRoute(r.encode())
	if err != nil || got.goal != r.goal || got.next != 1 || len(got.cells) != 3 || got.cells[1] != (Point{3, 4}) {
		t.Errorf("%+v %v", got, err)
	}
	for _, bad := range [][]byte{{9}, {1, 0}, append(r.encode(), 0)} {
		if _, err := decodeRoute(bad); err == nil {
			t.Errorf("%v decoded", bad)
		}
	}
}

// TestArena_clearOfTheExampleWorld: the example game's world script
// (scripts/ai/world.lua) walks the player along a loop and hands out posts,
// pickups and drop-offs without knowing nav's walls; every point of those,
// with a cell of margin, must be floor, so that they are reachable targets.
func TestArena_clearOfTheExampleWorld(t *testing.T) {
	if Arena.W != 40 || Arena.H != 30 {
		t.Fatalf("arena %d x %d", Arena.W, Arena.H)
	}
	loop := [][2]float64{{4, 4}, {36, 4}, {36, 26}, {20, 15}, {4, 26}, {4, 4}}
	var points [][2]float64
	for i := 0; i+1 < len(loop); i++ {
		a, b := loop[i], loop[i+1]
		for k := 0.0; k <= 1; k += 0.01 {
			points = append(points, [2]float64{a[0] + (b[0]-a[0])*k, a[1] + (b[1]-a[1])*k})
		}
	}
	points = append(points, [2]float64{34, 6}, [2]float64{20, 13}, [2]float64{6, 24}, [2]float64{30, 22}) // posts
	for k := 1.0; k <= 3; k++ {
		points = append(points, [2]float64{8 + k*6, 2}, [2]float64{38, 8 + k*6}) // pickups, drop-offs
	}
	for _, p := range points {
		cx, cy := Arena.Cell(p[0], p[1])
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if (cx+dx > 0 && cx+dx < 39 && cy+dy > 0 && cy+dy < 29) && Arena.Blocked(cx+dx, cy+dy) {
					t.Errorf("(%.1f, %.1f) of the example world is next to the wall cell %d,%d", p[0], p[1], cx+dx, cy+dy)
				}
			}
		}
	}
	if Arena.Reachable(2, 2, 20, 25) {
		t.Error("the closed room is reachable")
	}
}

func BenchmarkFindPath_acrossArena(b *testing.B) {
	for range b.N {
		if _, ok := Arena.FindPath(Point{2, 2}, Point{37, 27}); !ok {
			b.Fatal("no path")
		}
	}
}
