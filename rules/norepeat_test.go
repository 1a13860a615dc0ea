package rules

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// load binds xml with the rule set and actions a, b, c that record their
// runs and succeed, except those named in fail.
func load(t *testing.T, xml string, ran *[]string, fail map[string]bool) *runtime.BoundTree {
	t.Helper()
	reg := runtime.NewRegistry()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		n := name
		if err := reg.RegisterAction(n, runtime.ActionFunc(func(*runtime.Agent, runtime.Params) (runtime.Status, error) {
			*ran = append(*ran, n)
			if fail[n] {
				return runtime.Failure, nil
			}
			return runtime.Success, nil
		})); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := runtime.LoadBytes("t.xml", []byte(xml), runtime.LoadOptions{Rules: reg.RuleDecls()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := runtime.Bind(tree, reg, runtime.BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const threeKids = `<behaviorTree><noRepeat id="n"><action name="a"/><action name="b"/><action name="c"/></noRepeat></behaviorTree>`

// TestNoRepeat_neverStartsWithTheSameChildTwice: over many entries, every
// child is started with, never twice in a row; and the draws are the
// agent's (the same seed, the same picks).
func TestNoRepeat_neverStartsWithTheSameChildTwice(t *testing.T) {
	var ran []string
	b := load(t, threeKids, &ran, nil)
	a := b.NewAgent("x", &runtime.Env{Seed: 3})
	seen := map[string]int{}
	for i := range 300 {
		ran = ran[:0]
		if st, err := a.Step(1); st != runtime.Success || err != nil {
			t.Fatalf("step %d: %v %v", i, st, err)
		}
		seen[ran[0]]++
		if i > 0 && ran[0] == prevFirst {
			t.Fatalf("step %d started with %s again", i, ran[0])
		}
		prevFirst = ran[0]
	}
	for _, k := range []string{"a", "b", "c"} {
		if seen[k] < 60 {
			t.Errorf("%s started %d times of 300", k, seen[k])
		}
	}
}

var prevFirst string

// TestNoRepeat_triesEveryChildOnceBeforeFailing: after failures it tries
// the children left, each once, and fails after the last.
func TestNoRepeat_triesEveryChildOnceBeforeFailing(t *testing.T) {
	var ran []string
	b := load(t, threeKids, &ran, map[string]bool{"a": true, "b": true, "c": true})
	a := b.NewAgent("x", &runtime.Env{Seed: 1})
	for i := range 20 {
		ran = ran[:0]
		if st, err := a.Step(1); st != runtime.Failure || err != nil {
			t.Fatalf("step %d: %v %v", i, st, err)
		}
		if got := strings.Join(ran, ""); len(got) != 3 || !strings.Contains(got, "a") || !strings.Contains(got, "b") || !strings.Contains(got, "c") {
			t.Fatalf("step %d ran %q", i, got)
		}
	}
}

// TestNoRepeat_lastChoiceIsSaved: an agent restored from a save starts
// with another child than the one the saved agent started with last, as
// the saved agent itself would.
func TestNoRepeat_lastChoiceIsSaved(t *testing.T) {
	var ran []string
	b := load(t, threeKids, &ran, nil)
	for seed := range int64(20) {
		a := b.NewAgent("x", &runtime.Env{Seed: seed})
		a.Step(1)
		data, err := runtime.SaveAgents([]*runtime.Agent{a}, nil)
		if err != nil {
			t.Fatal(err)
		}
		fresh := b.NewAgent("x", &runtime.Env{Seed: seed})
		if _, err := runtime.RestoreAgents(data, []*runtime.Agent{fresh}, nil); err != nil {
			t.Fatal(err)
		}
		ran = ran[:0]
		a.Step(1)
		fresh.Step(1)
		if ran[0] != ran[1] {
			t.Errorf("seed %d: the agent went on with %s, the restored one with %s", seed, ran[0], ran[1])
		}
	}
}
