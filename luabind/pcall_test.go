package luabind

import (
	"testing"
)

// pcallLua is a designer's action that tries each of four targets under
// pcall, where one of them raises, and counts with locals shared between
// the action and its helpers: a local helper closure (note) and a loop in
// an inner function (scan), as the example game's scripts do.
const pcallLua = `
	local function probe(i)
		if i == 2 then error("blocked") end
		return i
	end
	bt.action("search", function(ctx, params)
		local found, tried = 0, 0
		local function note() found = found + 1 end
		local function scan()
			for i = 1, 4 do
				if pcall(probe, i) then note() end
				tried = tried + 1
			end
		end
		scan()
		ctx.memory.found, ctx.memory.tried = found, tried
		return bt.SUCCESS
	end)
`

// TestPCall_countersOutliveACaughtError: an error caught by pcall inside a
// loop leaves the action's locals shared with its closures. gopher-lua as
// released closed every open upvalue of the state at the error
// (yuin/gopher-lua#448), so the action's own counters stopped where the
// first error fell (found 1, tried 1) while its closures counted on in
// copies; the patch set's "pcallclose" closes only the failed call's.
func TestPCall_countersOutliveACaughtError(t *testing.T) {
	f := newFixture(t, map[string]string{"search.lua": pcallLua})
	f.bind(tree(`<action id='root' name='search'/>`))
	a := f.agent("a1")
	st, _ := f.e.Data(a)
	for i := range 2 { // and again, with the state of a first call behind
		if got := step(t, a); got != "success" {
			t.Fatalf("step %d: %s", i, got)
		}
		found, tried := st.Memory().RawGetString("found").String(), st.Memory().RawGetString("tried").String()
		if found != "3" || tried != "4" {
			t.Errorf("step %d: found %s of 3, tried %s of 4", i, found, tried)
		}
	}
}
