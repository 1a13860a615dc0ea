package luabind

import (
	"bytes"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// TestEncodeHost_anEmptyStateIsNotSaved: once an agent's scripts used
// ctx.state, each call hands its rule an (empty) state table; a restored
// agent's first call does not, until a script uses ctx.state again. An
// empty ctx.state is not saved, so that the saves of the two agree.
func TestEncodeHost_anEmptyStateIsNotSaved(t *testing.T) {
	f := newFixture(t, map[string]string{"s.lua": `
		bt.action("gate", function(ctx)
			if ctx.memory.done then return bt.SUCCESS end
			ctx.state.x = 1
			ctx.memory.done = true
			return bt.FAILURE
		end)
		bt.action("idle", function(ctx) return bt.RUNNING end)`})
	f.bind(tree(`<sequence id='root'><action id='.gate' name='gate'/><action id='.idle' name='idle'/></sequence>`))
	a := f.agent("a1")
	step(t, a) // gate uses ctx.state and fails: the agent is saved at the root
	mid, err := runtime.SaveAgents([]*runtime.Agent{a}, f.e)
	if err != nil {
		t.Fatal(err)
	}
	b := f.agent("a1")
	if _, err := runtime.RestoreAgents(mid, []*runtime.Agent{b}, f.e); err != nil {
		t.Fatal(err)
	}
	step(t, a) // idle is handed an empty ctx.state
	step(t, b) // not in the restored agent
	x, err := runtime.SaveAgents([]*runtime.Agent{a}, f.e)
	if err != nil {
		t.Fatal(err)
	}
	y, err := runtime.SaveAgents([]*runtime.Agent{b}, f.e)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Error("the restored agent's save differs from the saved agent's")
	}
}
