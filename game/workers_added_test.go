package game_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/btrun/btrun/game"
)

// TestWorkers_aGameOpenedEmptyRunsOnTheWorkersItAskedFor: Workers 2 with
// no agents at Open and four added with AddAgent is two workers, not one,
// and the trace is the one worker's.
func TestWorkers_aGameOpenedEmptyRunsOnTheWorkersItAskedFor(t *testing.T) {
	run := func(workers int) (string, int) {
		e := &embedded{units: map[string]*unit{}}
		cfg := game.NewConfig("")
		cfg.Run.Workers = workers
		cfg.Scripts.Paths = []string{"ai"}
		cfg.Scripts.World = "ai/world.lua"
		cfg.Trees = []game.TreeConfig{{Name: "guard", File: "ai/guard.xml"}}
		g, err := game.Open(cfg, game.Options{Files: guardFiles(), Register: registerGuard(&e.regs), TraceTo: &e.trace,
			Stdout: io.Discard, Stderr: io.Discard})
		must(t, err)
		t.Cleanup(func() { g.Close() })
		must(t, g.OpenTrace())
		must(t, g.Start())
		e.g = g
		for i := 1; i <= 4; i++ {
			id := fmt.Sprintf("guard-%d", i)
			if _, err := g.AddAgent(id, "guard", e.unit(id)); err != nil {
				t.Fatal(err)
			}
		}
		e.advance(t, 8)
		must(t, g.FlushTrace())
		return e.trace.String(), g.Workers()
	}
	one, n1 := run(1)
	two, n2 := run(2)
	if n1 != 1 || n2 != 2 {
		t.Errorf("Workers() = %d and %d, want 1 and 2: the setting, not the agents present at Open", n1, n2)
	}
	if one != two || !bytes.Contains([]byte(one), []byte(`"agent":"guard-4"`)) {
		t.Errorf("traces differ between 1 and 2 workers, or guard-4 never stepped:\n%s\n---\n%s", one, two)
	}
}
