package runtime

import (
	"fmt"
	"testing"
)

// TestStep_callsSeeTheStepUnderWay: inside a step, every action and
// condition is called with the step under way (phaseStep), whichever loop
// runs it: its beginning (phaseStart, before the checks at the start of a
// step) is over once a rule runs.
func TestStep_callsSeeTheStepUnderWay(t *testing.T) {
	var bad []string
	reg := NewRegistry()
	look := func(what string, a *Agent) {
		if a.phase != phaseStep {
			bad = append(bad, fmt.Sprintf("%s %s: phase %d", what, a.Label(), a.phase))
		}
	}
	reg.RegisterAction("fn", ActionFunc(func(a *Agent, p Params) (Status, error) { look("action", a); return Failure, nil }))
	reg.RegisterAction("life", &Lifecycle{OnRun: func(a *Agent, p Params) (Status, error) { look("action", a); return Running, nil }})
	reg.RegisterCondition("c", ConditionFunc(func(a *Agent, p Params) (bool, error) { look("condition", a); return true, nil }))
	for _, tc := range []struct{ name, xml string }{
		{"a choice of plain actions", `<choice id="root"><action id="a" name="fn"><condition>c</condition></action><action id="b" name="life"/></choice>`},
		{"a sequence", `<sequence id="root"><condition>c</condition><action id="a" name="fn"/></sequence>`},
		{"a tree with features", `<choice id="root"><action id="a" name="fn" cooldown="1"><condition>c</condition></action><action id="b" name="life"/></choice>`},
	} {
		for _, observed := range []bool{false, true} {
			bad = bad[:0]
			env := &Env{}
			if observed {
				env.Observer = &leanRuns{}
			}
			a := bindXML(t, reg, bt(tc.xml)).NewAgent("a", env)
			for range 3 {
				a.Step(1)
			}
			if len(bad) > 0 {
				t.Errorf("%s, observed=%v: %v", tc.name, observed, bad)
			}
		}
	}
}
