package game_test

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// TestStepHooks_callbacksRunAroundEachStepAndMayChangeTheGame: BeforeStep
// and AfterStep run around each step of Advance and of Run, told the step
// and its time; from them, Signal, AddAgent, RemoveAgent and Save work
// (the guard of Advance refused them with ErrBusy), while Advance, Load
// and Close are refused with ErrBusy. The trace is the same as a loop's
// that does the same work between two Advance calls.
func TestStepHooks_callbacksRunAroundEachStepAndMayChangeTheGame(t *testing.T) {
	save := filepath.Join(t.TempDir(), "save.bin")
	var calls []string
	var refused []error
	open := func(trace *bytes.Buffer, before, after func(*game.Game, game.StepInfo) error) *game.Game {
		cfg := game.NewConfig("")
		cfg.Trees = []game.TreeConfig{{Name: "guard", File: "ai/guard.xml"}}
		cfg.Agents = []game.AgentConfig{{Tree: "guard", Count: 2}}
		cfg.Scripts.Paths = []string{"ai"}
		g, err := game.Open(cfg, game.Options{Files: guardFiles(), Stdout: io.Discard, Stderr: io.Discard, Quiet: true,
			TraceTo: trace, BeforeStep: before, AfterStep: after,
			Register: func(reg *runtime.Registry) error {
				return reg.RegisterAction("patrol", runtime.ActionFunc(func(*runtime.Agent, runtime.Params) (runtime.Status, error) {
					return runtime.Running, nil
				}))
			}})
		must(t, err)
		t.Cleanup(func() { g.Close() })
		must(t, g.OpenTrace())
		must(t, g.Start())
		return g
	}
	work := func(g *game.Game, when string, s uint64) error {
		switch {
		case when == "before" && s == 2:
			return g.Signal("guard-1", "Alarm", runtime.Number(3))
		case when == "before" && s == 3:
			_, err := g.AddAgent("guard-9", "guard", nil)
			return err
		case when == "after" && s == 4:
			return g.RemoveAgent("guard-2")
		case when == "after" && s == 5:
			return g.Save(save)
		}
		return nil
	}
	var hooked bytes.Buffer
	g := open(&hooked, func(g *game.Game, s game.StepInfo) error {
		calls = append(calls, "before", string(rune('0'+s.Step)))
		if s.Time != float64(s.Step)*g.Dt() || s.Replay {
			t.Errorf("BeforeStep told %+v", s)
		}
		if s.Step == 1 {
			_, err := g.Advance()
			refused = append(refused, err, second(g.Load(save)), g.Close())
		}
		return work(g, "before", s.Step)
	}, func(g *game.Game, s game.StepInfo) error {
		calls = append(calls, "after", string(rune('0'+s.Step)))
		return work(g, "after", s.Step)
	})
	for range 3 {
		if ok, err := g.Advance(); !ok || err != nil {
			t.Fatalf("Advance: %v %v", ok, err)
		}
	}
	must(t, g.Run(3))
	for i, err := range refused {
		if !errors.Is(err, game.ErrBusy) {
			t.Errorf("call %d (Advance, Load, Close) from a callback: %v, want ErrBusy", i, err)
		}
	}
	if got := strings.Join(calls, ""); got != "before1after1before2after2before3after3before4after4before5after5before6after6" {
		t.Errorf("callbacks: %s", got)
	}
	if g.Agent("guard-9") == nil || g.Agent("guard-2") != nil {
		t.Errorf("the callbacks' AddAgent and RemoveAgent did not apply")
	}

	var plain bytes.Buffer
	p := open(&plain, nil, nil)
	for s := uint64(1); s <= 6; s++ {
		must(t, work(p, "before", s))
		if _, err := p.Advance(); err != nil {
			t.Fatal(err)
		}
		must(t, work(p, "after", s))
	}
	must(t, g.FlushTrace())
	must(t, p.FlushTrace())
	if hooked.String() != plain.String() {
		t.Errorf("the trace with callbacks differs from the loop's that does the same work between steps:\n%s\nwant\n%s", hooked.String(), plain.String())
	}
}
