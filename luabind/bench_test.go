package luabind

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// The seed example tree (scripts/ai/dragengine-exampleapp.xml) stepped with
// every action and condition in Lua, against its floor: the same number of
// plain CallByParam calls into a trivial Lua function per agent-step. One
// op is one agent-step; agents are stepped round-robin, 10,000 of them.
//
// Three sets of scripts, each a sub-benchmark of both:
//
//	trivial   each function as trivial as the floor's (return a constant):
//	          what the binding costs on top of the calls themselves.
//	scripted  the runtime's BenchmarkSeedTree behaviour in Lua: each call
//	          reads ctx.step and ctx.agent.seed and does some arithmetic.
//	game      the example game's own scripts (scripts/ai), with the player
//	          out of reach: agents wander, turn and wait.
//
//	go test ./luabind -run '^$' -bench 'SeedTreeLua|CallByParamFloor' -benchmem

const seedTreeFile = "../scripts/ai/dragengine-exampleapp.xml"

// trivialLua: the player is never nearby; wander fails at once, turning
// runs for ever: each step runs turning's condition and turning.
const trivialLua = `
local bt = require("bt")
local SUCCESS, FAILURE, RUNNING = bt.SUCCESS, bt.FAILURE, bt.RUNNING
bt.condition("playerNearby", function(ctx, params) return false end)
bt.condition("playerNotNearby", function(ctx, params) return true end)
bt.action("wander", function(ctx, params) return FAILURE end)
bt.action("turning", function(ctx, params) return RUNNING end)
bt.action("wait", function(ctx, params) return SUCCESS end)
bt.action("flee", function(ctx, params) return FAILURE end)
bt.action("backOff", function(ctx, params) return FAILURE end)
`

// scriptedLua is the runtime's seedRegistry in Lua: an action runs for a
// few steps, then succeeds (or fails); the player is "nearby" for one
// stretch of 16 steps in five.
const scriptedLua = `
local bt = require("bt")
local SUCCESS, FAILURE, RUNNING = bt.SUCCESS, bt.FAILURE, bt.RUNNING

local function nearby(ctx)
  local s = ctx.step
  return ((s - s % 16) / 16 + ctx.agent.seed) % 5 == 0
end
bt.condition("playerNearby", function(ctx, params) return nearby(ctx) end)
bt.condition("playerNotNearby", function(ctx, params) return not nearby(ctx) end)

local names = {"wander", "turning", "wait", "flee", "backOff"}
for i = 1, #names do
  local period = 2 + i
  bt.action(names[i], function(ctx, params)
    local k = (ctx.step + ctx.agent.seed) % period
    if k == 0 then return SUCCESS end
    if k == 1 and period > 4 then return FAILURE end
    return RUNNING
  end)
end
`

// seedBench is the seed tree with n agents on an engine.
type seedBench struct {
	e      *Engine
	agents []*runtime.Agent
}

