package game

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// A signal the live view sends before the first step reaches an agent of
// every worker with its trace line: with two workers the trace is the same
// as with one. Before the fix the agents of worker 2 got the signal but
// their env had no trace observer yet, and the trace lost their lines.
func TestDebugSignal_beforeTheFirstStepIsTracedOnEveryWorker(t *testing.T) {
	config := writeGame(t, sharedGame())
	run := func(n int) string {
		s := composeSession(t, config, n, nil)
		h := s.g.host()
		for _, id := range []string{"t-1", "t-2", "t-3"} {
			if err := h.SendSignal(id, "poke", runtime.Value{}); err != nil {
				t.Fatal(err)
			}
		}
		s.run(3)
		return s.trace.String() + s.people.String()
	}
	one := run(1)
	if two := run(2); two != one {
		t.Fatalf("2 workers differ from 1:\n%s", firstDiff(two, one))
	}
}

// The world's init signals before the first step, too: with the trace
// opened before Start, two workers trace what one does.
func TestWorldInitSignal_isTracedOnEveryWorker(t *testing.T) {
	files := sharedGame()
	files["ai/world.lua"] = strings.Replace(files["ai/world.lua"], "game.shared = {n = 0, acc = 100}", `game.shared = {n = 0, acc = 100}
  game.signal("all", "poke")`, 1)
	config := writeGame(t, files)
	run := func(n int) string {
		s := composeSession(t, config, n, nil)
		s.run(2)
		return s.trace.String() + s.people.String()
	}
	one := run(1)
	if !strings.Contains(one, `"signal":"poke","from":"world"`) {
		t.Fatalf("init's signal is not in the trace:\n%s", one)
	}
	if two := run(2); two != one {
		t.Fatalf("2 workers differ from 1:\n%s", firstDiff(two, one))
	}
}
