package luabind

import (
	"fmt"
	"sync"
	"testing"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// seedBenchLua is the seed example's actions and conditions in Lua, with the
// same cheap deterministic behaviour as the runtime's BenchmarkSeedTree: an
// action runs for a few steps then succeeds (or fails); the player is
// "nearby" for one stretch of 16 steps in five. Each reads ctx.step and
// ctx.agent.seed, as real scripts read ctx fields.
const seedBenchLua = `
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

const seedTreeFile = "../scripts/ai/dragengine-exampleapp.xml"

// seedBench is the seed tree with its actions and conditions in Lua and n
// agents.
type seedBench struct {
	e      *Engine
	agents []*runtime.Agent
}

func newSeedBench(tb testing.TB, n int) *seedBench {
	tb.Helper()
	dir := tb.TempDir()
	writeScripts(tb, dir, map[string]string{"seed.lua": seedBenchLua})
	e, err := New(Options{Paths: []string{dir}, Root: dir, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	reg := runtime.NewRegistry()
	if err := e.Load(); err != nil {
		tb.Fatal(err)
	}
	if err := e.Register(reg); err != nil {
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
		if err := e.Attach(a); err != nil {
			tb.Fatal(err)
		}
		a.UserData().(*AgentData).SetField("seed", float64(i*7%5))
		s.agents[i] = a
	}
	return s
}

// BenchmarkSeedTreeLua steps 10,000 agents on the seed example tree with
// every action and condition in Lua; one op is one agent-step. Compare with
// BenchmarkCallByParamFloor, which makes the same number of bare calls into
// Lua per op.
func BenchmarkSeedTreeLua(b *testing.B) {
	s := newSeedBench(b, 10000)
	for _, a := range s.agents { // warm up: scratch buffers, ctx fields
		a.Step(0.1)
	}
	calls0 := s.e.calls
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.agents[i%len(s.agents)].Step(0.1); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(s.e.calls-calls0)/float64(b.N), "calls/op")
}

var floorCalls struct {
	once    sync.Once
	perStep float64
}

// callsPerAgentStep measures how many Lua calls one agent-step of the seed
// bench makes on average, over 80 steps (the period of its behaviour) of
// 10,000 agents.
func callsPerAgentStep(b *testing.B) float64 {
	floorCalls.once.Do(func() {
		s := newSeedBench(b, 10000)
		for _, a := range s.agents {
			a.Step(0.1)
		}
		c0 := s.e.calls
		for range 80 {
			for _, a := range s.agents {
				a.Step(0.1)
			}
		}
		floorCalls.perStep = float64(s.e.calls-c0) / float64(80*len(s.agents))
	})
	return floorCalls.perStep
}

// BenchmarkCallByParamFloor is the floor for BenchmarkSeedTreeLua: per op,
// the same average number of plain protected CallByParam calls into a
// trivial Lua function(ctx, params), with two userdata arguments, on a bare
// LState (no sandbox, no context, no tree).
func BenchmarkCallByParamFloor(b *testing.B) {
	perStep := callsPerAgentStep(b)
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(`function trivial(ctx, params) return "running" end`); err != nil {
		b.Fatal(err)
	}
	fn := L.GetGlobal("trivial")
	u1, u2 := L.NewUserData(), L.NewUserData()
	p := lua.P{Fn: fn, NRet: 1, Protect: true}
	acc := 0.0
	calls := 0
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
}

// TestSeedTreeLua_allocsPerAgentStep is the allocation budget of the hot
// path: at most 2 per agent-step (in practice a fraction of one, from
// gopher-lua's and the engine's number slabs).
func TestSeedTreeLua_allocsPerAgentStep(t *testing.T) {
	s := newSeedBench(t, 1000)
	for range 20 {
		for _, a := range s.agents {
			a.Step(0.1)
		}
	}
	i := 0
	allocs := testing.AllocsPerRun(20000, func() {
		s.agents[i%len(s.agents)].Step(0.1)
		i++
	})
	t.Logf("%.3f allocs per agent-step", allocs)
	if allocs > 2 {
		t.Errorf("%.3f allocs per agent-step, want at most 2", allocs)
	}
}

// BenchmarkSeedTreeLua_100Agents is BenchmarkSeedTreeLua with few enough
// agents that their data stays in the CPU cache.
func BenchmarkSeedTreeLua_100Agents(b *testing.B) {
	s := newSeedBench(b, 100)
	for _, a := range s.agents {
		a.Step(0.1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.agents[i%len(s.agents)].Step(0.1); err != nil {
			b.Fatal(err)
		}
	}
}
