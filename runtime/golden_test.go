package runtime

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// traceObserver writes one line per step in the shape of btrun's trace
// (SPEC §7): the leaf rules run, the step's result and the cursor.
type traceObserver struct{ b strings.Builder }

func (o *traceObserver) StepDone(a *Agent, runs []RuleRun, st Status, err error) {
	rules := a.Tree().Tree.Rules
	fmt.Fprintf(&o.b, `{"step":%d,"time":%s,"agent":%q,"runs":[`, a.StepCount(), strconv.FormatFloat(math.Round(a.Time()*1e9)/1e9, 'f', -1, 64), a.ID())
	n := 0
	for _, r := range runs {
		if rules[r.Rule].Kind.IsList() {
			continue
		}
		if n > 0 {
			o.b.WriteByte(',')
		}
		n++
		fmt.Fprintf(&o.b, `[%q,%q]`, rules[r.Rule].Label, r.Status.String())
	}
	fmt.Fprintf(&o.b, `],"result":%q,"cursor":%q`, st.String(), a.CursorLabel())
	if err != nil {
		fmt.Fprintf(&o.b, `,"error":%q`, err.Error())
	}
	o.b.WriteString("}\n")
}

// TestGolden_seedTreeScripted steps the seed example tree with actions that
// return scripted results and a player that comes near twice, plus an outside
// jump, and compares the trace with testdata/golden/seed_scripted.trace.
func TestGolden_seedTreeScripted(t *testing.T) {
	compareGolden(t, filepath.Join("testdata", "golden", "seed_scripted.trace"), seedScriptedTrace(t, false))
}

// TestLoop_trackedStepsPlainTreesAsLoopDoes: a tree without interruption
// or choice orders steps on rules without hooks; the same tree stepped
// with every hook and no fast path (trackAll, as if it used a feature)
// gives the same trace, the waits and jumps of the save tests included.
func TestLoop_trackedStepsPlainTreesAsLoopDoes(t *testing.T) {
	if plain, tracked := seedScriptedTrace(t, false), seedScriptedTrace(t, true); plain != tracked {
		t.Errorf("the seed tree steps differently with trackAll:\n%s", firstDiff(tracked, plain))
	}
	plain, tracked := &traceObserver{}, &traceObserver{}
	runWaits(waitsAgents(t, plain), 1, 60)
	agents := waitsAgents(t, tracked)
	trackAll(agents[0].bound)
	runWaits(agents, 1, 60)
	if plain.b.String() != tracked.b.String() {
		t.Errorf("the waits tree steps differently with trackAll:\n%s", firstDiff(tracked.b.String(), plain.b.String()))
	}
}

// trackAll makes a bound tree step on the generic loop alone, letting in
// and leaving every rule through active.go as a rule with features is
// (every hook bit set; a tree without features gets an empty feature
// table), and never on the fast path: the slowest way through the same
// decisions, which the tests compare the others with.
func trackAll(b *BoundTree) {
	if b.feats == nil {
		b.feats = make([]ruleFeat, len(b.rules))
		for i := range b.feats {
			f := &b.feats[i]
			f.timeSlot, f.coolSlot, f.orderSlot = -1, -1, -1
			f.gate, f.holdBit = -1, -1
			f.lane, f.par, f.laneBase = -1, -1, -1
			f.countSlot, f.startBit = -1, -1
		}
	}
	for i := range b.hot {
		b.hot[i].hooks |= hookLetIn | hookLeave | hookStart
		b.hot[i].bits &^= hotFast
	}
}

// seedScriptedTrace is TestGolden_seedTreeScripted's run; tracked steps it
// with trackAll.
func seedScriptedTrace(t *testing.T, tracked bool) string {
	tree, err := LoadFile("../scripts/ai/dragengine-exampleapp.xml", LoadOptions{Root: ".."})
	if err != nil {
		t.Fatal(err)
	}
	scripts := map[string][]Status{
		"wander":  {R, R, S},
		"turning": {R, S},
		"wait":    {R, R, R, S},
		"flee":    {R, R, S},
		"backOff": {R, F},
	}
	nearby := func(a *Agent) bool {
		s := a.StepCount() + uint64(a.UserData().(int))
		return (s >= 12 && s <= 18) || (s >= 40 && s <= 44)
	}
	reg := NewRegistry()
	reg.RegisterCondition("playerNearby", ConditionFunc(func(a *Agent, p Params) (bool, error) { return nearby(a), nil }))
	reg.RegisterCondition("playerNotNearby", ConditionFunc(func(a *Agent, p Params) (bool, error) { return !nearby(a), nil }))
	calls := map[*Agent]int{}
	for name, script := range scripts {
		script := script
		reg.RegisterAction(name, ActionFunc(func(a *Agent, p Params) (Status, error) {
			if a.FirstRun() {
				calls[a] = 0
			}
			n := min(calls[a], len(script)-1)
			calls[a]++
			return script[n], nil
		}))
	}
	bound, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tracked {
		trackAll(bound)
	}
	obs := &traceObserver{}
	env := &Env{Observer: obs}
	agents := []*Agent{bound.NewAgent("wanderer-1", env), bound.NewAgent("wanderer-2", env)}
	for i, a := range agents {
		a.SetUserData(i * 5)
	}
	for s := 1; s <= 60; s++ {
		if s == 30 {
			if err := agents[1].Jump("flee"); err != nil {
				t.Fatal(err)
			}
		}
		for _, a := range agents {
			a.StepAt(float64(s) * 0.1)
		}
	}
	return obs.b.String()
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d:\n got  %s\n want %s", path, i+1, g, w)
			}
		}
	}
}
