package main

import (
	"encoding/binary"
	"errors"
)

// route is nav.moveTo's state for one rule, kept by the runtime in the
// rule's state bytes (and saved with the agent): the planned cells, the
// goal they lead to, and how far along the agent is.
type route struct {
	goal  Point
	cells []Point // from the start (excluded) to the goal (included)
	next  int     // index of the cell being walked to
}

const routeVersion = 1

// encode: version, goal x y, next, count, then x y per cell; uint16 each
// (grids are at most 1024 cells a side).
func (r *route) encode() []byte {
	b := make([]byte, 0, 1+2*4+4*len(r.cells))
	b = append(b, routeVersion)
	for _, v := range []int{r.goal.X, r.goal.Y, r.next, len(r.cells)} {
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	}
	for _, c := range r.cells {
		b = binary.LittleEndian.AppendUint16(b, uint16(c.X))
		b = binary.LittleEndian.AppendUint16(b, uint16(c.Y))
	}
	return b
}

var errBadState = errors.New("nav: state bytes are not a nav.moveTo route")

// decodeRoute reads state bytes; empty bytes are no route.
func decodeRoute(b []byte) (*route, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if b[0] != routeVersion || len(b) < 9 {
		return nil, errBadState
	}
	u := func(i int) int { return int(binary.LittleEndian.Uint16(b[1+2*i:])) }
	r := &route{goal: Point{u(0), u(1)}, next: u(2)}
	n := u(3)
	if len(b) != 9+4*n || r.next > n {
		return nil, errBadState
	}
	r.cells = make([]Point, n)
	for i := range r.cells {
		r.cells[i] = Point{u(4 + 2*i), u(5 + 2*i)}
	}
	return r, nil
}
