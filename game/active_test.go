package game

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
)

// openStopping opens the failing fixture (an agent whose tree fails at its
// second step, one that runs away) with on_failure = "stop", on n workers.
func openStopping(t *testing.T, n int) *session {
	t.Helper()
	cfg, err := LoadConfig(fixturePath("failing"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Run.OnFailure = "stop"
	cfg.Run.Workers = n
	return startSession(t, cfg, filepath.Dir(fixturePath("failing")), nil)
}

// TestRestoreState_stepsTheAgentsTheSaveLeftActive: the agents a game steps
// are listed once and kept from step to step, so a restore must list them
// again. A game whose agents have stopped, restored to a save from before
// they stopped, steps them again, and ends where a straight run ends; one
// restored from a save in which they stopped steps them no more.
func TestRestoreState_stepsTheAgentsTheSaveLeftActive(t *testing.T) {
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", n), func(t *testing.T) {
			straight := openStopping(t, n)
			straight.run(1)
			early := straight.save()
			straight.run(5)
			late := straight.save()
			stoppedSteps := straight.g.Step()

			woken := openStopping(t, n)
			woken.run(6) // both agents stop at their second step
			if err := woken.g.RestoreState(early); err != nil {
				t.Fatal(err)
			}
			woken.run(5)
			if !bytes.Equal(woken.save(), late) {
				t.Fatal("restored to a save from before its agents stopped, the game does not end as a straight run")
			}

			stopped := openStopping(t, n)
			stopped.run(1)
			if err := stopped.g.RestoreState(late); err != nil {
				t.Fatal(err)
			}
			before := stopped.trace.Len()
			stopped.run(2)
			if got := stopped.trace.String()[before:]; bytes.Contains([]byte(got), []byte(`"runs"`)) {
				t.Fatalf("restored to a save in which every agent had stopped (step %d), the game stepped agents:\n%s", stoppedSteps, got)
			}
		})
	}
}

// TestStart_measuresEveryWorkersLuaState: the memory budget's first walk of
// each worker's Lua state happens at Start, and of the new states at a hot
// reload, not inside the next steps.
func TestStart_measuresEveryWorkersLuaState(t *testing.T) {
	s := openWithWorkers(t, "../config.toml", 12, 3) // the example game, 12 agents
	check := func(when string) {
		t.Helper()
		states := append([]*scripts{s.g.lua}, s.g.extraScripts()...)
		if len(states) != 3 {
			t.Fatalf("%d Lua states on %d workers", len(states), s.g.Workers())
		}
		for k, st := range states {
			if _, walks := st.engine.MemoryUsed(); walks == 0 {
				t.Errorf("worker %d's Lua state was not measured %s", k, when)
			}
		}
	}
	check("at Start")
	s.run(3)
	if _, err := s.g.Reload(ReloadOptions{}); err != nil {
		t.Fatal(err)
	}
	check("at the reload")
}
