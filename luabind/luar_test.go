package luabind

import (
	"testing"
)

// body is a game's own Go object that scripts drive through gopher-luar.
type body struct {
	X, Y  float64
	Moves int
}

func (b *body) Move(dx, dy float64) { b.X += dx; b.Y += dy; b.Moves++ }

func TestWrap_exposesGoValuesToScripts(t *testing.T) {
	f := newFixture(t, map[string]string{"b.lua": `
		bt.action("push", function(ctx)
			ctx.agent.body:Move(1, 2)
			ctx.memory.seenX = ctx.agent.body.X
			return bt.SUCCESS
		end)`})
	f.bind(tree(`<action id='p' name='push'/>`))
	a := f.agent("a1")
	b := &body{X: 10}
	st, _ := f.e.Data(a)
	st.Table().RawSetString("body", f.e.Wrap(b))
	f.e.SetGlobal("gravity", 9.81)
	step(t, a)
	step(t, a)
	if b.X != 12 || b.Y != 4 || b.Moves != 2 {
		t.Errorf("body %+v", *b)
	}
	f.do(`assert(gravity == 9.81)`)
	if got := st.Memory().RawGetString("seenX").String(); got != "12" {
		t.Errorf("seenX = %s", got)
	}
}
