package main

import (
	"fmt"
	"strings"
	"sync"
)

// Grid is an occupancy grid of unit cells: cell (cx, cy) covers
// [cx, cx+1) x [cy, cy+1) in world units. Immutable once built; shared by
// every call (calls run concurrently).
type Grid struct {
	W, H    int
	blocked []bool  // W*H, row-major: index cy*W + cx
	comp    []int32 // connected component of each free cell; -1 blocked
}

// arenaRows is the built-in arena, 40 x 30 units like the example game's
// (scripts/ai/world.lua): '#' is a wall, '.' is floor, row 0 is y = 0. The
// walls keep clear of the player's loop, the grunts' posts and the
// couriers' spots, so every target the world hands out is reachable; the
// room at the bottom is closed (a target inside it is not).
var arenaRows = []string{
	"########################################",
	"#......................................#",
	"#......................................#",
	"#......................................#",
	"#......................................#",
	"#......................................#",
	"#......................................#",
	"#......................................#",
	"#.......#########.......########.......#",
	"#...............#.......########.......#",
	"#...............#.......#..............#",
	"#...............#.......#..............#",
	"#.......................#..............#",
	"#......................................#",
	"#.......##....................##.......#",
	"#.......##....................##.......#",
	"#.......##....................##.......#",
	"#.......##....................##.......#",
	"#......................................#",
	"#......................................#",
	"#......................................#",
	"#......................................#",
	"#......................................#",
	"#......................................#",
	"#...............#########..............#",
	"#...............#.......#..............#",
	"#...............#.......#..............#",
	"#...............#########..............#",
	"#......................................#",
	"########################################",
}

// Arena is the built-in 40 x 30 arena.
var Arena = mustGrid(strings.Join(arenaRows, "/"))

func mustGrid(s string) *Grid {
	g, err := ParseGrid(s)
	if err != nil {
		panic(err)
	}
	return g
}

// ParseGrid reads rows separated by '/' (the nav.grid parameter): '#' or
// 'X' is a wall, '.' or ' ' is floor. Every row has the same length.
func ParseGrid(s string) (*Grid, error) {
	rows := strings.Split(strings.TrimSpace(s), "/")
	w := len(rows[0])
	if w == 0 || w > 1024 || len(rows) > 1024 {
		return nil, fmt.Errorf("nav: grid of %d x %d cells; 1 to 1024 each way", w, len(rows))
	}
	g := &Grid{W: w, H: len(rows), blocked: make([]bool, w*len(rows))}
	for y, row := range rows {
		if len(row) != w {
			return nil, fmt.Errorf("nav: grid row %d has %d cells, row 0 has %d", y, len(row), w)
		}
		for x := 0; x < w; x++ {
			switch row[x] {
			case '#', 'X':
				g.blocked[y*w+x] = true
			case '.', ' ':
			default:
				return nil, fmt.Errorf("nav: grid row %d column %d: %q; use '#' for walls and '.' for floor", y, x, row[x])
			}
		}
	}
	g.label()
	return g, nil
}

var grids sync.Map // nav.grid text -> *Grid

// gridFor returns the grid named by the nav.grid parameter, parsed once.
func gridFor(param string) (*Grid, error) {
	if param == "" {
		return Arena, nil
	}
	if g, ok := grids.Load(param); ok {
		return g.(*Grid), nil
	}
	g, err := ParseGrid(param)
	if err != nil {
		return nil, err
	}
	grids.Store(param, g)
	return g, nil
}

// Blocked reports whether a cell is a wall or outside the grid.
func (g *Grid) Blocked(cx, cy int) bool {
	return cx < 0 || cy < 0 || cx >= g.W || cy >= g.H || g.blocked[cy*g.W+cx]
}

// Cell returns the cell holding a world position.
func (g *Grid) Cell(x, y float64) (int, int) {
	return floor(x), floor(y)
}

func floor(v float64) int {
	i := int(v)
	if float64(i) > v {
		i--
	}
	return i
}

// label numbers the connected regions of free cells. Moves are 8-connected
// without cutting corners, which connects exactly what 4-connectivity does.
func (g *Grid) label() {
	g.comp = make([]int32, len(g.blocked))
	for i := range g.comp {
		g.comp[i] = -1
	}
	var next int32
	stack := []int{}
	for start := range g.blocked {
		if g.blocked[start] || g.comp[start] >= 0 {
			continue
		}
		g.comp[start] = next
		stack = append(stack[:0], start)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := i%g.W, i/g.W
			for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				nx, ny := x+d[0], y+d[1]
				if !g.Blocked(nx, ny) && g.comp[ny*g.W+nx] < 0 {
					g.comp[ny*g.W+nx] = next
					stack = append(stack, ny*g.W+nx)
				}
			}
		}
		next++
	}
}

// Reachable reports whether cell (tx, ty) can be reached from (sx, sy). A
// start inside a wall (an agent pushed into one) may step out to a free
// neighbour.
func (g *Grid) Reachable(sx, sy, tx, ty int) bool {
	if g.Blocked(tx, ty) {
		return false
	}
	target := g.comp[ty*g.W+tx]
	if !g.Blocked(sx, sy) {
		return g.comp[sy*g.W+sx] == target
	}
	for _, d := range neighbours { // the first moves FindPath could make
		nx, ny := sx+d.dx, sy+d.dy
		if g.Blocked(nx, ny) || d.dx != 0 && d.dy != 0 && (g.Blocked(sx+d.dx, sy) || g.Blocked(sx, sy+d.dy)) {
			continue
		}
		if g.comp[ny*g.W+nx] == target {
			return true
		}
	}
	return false
}
