package runtime

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"
)

// TestRand_firstOutputsFollowTheFormula pins the agent generator's first
// outputs: SplitMix64 from seed XOR fnv1a64(id), computed here again with
// the standard library's FNV and the mix written out, and against numbers
// computed outside Go.
func TestRand_firstOutputsFollowTheFormula(t *testing.T) {
	cases := []struct {
		seed  int64
		id    string
		first []uint64 // computed with Python from the formula
		float float64
	}{
		{1, "wanderer-1", []uint64{0x9e2cc8593e8cee6c, 0x58f7336ece1ff65a, 0x95a8cd63dab138df}, 0.6178708284265216},
		{-7, "grunt-2", []uint64{0x1bf9a27cee14f5b5, 0xdc674de55ae8bea0, 0xe6af27cac66ed1dd}, 0.10927787351655005},
		{0, "", []uint64{0xc3817c016ba4ff30, 0x100cdaacc0bc9316, 0x54c3a569ecf61b1b}, 0.7636945250957473},
	}
	for _, c := range cases {
		h := fnv.New64a()
		h.Write([]byte(c.id))
		state := uint64(c.seed) ^ h.Sum64()
		if got := AgentRandState(c.seed, c.id); got != state {
			t.Errorf("%d %q: state %#x, want %#x", c.seed, c.id, got, state)
		}
		r := NewRand(AgentRandState(c.seed, c.id))
		for i, want := range c.first {
			state += 0x9E3779B97F4A7C15
			z := state
			z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
			z = (z ^ z>>27) * 0x94D049BB133111EB
			z ^= z >> 31
			if z != want {
				t.Fatalf("the test's own SplitMix64 disagrees with the pinned value %d: %#x vs %#x", i, z, want)
			}
			if got := r.Uint64(); got != want {
				t.Errorf("%d %q: output %d is %#x, want %#x", c.seed, c.id, i, got, want)
			}
		}
		r = NewRand(AgentRandState(c.seed, c.id))
		if got := r.Float64(); got != c.float || got != float64(c.first[0]>>11)*math.Pow(2, -53) {
			t.Errorf("%d %q: first float %v, want %v", c.seed, c.id, got, c.float)
		}
	}
	a := mustAgent(t, bt(`<success id="root"/>`), NewRegistry())
	a.env.Seed = 1
	a.id = "wanderer-1"
	if got := a.Rand().Uint64(); got != 0x9e2cc8593e8cee6c {
		t.Errorf("Agent.Rand's first output %#x", got)
	}
}

// orderHarness steps a choice of failing children once and returns the
// order they were tried in.
func triedOrder(t *testing.T, h *harness) []string {
	t.Helper()
	h.step()
	var out []string
	for _, l := range h.leaves {
		out = append(out, strings.TrimSuffix(strings.TrimSuffix(l, "=failure"), "=success"))
	}
	return out
}