func newSeedBench(tb testing.TB, kind string, n int) *seedBench {
	tb.Helper()
	var paths []string
	dir := tb.TempDir()
	switch kind {
	case "trivial":
		writeScripts(tb, dir, map[string]string{"seed.lua": trivialLua})
		paths = []string{dir}
	case "scripted":
		writeScripts(tb, dir, map[string]string{"seed.lua": scriptedLua})
		paths = []string{dir}
	case "game":
		paths = []string{"../scripts/ai"}
	}
	e, err := New(Options{Paths: paths, Root: "..", Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	reg := runtime.NewRegistry()
	reg.RegisterAction("nav.moveTo", runtime.ActionFunc(func(*runtime.Agent, runtime.Params) (runtime.Status, error) { return runtime.Success, nil }))
	if err := e.Load(); err != nil {
		tb.Fatal(err)
	}
	if err := e.Register(reg); err != nil {
		tb.Fatal(err)
	}
	if err := publishPlayer(e, 4, 4); err != nil { // where world.lua's player starts
		tb.Fatal(err)
	}
	tree, err := runtime.LoadFile(seedTreeFile, runtime.LoadOptions{Root: ".."})
	if err != nil {
		tb.Fatal(err)
	}
	bound, err := runtime.Bind(tree, reg, runtime.BindOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	env := &runtime.Env{}
	s := &seedBench{e: e, agents: make([]*runtime.Agent, n)}
	for i := range s.agents {
		a := bound.NewAgent(fmt.Sprintf("wanderer-%d", i+1), env)
		st, err := e.Data(a)
		if err != nil {
			tb.Fatal(err)
		}
		// The scripted set's seed, and world.lua's fields for the game set
		// (the player far away, as a world would have set them at spawn).
		for k, v := range map[string]float64{"seed": float64(i * 7 % 5),
			"x": float64(2 + i%36), "y": float64(2 + i/36%26), "heading": 0, "speed": 0,
			"playerX": 1000, "playerY": 1000, "distanceToPlayer": 1000} {
			st.SetField(k, v)
		}
		s.agents[i] = a
	}
	return s
}

var benchKinds = []string{"trivial", "scripted", "game"}

// BenchmarkSeedTreeLua: see the comment at the top of the file.
func BenchmarkSeedTreeLua(b *testing.B) {
	for _, kind := range benchKinds {
		b.Run(kind, func(b *testing.B) {
			s := newSeedBench(b, kind, 10000)
			for range 2 { // warm up: scratch buffers, rule tables
				for _, a := range s.agents {
					a.Step(0.1)
				}
			}
			calls0 := s.e.calls
			_, walks0 := s.e.MemoryUsed()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.agents[i%len(s.agents)].Step(0.1); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(s.e.calls-calls0)/float64(b.N), "calls/op")
			_, walks := s.e.MemoryUsed()
			b.ReportMetric(float64(walks-walks0), "walks")
		})
	}
}

var floorCalls sync.Map // kind -> calls per agent-step

// callsPerAgentStep is how many Lua calls one agent-step of a bench kind
// makes on average, measured over 80 rounds of its 10,000 agents (80 steps
// is the period of the scripted set's behaviour).
func callsPerAgentStep(b *testing.B, kind string) float64 {
	if v, ok := floorCalls.Load(kind); ok {
		return v.(float64)
	}
	s := newSeedBench(b, kind, 10000)
	for _, a := range s.agents {
		a.Step(0.1)
	}
	c0 := s.e.calls
	for range 80 {
		for _, a := range s.agents {
			a.Step(0.1)
		}
	}
	v := float64(s.e.calls-c0) / float64(80*len(s.agents))
	floorCalls.Store(kind, v)
	return v
}

// BenchmarkCallByParamFloor is the floor of BenchmarkSeedTreeLua: per op,
// the same average number of plain protected CallByParam calls into a
// trivial Lua function(ctx, params), with two userdata arguments, on a bare
// LState (no sandbox, no context, no tree).
func BenchmarkCallByParamFloor(b *testing.B) {
	for _, kind := range benchKinds {
		b.Run(kind, func(b *testing.B) {
			perStep := callsPerAgentStep(b, kind)
			L := lua.NewState()
			defer L.Close()
			if err := L.DoString(`function trivial(ctx, params) return "running" end`); err != nil {
				b.Fatal(err)
			}
			p := lua.P{Fn: L.GetGlobal("trivial"), NRet: 1, Protect: true}
			u1, u2 := L.NewUserData(), L.NewUserData()
			acc, calls := 0.0, 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for acc += perStep; acc >= 1; acc-- {
					if err := L.CallByParam(p, u1, u2); err != nil {
						b.Fatal(err)
					}
					L.Pop(1)
					calls++
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
		})
	}
}

// TestSeedTreeLua_allocsPerAgentStep is the hot path's allocation budget:
// at most 2 per agent-step. Steady state is 0 for the benchmark sets; the
// game scripts allocate a ctx.state table for each rule they start.
func TestSeedTreeLua_allocsPerAgentStep(t *testing.T) {
	for _, c := range []struct {
		kind string
		max  float64
	}{{"trivial", 0.01}, {"scripted", 0.05}, {"game", 2}} {
		s := newSeedBench(t, c.kind, 1000)
		for range 20 {
			for _, a := range s.agents {
				a.Step(0.1)
			}
		}
		allocs := allocsPerStep(s.agents, 20)
		t.Logf("%s: %.3f allocs per agent-step", c.kind, allocs)
		if allocs > c.max {
			t.Errorf("%s: %.3f allocs per agent-step, want at most %g", c.kind, allocs, c.max)
		}
	}
}

// allocsPerStep steps every agent rounds times and returns the heap
// allocations per agent-step, as a fraction (testing.AllocsPerRun rounds
// down to a whole number).
func allocsPerStep(agents []*runtime.Agent, rounds int) float64 {
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	for range rounds {
		for _, a := range agents {
			a.Step(0.1)
		}
	}
	goruntime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(rounds*len(agents))
}
