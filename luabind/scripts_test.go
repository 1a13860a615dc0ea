package luabind

import (
	"fmt"
	"math"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// game is the example game of scripts/ai: its Lua scripts, the seed tree
// and n agents spawned by arena.spawn.
type game struct {
	t      *testing.T
	e      *Engine
	agents []*runtime.Agent
}

func newGame(t *testing.T, n int, seed int64) *game {
	t.Helper()
	// A stand-in for the game runner's world script: spawn through arena.
	worldDir := t.TempDir()
	writeScripts(t, worldDir, map[string]string{"testworld.lua": `return {spawn = require("arena").spawn}`})
	e, err := New(Options{Paths: []string{"../scripts/ai", worldDir}, Root: "..", Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	reg := runtime.NewRegistry()
	if err := e.Load(); err != nil {
		t.Fatal(err)
	}
	if err := e.Register(reg); err != nil {
		t.Fatal(err)
	}
	tree, err := runtime.LoadFile(seedTreeFile, runtime.LoadOptions{Root: ".."})
	if err != nil {
		t.Fatal(err)
	}
	bound, err := runtime.Bind(tree, reg, runtime.BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := &game{t: t, e: e}
	env := &runtime.Env{}
	for i := 0; i < n; i++ {
		a := bound.NewAgent(fmt.Sprintf("wanderer-%d", i+1), env)
		if err := e.Attach(a); err != nil {
			t.Fatal(err)
		}
		g.agents = append(g.agents, a)
	}
	w, err := e.LoadWorld("testworld")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range g.agents {
		if err := w.Spawn(a); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// player puts the player at (x, y) moving at speed.
func (g *game) player(x, y, speed float64) {
	g.t.Helper()
	if err := g.e.DoString("player", fmt.Sprintf(`local p = require("arena").player; p.x, p.y, p.speed = %g, %g, %g`, x, y, speed)); err != nil {
		g.t.Fatal(err)
	}
}

func (g *game) field(a *runtime.Agent, name string) float64 {
	st, _ := g.e.Data(a)
	v, ok := st.GetField(name)
	if !ok {
		return math.NaN()
	}
	return v.(float64)
}

func (g *game) set(a *runtime.Agent, fields map[string]float64) {
	st, _ := g.e.Data(a)
	for k, v := range fields {
		st.SetField(k, v)
	}
}

func (g *game) step(a *runtime.Agent, dt float64) runtime.Status {
	g.t.Helper()
	st, err := a.Step(dt)
	if err != nil {
		g.t.Fatal(err)
	}
	return st
}

func TestGameScripts_agentsWanderTurnAndWaitInsideTheArena(t *testing.T) {
	g := newGame(t, 20, 1)
	g.player(1000, 1000, 0) // far away: never nearby
	const dt = 0.1
	moved, turned := 0, 0
	for _, a := range g.agents {
		x0, y0, h0 := g.field(a, "x"), g.field(a, "y"), g.field(a, "heading")
		px, py := x0, y0
		travelled := 0.0
		for range 300 {
			g.step(a, dt)
			x, y := g.field(a, "x"), g.field(a, "y")
			d := math.Hypot(x-px, y-py)
			if d > 1.5*dt+1e-9 {
				t.Fatalf("%s jumped %.3f m in one step (walk speed 1.5 m/s)", a.ID(), d)
			}
			if math.Abs(x) > 20 || math.Abs(y) > 20 {
				t.Fatalf("%s left the arena: (%.2f, %.2f)", a.ID(), x, y)
			}
			travelled += d
			px, py = x, y
		}
		if travelled > 1 {
			moved++
		}
		if g.field(a, "heading") != h0 {
			turned++
		}
	}
	if moved < 15 || turned < 15 {
		t.Errorf("in 30 s, %d of 20 agents walked and %d turned", moved, turned)
	}
}

func TestGameScripts_fleeIncreasesTheDistanceToAFastPlayer(t *testing.T) {
	g := newGame(t, 1, 1)
	a := g.agents[0]
	g.set(a, map[string]float64{"x": 0, "y": 0, "heading": 0, "speed": 1.5})
	g.player(2, 1, 5)
	dist := func() float64 { return math.Hypot(g.field(a, "x")-2, g.field(a, "y")-1) }
	prev := dist()
	hopped := false
	var st runtime.Status
	for i := 0; i < 100; i++ {
		st = g.step(a, 0.1)
		if a.CursorLabel() != "flee" && st == runtime.Running {
			t.Fatalf("step %d: running %s, want flee", i+1, a.CursorLabel())
		}
		if g.field(a, "z") > 0 {
			hopped = true
		}
		d := dist()
		if st == runtime.Running && d <= prev {
			t.Fatalf("step %d: distance %.3f -> %.3f while fleeing", i+1, prev, d)
		}
		prev = d
		if st != runtime.Running {
			break
		}
	}
	if st != runtime.Success || prev < 5 {
		t.Errorf("flee ended %s at %.2f m, want success out of the nearby range (5 m)", st, prev)
	}
	if !hopped {
		t.Error("no hop at the start of fleeing")
	}
}

func TestGameScripts_backOffFromASlowPlayerAndStopWhenItIsGone(t *testing.T) {
	g := newGame(t, 1, 1)
	a := g.agents[0]
	g.set(a, map[string]float64{"x": 0, "y": 0, "heading": 0, "speed": 1.5})
	g.player(-3, 0, 0.5)
	g.step(a, 0.1)
	if a.CursorLabel() != "backOff" {
		t.Fatalf("running %s, want backOff", a.CursorLabel())
	}
	for range 5 {
		g.step(a, 0.1)
	}
	if x := g.field(a, "x"); x < 0.8 {
		t.Errorf("backed off to x = %.2f, want about 0.9 (1.5 m/s for 0.6 s, away from the player)", x)
	}
	g.player(1000, 1000, 0) // the player leaves: playerNearby fails, backOff is interrupted
	g.step(a, 0.1)
	if a.CursorLabel() == "backOff" {
		t.Error("backOff still running after the player left")
	}
}

func TestGameScripts_sameSeedSameRun(t *testing.T) {
	run := func(seed int64) []float64 {
		g := newGame(t, 5, seed)
		g.player(3, 3, 1)
		for range 100 {
			for _, a := range g.agents {
				g.step(a, 0.1)
			}
		}
		var out []float64
		for _, a := range g.agents {
			out = append(out, g.field(a, "x"), g.field(a, "y"), g.field(a, "heading"))
		}
		return out
	}
	a, b, c := run(7), run(7), run(8)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("value %d differs between two runs with seed 7: %v vs %v", i, a[i], b[i])
		}
	}
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	if same == len(a) {
		t.Error("seeds 7 and 8 gave the same run")
	}
}

func TestGameScripts_wanderChanceIsAQuarter(t *testing.T) {
	g := newGame(t, 400, 3)
	g.player(1000, 1000, 0)
	wandering := 0
	for _, a := range g.agents {
		g.step(a, 0.1)
		if a.CursorLabel() == "wander" {
			wandering++
		}
	}
	if wandering < 70 || wandering > 130 {
		t.Errorf("%d of 400 agents chose wander first, want about 100 (chance 0.25)", wandering)
	}
}
