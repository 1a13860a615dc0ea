package runtime

import (
	"strings"
)

// laneView shows an agent's lanes after its cursor: "{a b=success}" for a
// parallel whose lanes are at a (running) and done with success, nested
// for a lane whose cursor is a parallel with lanes: "{q{x y} w}".
func laneView(a *Agent) string {
	lanes := a.Lanes(nil)
	if len(lanes) == 0 {
		return ""
	}
	var b strings.Builder
	var walk func(i int) int
	walk = func(i int) int {
		parent := lanes[i].Parent
		b.WriteByte('{')
		for n := 0; i < len(lanes) && lanes[i].Parent == parent; n++ {
			l := lanes[i]
			i++
			if n > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(a.bound.Tree.Rules[l.Cursor].Label)
			if l.Status != Running {
				b.WriteString("=" + l.Status.String())
			}
			if i < len(lanes) && lanes[i].Parent == l.Slot {
				i = walk(i)
			}
		}
		b.WriteByte('}')
		return i
	}
	walk(0)
	return b.String()
}