// failingChoice is a choice of n failing actions c0..c(n-1), with extra
// parameters per child from params (may be nil).
func failingChoice(order string, n int, params func(i int) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<choice id="root" order="%s">`, order)
	for i := range n {
		p := ""
		if params != nil {
			p = params(i)
		}
		fmt.Fprintf(&b, `<action id="c%d" name="fail">%s</action>`, i, p)
	}
	b.WriteString(`</choice>`)
	return bt(b.String())
}

// TestOrder_randomIsTheDocumentedShuffle: a random choice tries its
// children in the Fisher–Yates permutation of the agent's generator,
// written here again from its description.
func TestOrder_randomIsTheDocumentedShuffle(t *testing.T) {
	for _, seed := range []int64{1, 2, 99, -5} {
		h := newHarness(t, failingChoice("random", 6, nil), nil)
		h.env.Seed = seed
		got := triedOrder(t, h)
		r := NewRand(AgentRandState(seed, "a1"))
		want := []string{"c0", "c1", "c2", "c3", "c4", "c5"}
		for i := len(want) - 1; i >= 1; i-- {
			j := int(math.Floor(r.Float64() * float64(i+1)))
			want[i], want[j] = want[j], want[i]
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("seed %d: tried %v, want %v", seed, got, want)
		}
		if h.agent.Rand().State() != r.State() {
			t.Errorf("seed %d: the draw took another number of values than n-1", seed)
		}
	}
}

// TestOrder_weightedIsTheDocumentedDraw: weighted without replacement, the
// weights summed afresh each time, weight-0 children last in document order.
func TestOrder_weightedIsTheDocumentedDraw(t *testing.T) {
	weights := []float64{1, 0, 3, 0.5, 0, 2}
	xml := failingChoice("weighted", len(weights), func(i int) string {
		if i == 5 {
			return "" // default weight 1... given as 2 below
		}
		return fmt.Sprintf(`<parameter name="choice.weight">%g</parameter>`, weights[i])
	})
	xml = strings.Replace(xml, `<action id="c5" name="fail"></action>`, `<action id="c5" name="fail"><parameter name="choice.weight">2</parameter></action>`, 1)
	for _, seed := range []int64{1, 7, 123} {
		h := newHarness(t, xml, nil)
		h.env.Seed = seed
		got := triedOrder(t, h)
		r := NewRand(AgentRandState(seed, "a1"))
		var want []string
		left := []int{0, 2, 3, 5}
		for len(left) > 0 {
			total := 0.0
			for _, k := range left {
				total += weights[k]
			}
			u := r.Float64() * total
			sum, pick := 0.0, len(left)-1
			for i, k := range left {
				sum += weights[k]
				if sum > u {
					pick = i
					break
				}
			}
			want = append(want, fmt.Sprintf("c%d", left[pick]))
			left = append(left[:pick], left[pick+1:]...)
		}
		want = append(want, "c1", "c4")
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("seed %d: tried %v, want %v", seed, got, want)
		}
		if h.agent.Rand().State() != r.State() {
			t.Errorf("seed %d: the draw took another number of values", seed)
		}
	}
	t.Run("no weight above 0: document order, no draw", func(t *testing.T) {
		h := newHarness(t, failingChoice("weighted", 3, func(int) string { return `<parameter name="choice.weight">0</parameter>` }), nil)
		before := h.agent.Rand().State()
		if got := strings.Join(triedOrder(t, h), " "); got != "c0 c1 c2" {
			t.Errorf("tried %s", got)
		}
		if h.agent.Rand().State() != before {
			t.Error("drew a number")
		}
	})
}

// TestOrder_score: children by score, highest first, ties in document
// order; scores <= 0 not tried; none above 0 fails like a choice without
// children; scorers called in document order after the choice's conditions,
// with the scored child's parameters and as its rule.
func TestOrder_score(t *testing.T) {
	var calls []string
	reg := func(h *harness) {
		h.must(h.reg.RegisterScorer("param", ScorerFunc(func(a *Agent, p Params) (float64, error) {
			v, _ := p.Get("value")
			calls = append(calls, a.Label()+"="+v)
			var f float64
			fmt.Sscan(v, &f)
			return f, nil
		})))
	}
	cases := []struct {
		name   string
		scores []string // choice.score per child; "" none; "s:V" the scorer with parameter value V
		want   string
	}{
		{"highest first, ties in document order", []string{"1", "3", "2", "3"}, "c1 c3 c2 c0"},
		{"scores <= 0 and missing scores are not tried", []string{"0", "-1", "", "0.5"}, "c3"},
		{"no score above 0: the choice fails like an empty one", []string{"0", "", "-2"}, ""},
		{"scorers and numbers mix", []string{"s:0.5", "1", "s:4", "s:-3"}, "c2 c1 c0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			xml := failingChoice("score", len(c.scores), func(i int) string {
				switch s := c.scores[i]; {
				case s == "":
					return ""
				case strings.HasPrefix(s, "s:"):
					return `<parameter name="choice.score">param</parameter><parameter name="value">` + s[2:] + `</parameter>`
				default:
					return `<parameter name="choice.score">` + s + `</parameter>`
				}
			})
			h := newHarnessWith(t, xml, map[string]bool{}, reg)
			calls = nil
			if got := strings.Join(triedOrder(t, h), " "); got != c.want {
				t.Errorf("tried %q, want %q", got, c.want)
			}
			var wantCalls []string
			for i, s := range c.scores {
				if strings.HasPrefix(s, "s:") {
					wantCalls = append(wantCalls, fmt.Sprintf("c%d=%s", i, s[2:]))
				}
			}
			if strings.Join(calls, " ") != strings.Join(wantCalls, " ") {
				t.Errorf("scorer calls %v, want %v", calls, wantCalls)
			}
		})
	}
	t.Run("the choice's conditions come first; failing, no scorer is called", func(t *testing.T) {
		xml := bt(`<choice id="root" order="score"><condition>ok</condition>
  <action id="a" name="fail"><parameter name="choice.score">param</parameter><parameter name="value">1</parameter></action></choice>`)
		h := newHarnessWith(t, xml, map[string]bool{"ok": false}, reg)
		calls = nil
		if got := h.step(); got != "failure root: ?ok" || len(calls) != 0 {
			t.Errorf("got %s, scorer calls %v", got, calls)
		}
	})
}

// newHarnessWith is newHarness with extra registrations before binding.
func newHarnessWith(t *testing.T, xml string, conds map[string]bool, register func(h *harness)) *harness {
	t.Helper()
	h := newHarness(t, bt(`<success id="root"/>`), conds)
	register(h)
	tree, err := LoadBytes("test.xml", []byte(xml), LoadOptions{})
	h.must(err)
	h.tree, err = Bind(tree, h.reg, BindOptions{})
	h.must(err)
	h.agent = h.tree.NewAgent("a1", h.env)
	return h
}

// TestOrder_scorerErrors: a scorer's error, or a score that is not a finite
// number, is an error of the step with the scored child's label.
func TestOrder_scorerErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		v    float64
		err  error
		want string
	}{
		{"NaN", math.NaN(), nil, `test.xml:1:47: agent a1: rule kid: scorer "bad": returned NaN; a scorer returns a finite number`},
		{"+Inf", math.Inf(1), nil, `test.xml:1:47: agent a1: rule kid: scorer "bad": returned +Inf; a scorer returns a finite number`},
		{"error", 0, errors.New("no data"), `test.xml:1:47: agent a1: rule kid: scorer "bad": no data`},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := NewRegistry()
			reg.RegisterScorer("bad", ScorerFunc(func(a *Agent, p Params) (float64, error) { return c.v, c.err }))
			reg.RegisterAction("ok", ActionFunc(func(a *Agent, p Params) (Status, error) { return Success, nil }))
			a := mustAgent(t, bt(`<choice id="root" order="score"><action id="kid" name="ok"><parameter name="choice.score">bad</parameter></action></choice>`), reg)
			st, err := a.Step(1)
			if st != Errored || err == nil || err.Error() != c.want || !errors.Is(err, ErrAction) {
				t.Errorf("got %v %v\nwant %s", st, err, c.want)
			}
			if a.Cursor() != Root {
				t.Error("the agent was not reset")
			}
		})
	}
}

// TestOrder_scorerCanAnswerLater: a scorer returning ErrPending pauses the
// step; CompleteScore resumes it at the next child's score.
func TestOrder_scorerCanAnswerLater(t *testing.T) {
	var asked []string
	reg := NewRegistry()
	reg.RegisterScorer("remote", ScorerFunc(func(a *Agent, p Params) (float64, error) {
		asked = append(asked, a.Label())
		return 0, ErrPending
	}))
	reg.RegisterAction("fail", ActionFunc(func(a *Agent, p Params) (Status, error) { return Failure, nil }))
	a := mustAgent(t, bt(`<choice id="root" order="score">
<action id="x" name="fail"><parameter name="choice.score">remote</parameter></action>
<action id="y" name="fail"><parameter name="choice.score">2</parameter></action>
<action id="z" name="fail"><parameter name="choice.score">remote</parameter></action>
</choice>`), reg)
	var runs []string
	a.env.Observer = observerFunc(func(a *Agent, rr []RuleRun, st Status, err error) {
		for _, r := range rr {
			runs = append(runs, a.bound.Tree.Rules[r.Rule].Label)
		}
	})
	if st, _ := a.Step(1); st != Paused || !a.Paused() {
		t.Fatalf("step: %v", st)
	}
	if _, err := a.CompleteCondition(true, nil); !errors.Is(err, ErrBusy) {
		t.Errorf("CompleteCondition while a scorer waits: %v", err)
	}
	if st, _ := a.CompleteScore(3, nil); st != Paused {
		t.Fatalf("after x: %v", st)
	}
	if st, err := a.CompleteScore(1, nil); st != Failure || err != nil {
		t.Fatalf("after z: %v %v", st, err)
	}
	if got := strings.Join(asked, " "); got != "x z" {
		t.Errorf("asked %s", got)
	}
	if got := strings.Join(runs, " "); got != "root x root y root z root" {
		t.Errorf("runs %s", got)
	}
	a.Step(1)
	if st, err := a.CompleteScore(math.NaN(), nil); st != Errored || err == nil {
		t.Errorf("a NaN answer: %v %v", st, err)
	}
}

// TestOrder_holdsUntilEnteredAgain: the order is drawn when the choice is
// entered and kept: a failed child is followed by the next one in the
// order, across steps; a loop goes back to the first child of that order
// and draws nothing.
func TestOrder_holdsUntilEnteredAgain(t *testing.T) {
	xml := bt(`<choice id="root" order="score" loop="true">
  <action id="a" name="act"><parameter name="choice.score">1</parameter></action>
  <action id="b" name="act"><parameter name="choice.score">3</parameter></action>
  <action id="c" name="act"><parameter name="choice.score">2</parameter></action>
</choice>`)
	h := newHarness(t, xml, nil)
	h.script["b"] = []Status{R, F}
	h.script["c"] = []Status{S, R}
	expectSteps(t, h.steps(3), []string{
		"running b: b:start b",
		"running c: b c:start c b:start b c:start c", // b fails -> c succeeds -> loop: b (fails) -> c
		"running c: c",
	})
}

// TestOrder_drawPoints: a choice draws when it is entered and goes on to a
// child, and only then.
func TestOrder_drawPoints(t *testing.T) {
	cases := []struct {
		name  string
		xml   string
		conds map[string]bool
		draws bool
	}{
		{"entered: draws", failingChoice("random", 3, nil), nil, true},
		{"conditions fail: no draw", strings.Replace(failingChoice("random", 3, nil), `order="random">`, `order="random"><condition>no</condition>`, 1), map[string]bool{"no": false}, false},
		{"no children: no draw", bt(`<choice id="root" order="random"/>`), nil, false},
		{"one child: no value drawn (n-1 draws)", failingChoice("random", 1, nil), nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.xml, c.conds)
			before := h.agent.Rand().State()
			h.step()
			if drew := h.agent.Rand().State() != before; drew != c.draws {
				t.Errorf("drew %v, want %v", drew, c.draws)
			}
		})
	}
	t.Run("refused by its cooldown: no draw", func(t *testing.T) {
		h := newHarness(t, bt(`<sequence id="root" doNotFail="true"><choice id="c" order="random" cooldown="5"><action id="x" name="ok"/><action id="y" name="ok"/></choice></sequence>`), nil)
		h.step()
		before := h.agent.Rand().State()
		if got := h.step(); got != "success root: " || h.agent.Rand().State() != before {
			t.Errorf("got %q; drew %v", got, h.agent.Rand().State() != before)
		}
	})
	t.Run("a loop draws nothing", func(t *testing.T) {
		h := newHarness(t, bt(`<choice id="root" order="random" loop="true"><action id="x" name="act"/><action id="y" name="act"/></choice>`), nil)
		h.script["x"] = []Status{S, S, R}
		h.script["y"] = []Status{S, S, R}
		first := NewRand(AgentRandState(0, "a1"))
		first.Float64() // the one draw of entering
		h.step()
		if h.agent.Rand().State() != first.State() {
			t.Error("the loop drew")
		}
	})
}

// TestOrder_jumps: a choice made active by a jump landing below it tries
// its children in document order (no scorer is called); a jump to the
// active choice enters it again and draws again.
func TestOrder_jumps(t *testing.T) {
	xml := bt(`<sequence id="root"><choice id="ch" order="score">
  <action id="a" name="act"><parameter name="choice.score">1</parameter></action>
  <action id="b" name="act"/>
  <action id="c" name="act"><parameter name="choice.score">2</parameter></action>
</choice></sequence>`)
	h := newHarness(t, xml, nil)
	h.script["a"] = []Status{F}
	h.script["b"] = []Status{F}
	h.script["c"] = []Status{R, F}
	h.must(h.agent.Jump("a")) // the tree has not run: ch becomes active by the jump
	expectSteps(t, h.steps(1), []string{"running c: a:start a b:start b c:start c"})
	h.must(h.agent.Jump("ch")) // active: entered again, scored again
	h.script["c"] = []Status{R}
	h.calls["c"] = 0
	expectSteps(t, h.steps(1), []string{"running c: c:start c"})
	h.must(h.agent.Jump("b")) // lands on a child the score order leaves out: document order
	h.script["c"] = []Status{F}
	expectSteps(t, h.steps(1), []string{"failure root: b:start b c:start c"})
}

// TestOrder_frequencies: over many agents, a random choice puts each of its
// children first about equally often, and a weighted one in proportion to
// the weights.
func TestOrder_frequencies(t *testing.T) {
	const agents = 20000
	cases := []struct {
		name    string
		xml     string
		shares  []float64
		maxDiff float64
	}{
		{"random", failingChoice("random", 3, nil), []float64{1. / 3, 1. / 3, 1. / 3}, 0.015},
		{"weighted 1:2:3:0", failingChoice("weighted", 4, func(i int) string {
			return fmt.Sprintf(`<parameter name="choice.weight">%d</parameter>`, []int{1, 2, 3, 0}[i])
		}), []float64{1. / 6, 2. / 6, 3. / 6, 0}, 0.015},
		// The largest weights whose sum is finite (a larger sum is a load
		// error) draw in proportion too.
		{"weighted 5e307:5e307:5e307", failingChoice("weighted", 3, func(i int) string {
			return `<parameter name="choice.weight">5e307</parameter>`
		}), []float64{1. / 3, 1. / 3, 1. / 3}, 0.015},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree, err := LoadBytes("test.xml", []byte(c.xml), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			reg := NewRegistry()
			reg.RegisterAction("fail", ActionFunc(func(a *Agent, p Params) (Status, error) { return Failure, nil }))
			b, err := Bind(tree, reg, BindOptions{})
			if err != nil {
				t.Fatal(err)
			}
			first := make([]int, len(c.shares))
			env := &Env{Seed: 42}
			var firstRun int32 = -1
			env.Observer = observerFunc(func(a *Agent, runs []RuleRun, st Status, err error) {
				for _, r := range runs {
					if r.Rule != Root {
						firstRun = r.Rule
						return
					}
				}
			})
			for i := range agents {
				a := b.NewAgent(fmt.Sprintf("agent-%d", i), env)
				a.Step(1)
				first[b.feats[firstRun].pos]++
			}
			for k, want := range c.shares {
				got := float64(first[k]) / agents
				if math.Abs(got-want) > c.maxDiff {
					t.Errorf("child %d first in %.4f of agents, want %.4f ± %.3f", k, got, want, c.maxDiff)
				}
			}
		})
	}
}

// TestOrder_oneAgentsDrawsDoNotDependOnOthers: an agent's orders are the
// same whether other agents step before it or not.
func TestOrder_oneAgentsDrawsDoNotDependOnOthers(t *testing.T) {
	xml := bt(`<choice id="root" order="random" loop="true">` +
		`<action id="a" name="fail"/><action id="b" name="fail"/><action id="c" name="fail"/><action id="d" name="ok"/></choice>`)
	run := func(ids ...string) string {
		tree, _ := LoadBytes("test.xml", []byte(xml), LoadOptions{})
		reg := NewRegistry()
		reg.RegisterAction("fail", ActionFunc(func(a *Agent, p Params) (Status, error) { return Failure, nil }))
		reg.RegisterAction("ok", ActionFunc(func(a *Agent, p Params) (Status, error) {
			if a.Rand().Float64() < 0.5 { // a Go action drawing from the agent's generator
				return Success, nil
			}
			return Failure, nil
		}))
		b, err := Bind(tree, reg, BindOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var trace strings.Builder
		env := &Env{Seed: 3, RunawayLimit: 1000, Observer: observerFunc(func(a *Agent, runs []RuleRun, st Status, err error) {
			if a.id != "watched" {
				return
			}
			for _, r := range runs {
				trace.WriteString(a.bound.Tree.Rules[r.Rule].Label + " ")
			}
			trace.WriteString("|")
		})}
		var agents []*Agent
		for _, id := range ids {
			agents = append(agents, b.NewAgent(id, env))
		}
		for range 30 {
			for _, a := range agents {
				a.Step(1)
			}
		}
		return trace.String()
	}
	alone := run("watched")
	if crowd := run("x", "watched", "y", "z"); crowd != alone {
		t.Errorf("with other agents:\n%s\nalone:\n%s", crowd, alone)
	}
	if !strings.Contains(alone, "d") {
		t.Error("the test never reached d")
	}
}
