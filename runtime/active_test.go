package runtime

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestActive_everyRuleIsLeftOnceAndTheActivePathIsTheCursors: through
// interrupts, cooldowns, choice orders, jumps from outside, resets and the
// agent's close, every rule that becomes active is left exactly once before
// it becomes active again (so nothing will be released twice), and after
// every step the rules active are exactly the cursor's ancestors, and the
// cursor when its flag says so.
func TestActive_everyRuleIsLeftOnceAndTheActivePathIsTheCursors(t *testing.T) {
	var trace strings.Builder
	r := newFeaturesRun(t, &trace)
	active := map[*Agent]map[int32]bool{}
	var problems []string
	env := r.agents[0].env
	trackAll(r.agents[0].bound) // every rule let in and left through admit and leave, which the spy sees
	env.spy = func(a *Agent, rule int32, entered bool) {
		set := active[a]
		if set == nil {
			set = map[int32]bool{}
			active[a] = set
		}
		label := a.bound.Tree.Rules[rule].Label
		switch {
		case entered && set[rule]:
			problems = append(problems, fmt.Sprintf("step %d %s: %s became active twice", a.step, a.id, label))
		case !entered && !set[rule]:
			problems = append(problems, fmt.Sprintf("step %d %s: %s left while not active", a.step, a.id, label))
		}
		set[rule] = entered
	}
	ids := []string{"root", "flee", "flee.run", "fight", "fight.how", "fight.how.shoot", "idle", "idle.look.up", "idle.nap"}
	check := func(a *Agent, when string) {
		var want, got []string
		for x := a.cursor; x >= 0; x = a.bound.rules[x].parent {
			if x != a.cursor || a.flags&flagActive != 0 {
				want = append(want, a.bound.Tree.Rules[x].Label)
			}
		}
		for rule, on := range active[a] {
			if on {
				got = append(got, a.bound.Tree.Rules[rule].Label)
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(want, " ") != strings.Join(got, " ") {
			problems = append(problems, fmt.Sprintf("%s step %d %s: active %v, the cursor's path says %v", when, a.step, a.id, got, want))
		}
	}
	for s := 1; s <= 300; s++ {
		for i, a := range r.agents {
			switch {
			case s%17 == i:
				a.Reset()
				check(a, "after a reset,")
			case s%11 == i:
				a.Jump(ids[(s/11+i)%len(ids)])
				check(a, "after a jump,")
			}
			a.StepAt(float64(s) * 0.1)
			check(a, "after")
		}
	}
	for _, a := range r.agents {
		a.Close()
		for rule, on := range active[a] {
			if on {
				problems = append(problems, fmt.Sprintf("%s: %s still active after Close", a.id, a.bound.Tree.Rules[rule].Label))
			}
		}
	}
	if len(problems) > 0 {
		if len(problems) > 10 {
			problems = problems[:10]
		}
		t.Fatalf("%s", strings.Join(problems, "\n"))
	}
	for _, want := range []string{"[preempt", "[abort", "[timeout"} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("the run never shows %s", want)
		}
	}
}
