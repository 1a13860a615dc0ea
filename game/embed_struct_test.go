package game_test

import (
	"io"
	"testing"
	"testing/fstest"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// The embedder's own benchmark shape: many NPCs whose data is the game's
// tagged struct, run by typed Go actions with typed state, stepped by
// Advance from the program's loop.

type npcVec struct {
	X float64 `bt:"x"`
	Y float64 `bt:"y"`
}

type npc struct {
	HP     float64        `bt:"hp"`
	Pos    npcVec         `bt:"pos"`
	Target string         `bt:"target"`
	Seen   map[string]int `bt:"seen"`
}

type wanderParams struct {
	Speed float64 `param:"wander.speed" default:"2"`
}

type wanderState struct {
	Legs  int
	Moved float64
}

const npcTree = `<behaviorTree><sequence id="root">
  <action id="wander" name="wander"><parameter name="wander.speed">3</parameter></action>
</sequence></behaviorTree>`

// npcGame opens a game of n NPCs on tagged struct data, with a typed
// action that reads and writes the struct at each run, and steps it once.
func npcGame(tb testing.TB, n, workers int) *game.Game {
	tb.Helper()
	typ, err := runtime.DeclareData[npc]()
	if err != nil {
		tb.Fatal(err)
	}
	cfg := game.NewConfig("")
	cfg.Trees = []game.TreeConfig{{Name: "npc", File: "npc.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "npc", Count: n}}
	g, err := game.Open(cfg, game.Options{Files: fstest.MapFS{"npc.xml": {Data: []byte(npcTree)}},
		Stdout: io.Discard, Stderr: io.Discard, Quiet: true, Workers: &workers,
		AgentData: func(id, tree string) runtime.AgentData {
			return typ.Of(&npc{HP: 10, Seen: map[string]int{"start": 1}})
		},
		Register: func(reg *runtime.Registry) error {
			return runtime.TypedAction[wanderParams, wanderState]{Name: "wander",
				Check: func(p *wanderParams) error { return nil },
				Run: func(a *runtime.Agent, p *wanderParams, s *wanderState) (runtime.Status, error) {
					me := runtime.DataOf[*npc](a)
					me.Pos.X += p.Speed * a.Dt()
					me.HP -= 0.01
					me.Seen["start"]++
					s.Legs++
					s.Moved += p.Speed * a.Dt()
					return runtime.Running, nil
				}}.Register(reg)
		}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { g.Close() })
	if err := g.Start(); err != nil {
		tb.Fatal(err)
	}
	if _, err := g.Advance(); err != nil {
		tb.Fatal(err)
	}
	return g
}

// TestAdvance_goActionsOnTaggedDataAllocateNothing: a step of Go actions
// on tagged struct data, with typed state, allocates nothing, on one
// worker or two.
func TestAdvance_goActionsOnTaggedDataAllocateNothing(t *testing.T) {
	for _, workers := range []int{1, 2} {
		g := npcGame(t, 200, workers)
		if n := testing.AllocsPerRun(20, func() { g.Advance() }); n != 0 {
			t.Errorf("workers=%d: %v allocations per Advance, want 0", workers, n)
		}
		me := runtime.DataOf[*npc](g.Agents()[0])
		if me == nil || me.Seen["start"] != 1+22 || me.Pos.X == 0 {
			t.Errorf("workers=%d: the NPC's data after 22 steps: %+v", workers, me)
		}
	}
}

// BenchmarkAdvanceTaggedNPCs: Advance of 20,000 NPCs on tagged struct
// data run by a typed Go action (one op: one step of all of them).
func BenchmarkAdvanceTaggedNPCs(b *testing.B) {
	const agents = 20000
	g := npcGame(b, agents, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Advance(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*agents), "ns/agent-step")
}
