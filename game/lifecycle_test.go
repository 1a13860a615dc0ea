package game_test

import (
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// TestLifecycle_callsAfterCloseAreErrClosed: a closed game neither steps
// nor takes signals, agents or saves; a second Close is harmless.
func TestLifecycle_callsAfterCloseAreErrClosed(t *testing.T) {
	e := openGuards(t, 1, false)
	g := e.g
	e.advance(t, 2)
	must(t, g.Close())
	stepped, err := g.Advance()
	if stepped || !errors.Is(err, game.ErrClosed) {
		t.Errorf("Advance after Close = %v, %v; want false, ErrClosed", stepped, err)
	}
	save := filepath.Join(t.TempDir(), "save.bin")
	for what, err := range map[string]error{
		"Signal":      g.Signal("guard-1", "Alarm", runtime.Value{}),
		"Save":        g.Save(save),
		"Load":        second(g.Load(save)),
		"AddAgent":    second(g.AddAgent("guard-9", "guard", nil)),
		"RemoveAgent": g.RemoveAgent("guard-1"),
		"Run":         g.Run(1),
	} {
		if !errors.Is(err, game.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", what, err)
		}
	}
	if g.Step() != 2 {
		t.Errorf("step %d after Close, want 2: a closed game steps no more", g.Step())
	}
	if err := g.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// TestLifecycle_callsFromAnotherGoroutineDuringAdvanceAreErrBusy: while an
// Advance is under way (held in an action by a barrier), a second Advance,
// a signal from Go, a change of the agents or a save from another goroutine
// are refused with ErrBusy and change nothing; the held Advance then ends
// its step, and no step is lost.
func TestLifecycle_callsFromAnotherGoroutineDuringAdvanceAreErrBusy(t *testing.T) {
	inStep, release := make(chan struct{}), make(chan struct{})
	hold := false
	cfg := game.NewConfig("")
	cfg.Trees = []game.TreeConfig{{Name: "guard", File: "ai/guard.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "guard", Count: 2}}
	cfg.Scripts.Paths = []string{"ai"}
	g, err := game.Open(cfg, game.Options{Files: guardFiles(), Stdout: io.Discard, Stderr: io.Discard,
		Register: func(reg *runtime.Registry) error {
			return reg.RegisterAction("patrol", runtime.ActionFunc(func(a *runtime.Agent, _ runtime.Params) (runtime.Status, error) {
				if hold && a.ID() == "guard-1" {
					inStep <- struct{}{}
					<-release
				}
				return runtime.Running, nil
			}))
		}})
	must(t, err)
	t.Cleanup(func() { g.Close() })
	must(t, g.Start())
	if _, err := g.Advance(); err != nil {
		t.Fatal(err)
	}
	hold = true
	done := make(chan error)
	go func() {
		_, err := g.Advance()
		done <- err
	}()
	<-inStep
	save := filepath.Join(t.TempDir(), "save.bin")
	for what, err := range map[string]error{
		"Advance":     second(g.Advance()),
		"Signal":      g.Signal("guard-1", "Alarm", runtime.Value{}),
		"AddAgent":    second(g.AddAgent("guard-9", "guard", nil)),
		"RemoveAgent": g.RemoveAgent("guard-2"),
		"Save":        g.Save(save),
		"Close":       g.Close(),
	} {
		if !errors.Is(err, game.ErrBusy) {
			t.Errorf("%s during another goroutine's Advance: %v, want ErrBusy", what, err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	hold = false
	if _, err := g.Advance(); err != nil {
		t.Fatal(err)
	}
	if g.Step() != 3 || len(g.Agents()) != 2 {
		t.Errorf("step %d with %d agents, want step 3 with 2: the refused calls changed the game", g.Step(), len(g.Agents()))
	}
}

// TestLifecycle_advanceOfGoActionsAllocatesNothing: the life check costs
// Advance one compare-and-swap, no allocation: a step of Go-action agents
// allocates nothing.
func TestLifecycle_advanceOfGoActionsAllocatesNothing(t *testing.T) {
	cfg := game.NewConfig("")
	cfg.Trees = []game.TreeConfig{{Name: "guard", File: "ai/guard.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "guard", Count: 50}}
	cfg.Scripts.Paths = []string{"ai"}
	g, err := game.Open(cfg, game.Options{Files: guardFiles(), Stdout: io.Discard, Stderr: io.Discard, Quiet: true,
		Register: func(reg *runtime.Registry) error {
			return reg.RegisterAction("patrol", runtime.ActionFunc(func(a *runtime.Agent, _ runtime.Params) (runtime.Status, error) {
				return runtime.Running, nil
			}))
		}})
	must(t, err)
	t.Cleanup(func() { g.Close() })
	must(t, g.Start())
	for range 5 {
		if _, err := g.Advance(); err != nil {
			t.Fatal(err)
		}
	}
	if n := testing.AllocsPerRun(50, func() { g.Advance() }); n != 0 {
		t.Errorf("%v allocations per Advance, want 0", n)
	}
}
