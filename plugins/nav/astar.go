package main

import (
	"math"
	"sync"
)

// Point is a cell.
type Point struct{ X, Y int }

type step struct {
	dx, dy int
	cost   float64
}

// neighbours are the 8 moves; diagonals may not cut a wall's corner.
var neighbours = [8]step{
	{1, 0, 1}, {-1, 0, 1}, {0, 1, 1}, {0, -1, 1},
	{1, 1, math.Sqrt2}, {1, -1, math.Sqrt2}, {-1, 1, math.Sqrt2}, {-1, -1, math.Sqrt2},
}

// search is the scratch of one A* search, pooled: calls run concurrently.
type search struct {
	g    []float64
	from []int32
	seen []uint32 // generation stamps, so scratch needs no clearing
	done []uint32
	gen  uint32
	open openList
}

var searches = sync.Pool{New: func() any { return &search{} }}

// FindPath returns the cells from start (excluded) to goal (included) of a
// shortest 8-connected path that cuts no corners, or false when the goal
// cannot be reached. A start inside a wall may step out of it.
func (g *Grid) FindPath(start, goal Point) ([]Point, bool) {
	if g.Blocked(goal.X, goal.Y) || start.X < 0 || start.Y < 0 || start.X >= g.W || start.Y >= g.H {
		return nil, false
	}
	if start == goal {
		return nil, true
	}
	if !g.Reachable(start.X, start.Y, goal.X, goal.Y) {
		return nil, false // no search needed: the regions are labelled
	}
	s := searches.Get().(*search)
	defer searches.Put(s)
	n := g.W * g.H
	if len(s.g) < n {
		s.g, s.from, s.seen, s.done = make([]float64, n), make([]int32, n), make([]uint32, n), make([]uint32, n)
	}
	s.gen++
	if s.gen == 0 { // wrapped: stamps from long ago could match
		clear(s.seen)
		clear(s.done)
		s.gen = 1
	}
	h := func(x, y int) float64 {
		dx, dy := math.Abs(float64(x-goal.X)), math.Abs(float64(y-goal.Y))
		return dx + dy + (math.Sqrt2-2)*math.Min(dx, dy)
	}
	si, gi := start.Y*g.W+start.X, goal.Y*g.W+goal.X
	s.open = s.open[:0]
	s.g[si], s.from[si], s.seen[si] = 0, -1, s.gen
	s.open.push(node{int32(si), h(start.X, start.Y)})
	for len(s.open) > 0 {
		cur := s.open.pop()
		i := int(cur.i)
		if s.done[i] == s.gen {
			continue
		}
		s.done[i] = s.gen
		if i == gi {
			return s.path(g, si, gi), true
		}
		x, y := i%g.W, i/g.W
		for _, d := range neighbours {
			nx, ny := x+d.dx, y+d.dy
			if g.Blocked(nx, ny) {
				continue
			}
			if d.dx != 0 && d.dy != 0 && (g.Blocked(x+d.dx, y) || g.Blocked(x, y+d.dy)) {
				continue
			}
			ni := ny*g.W + nx
			cost := s.g[i] + d.cost
			if s.seen[ni] == s.gen && cost >= s.g[ni] {
				continue
			}
			s.seen[ni], s.g[ni], s.from[ni] = s.gen, cost, int32(i)
			s.open.push(node{int32(ni), cost + h(nx, ny)})
		}
	}
	return nil, false
}

func (s *search) path(g *Grid, si, gi int) []Point {
	var rev []Point
	for i := gi; i != si; i = int(s.from[i]) {
		rev = append(rev, Point{i % g.W, i / g.W})
	}
	for l, r := 0, len(rev)-1; l < r; l, r = l+1, r-1 {
		rev[l], rev[r] = rev[r], rev[l]
	}
	return rev
}

type node struct {
	i int32
	f float64
}

// openList is a binary min-heap on f, written out to avoid boxing nodes.
type openList []node

func (o *openList) push(n node) {
	h := append(*o, n)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].f <= h[i].f {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	*o = h
}

func (o *openList) pop() node {
	h := *o
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].f < h[m].f {
			m = l
		}
		if r < len(h) && h[r].f < h[m].f {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*o = h
	return top
}
