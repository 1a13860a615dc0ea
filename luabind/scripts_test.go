package luabind

import (
	"fmt"
	"math"
	"testing"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// game is the example game of scripts/ai: its Lua scripts, the seed tree
// and n agents. It plays world.lua's part: it puts the player (bt.shared.player)
// where a test wants it.
type game struct {
	t      *testing.T
	e      *Engine
	agents []*runtime.Agent
	px, py float64
}

func newGame(t *testing.T, n int, seed int64) *game {
	t.Helper()
	// A stand-in for world.lua's spawn (a random place and heading in the
	// 40 x 30 arena); the test plays the world's tick with observe.
	worldDir := t.TempDir()
	writeScripts(t, worldDir, map[string]string{"testworld.lua": `
		local bt = require("bt")
		return {spawn = function(ctx)
			local a = ctx.agent
			a.x, a.y = 2 + bt.random() * 36, 2 + bt.random() * 26
			a.heading, a.speed = (bt.random() * 2 - 1) * math.pi, 0
		end}`})
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
	env := &runtime.Env{Seed: seed} // agents draw from generators seeded from the run's seed
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

// player puts the player at (x, y), as world.lua's tick does.
func (g *game) player(x, y float64) {
	g.px, g.py = x, y
	if err := publishPlayer(g.e, x, y); err != nil {
		g.t.Fatal(err)
	}
}

// publishPlayer publishes bt.shared.player at (x, y), as world.lua's tick
// does through game.shared.
func publishPlayer(e *Engine, x, y float64) error {
	L := e.L
	shared, p := L.NewTable(), L.NewTable()
	p.RawSetString("x", lua.LNumber(x))
	p.RawSetString("y", lua.LNumber(y))
	shared.RawSetString("player", p)
	return e.SetShared(shared)
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
	g.player(1000, 1000) // far away: never nearby
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
			if x < 0 || x > 40 || y < 0 || y > 30 {
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

func TestGameScripts_fleeIncreasesTheDistanceToAClosePlayer(t *testing.T) {
	g := newGame(t, 1, 1)
	a := g.agents[0]
	g.set(a, map[string]float64{"x": 20, "y": 15, "heading": 0, "speed": 0})
	g.player(21.5, 15.5)
	dist := func() float64 { return math.Hypot(g.field(a, "x")-21.5, g.field(a, "y")-15.5) }
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

func TestGameScripts_backOffFromANearbyPlayerAndStopWhenItIsGone(t *testing.T) {
	g := newGame(t, 1, 1)
	a := g.agents[0]
	g.set(a, map[string]float64{"x": 20, "y": 15, "heading": 0, "speed": 0})
	g.player(16, 15)
	g.step(a, 0.1)
	if a.CursorLabel() != "backOff" {
		t.Fatalf("running %s, want backOff (the player is nearby, not too close)", a.CursorLabel())
	}
	for range 5 {
		g.step(a, 0.1)
	}
	if x := g.field(a, "x"); x < 20.8 {
		t.Errorf("backed off to x = %.2f, want about 20.9 (1.5 m/s for 0.6 s, away from the player)", x)
	}
	g.player(1000, 1000) // the player leaves: playerNearby fails, backOff is interrupted
	g.step(a, 0.1)
	if a.CursorLabel() == "backOff" {
		t.Error("backOff still running after the player left")
	}
}

func TestGameScripts_sameSeedSameRun(t *testing.T) {
	run := func(seed int64) []float64 {
		g := newGame(t, 5, seed)
		g.player(20, 15)
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
	g.player(1000, 1000)
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
