package luabind

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

func randoms(t *testing.T, f *fixture, expr string, n int) []float64 {
	t.Helper()
	f.do(`_r = {}; for i = 1, ` + lua.LNumber(n).String() + ` do _r[i] = ` + expr + ` end`)
	tb := f.e.L.GetGlobal("_r").(*lua.LTable)
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(tb.RawGetInt(i + 1).(lua.LNumber))
	}
	return out
}

func TestRandom_semanticsOfLua51(t *testing.T) {
	f := newFixture(t, nil)
	for _, v := range randoms(t, f, "bt.random()", 1000) {
		if v < 0 || v >= 1 {
			t.Fatalf("random() = %v, want [0, 1)", v)
		}
	}
	seen := map[float64]bool{}
	for _, v := range randoms(t, f, "math.random(6)", 1000) {
		if v < 1 || v > 6 || v != float64(int(v)) {
			t.Fatalf("random(6) = %v", v)
		}
		seen[v] = true
	}
	if len(seen) != 6 {
		t.Errorf("random(6) gave %d distinct values in 1000 draws", len(seen))
	}
	for _, v := range randoms(t, f, "bt.random(-2, 2.9)", 1000) {
		if v < -2 || v > 2 || v != float64(int(v)) {
			t.Fatalf("random(-2, 2.9) = %v, want an integer in [-2, 2]", v)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"bt.random(0)", "interval is empty"},
		{"bt.random(3, 2)", "interval is empty"},
		{"bt.random(1, 2, 3)", "wrong number of arguments"},
		{"bt.random('x')", "number expected"},
	} {
		err := f.e.DoString("r.lua", c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "r.lua:1:") {
			t.Errorf("%s: got %v, want r.lua:1: ...%s", c.src, err, c.want)
		}
	}
}

func TestRandom_sameSeedSameSequenceAndOneGenerator(t *testing.T) {
	a := newFixture(t, nil)
	b := newFixture(t, nil)
	x := randoms(t, a, "bt.random(1000)", 50)
	// b draws alternately from math.random and bt.random: one generator.
	y := randoms(t, b, "(i % 2 == 0) and bt.random(1000) or math.random(1000)", 50)
	for i := range x {
		if x[i] != y[i] {
			t.Fatalf("draw %d: %v vs %v", i, x[i], y[i])
		}
	}
	c := newFixture(t, nil, func(o *Options) { o.Seed = 2 })
	z := randoms(t, c, "bt.random(1000)", 50)
	same := 0
	for i := range x {
		if x[i] == z[i] {
			same++
		}
	}
	if same > 5 {
		t.Errorf("seeds 1 and 2 agree on %d of 50 draws", same)
	}
}

func TestRandom_stateCanBeSavedAndRestored(t *testing.T) {
	f := newFixture(t, nil)
	randoms(t, f, "bt.random()", 7)
	s := f.e.RandomState()
	x := randoms(t, f, "bt.random()", 20)
	f.e.SetRandomState(s)
	y := randoms(t, f, "bt.random()", 20)
	for i := range x {
		if x[i] != y[i] {
			t.Fatalf("after restore, draw %d: %v vs %v", i, x[i], y[i])
		}
	}
}

func TestRandom_randomseedReseedsDeterministically(t *testing.T) {
	f := newFixture(t, nil)
	f.do(`math.randomseed(42); a1, a2 = math.random(), math.random(); math.randomseed(42); b1, b2 = math.random(), math.random()
	      assert(a1 == b1 and a2 == b2)`)
}

// TestRandom_agentsDrawFromTheirOwnGenerators: bt.random and math.random
// called for an agent draw from runtime.Agent.Rand (seeded from Env.Seed and
// the id); outside an agent's calls they draw from the world's generator,
// which the agents' draws leave alone.
func TestRandom_agentsDrawFromTheirOwnGenerators(t *testing.T) {
	src := `draws = {}
		bt.action("draw", function(ctx)
			local d = draws[ctx.id] or {}
			draws[ctx.id] = d
			d[#d + 1] = bt.random()
			d[#d + 1] = math.random()
			return bt.SUCCESS
		end)`
	run := func(ids ...string) map[string][]float64 {
		f := newFixture(t, map[string]string{"d.lua": src}, func(o *Options) { o.Seed = 5 })
		f.env.Seed = 77
		f.bind(tree(`<action id='root' name='draw'/>`))
		var agents []*runtime.Agent
		for _, id := range ids {
			agents = append(agents, f.agent(id))
		}
		for range 3 {
			for _, a := range agents {
				step(t, a)
			}
		}
		world := runtime.NewRand(5)
		if got := randoms(t, f, "bt.random()", 2); got[0] != world.Float64() || got[1] != world.Float64() {
			t.Errorf("the world's draws %v are not its own generator's", got)
		}
		out := map[string][]float64{}
		for _, id := range ids {
			f.do(`_d = draws["` + id + `"]`)
			tb := f.e.L.GetGlobal("_d").(*lua.LTable)
			for i := 1; i <= tb.Len(); i++ {
				out[id] = append(out[id], float64(tb.RawGetInt(i).(lua.LNumber)))
			}
		}
		return out
	}
	alone := run("a1")
	r := runtime.NewRand(runtime.AgentRandState(77, "a1"))
	for i, v := range alone["a1"] {
		if w := r.Float64(); v != w {
			t.Fatalf("draw %d of a1 is %v, want %v from its generator", i, v, w)
		}
	}
	crowd := run("b", "a1", "c")
	for i := range alone["a1"] {
		if crowd["a1"][i] != alone["a1"][i] {
			t.Fatalf("a1's draw %d changed when other agents joined", i)
		}
	}
	if crowd["b"][0] == crowd["c"][0] {
		t.Error("two agents drew the same first number")
	}
}

// TestRandom_randomseedReseedsTheCallersGenerator: math.randomseed called
// for an agent reseeds that agent's generator (as the runtime seeds it);
// the world's stays as it was.
func TestRandom_randomseedReseedsTheCallersGenerator(t *testing.T) {
	f := newFixture(t, map[string]string{"d.lua": `
		bt.action("reseed", function(ctx) math.randomseed(42) first = bt.random() return bt.SUCCESS end)`})
	f.bind(tree(`<action id='root' name='reseed'/>`))
	a := f.agent("a1")
	worldBefore := f.e.RandomState()
	step(t, a)
	want := runtime.NewRand(runtime.AgentRandState(42, "a1"))
	if got := float64(f.e.L.GetGlobal("first").(lua.LNumber)); got != want.Float64() {
		t.Errorf("first draw after reseeding %v", got)
	}
	if f.e.RandomState() != worldBefore {
		t.Error("an agent's randomseed moved the world's generator")
	}
}
