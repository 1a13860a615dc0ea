package luabind

import (
	"fmt"
	goruntime "runtime"
	"testing"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
	lua "github.com/yuin/gopher-lua"
)

// TestRestoreHost_keepsEqualValuesBoxed: restoring agents from their own
// save (a rewind, a checkpoint) keeps the numbers and strings their tables
// hold, boxed already, instead of boxing each again: under 32 bytes per agent,
// against 8 or 16 per value; the state is the saved one all the same, and
// a changed value is restored.
func TestRestoreHost_keepsEqualValuesBoxed(t *testing.T) {
	f := newFixture(t, map[string]string{"vals.lua": `
local bt = require("bt")
bt.action("fill", function(ctx, params)
  local m = ctx.memory
  for i = 1, 8 do m["n" .. i] = i + 0.5 + #ctx.id end
  for i = 1, 8 do m["s" .. i] = "text " .. i .. ctx.id end
  for i = 1, 6 do ctx.agent["x" .. i] = i * 1.25 end
  return bt.RUNNING
end)`})
	f.bind(`<behaviorTree><action id="root" name="fill"/></behaviorTree>`)
	const n = 200
	var agents []*runtime.Agent
	for i := range n {
		a := f.agent(fmt.Sprintf("a%d", i))
		step(t, a)
		agents = append(agents, a)
	}
	data, err := runtime.SaveAgents(agents, f.e)
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := savecodec.ReadContainer(runtime.AgentsMagic, data)
	if err != nil {
		t.Fatal(err)
	}
	var plan runtime.AgentsPlan // reused, as a game's loads reuse theirs
	restore := func() {
		t.Helper()
		d := *body
		if err := plan.Plan(&d, agents, f.e); err != nil {
			t.Fatal(err)
		}
		if err := plan.Apply(); err != nil {
			t.Fatal(err)
		}
	}
	restore()
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	restore()
	goruntime.ReadMemStats(&after)
	if per := float64(after.TotalAlloc-before.TotalAlloc) / n; per > 32 {
		t.Errorf("%.0f bytes allocated per agent restored from its own save (14 numbers, 8 strings); want under 32", per)
	}
	if again, err := runtime.SaveAgents(agents, f.e); err != nil || string(again) != string(data) {
		t.Fatalf("restored, the agents save differently (%v)", err)
	}
	// A value changed since the save is the saved one after a restore.
	st, _ := f.e.agentData(agents[3])
	st.memory.RawSetString("n2", lua.LNumber(-1))
	st.memory.RawSetString("s2", lua.LString("changed"))
	restore()
	if v, s := st.memory.RawGetString("n2"), st.memory.RawGetString("s2"); v != lua.LNumber(2+0.5+2) || s != lua.LString("text 2a3") {
		t.Fatalf("restored n2 = %v, s2 = %v", v, s)
	}
}
