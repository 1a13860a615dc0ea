package luabind

import (
	"strings"
	"testing"

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
