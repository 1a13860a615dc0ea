package runtime

import (
	"strings"
	"testing"
)

// arrivals records every run of a step, an arrival marked with a star.
type arrivals struct{ steps []string }

func (o *arrivals) StepDone(a *Agent, runs []RuleRun, st Status, err error) {
	parts := make([]string, len(runs))
	for i, r := range runs {
		parts[i] = a.bound.Tree.Rules[r.Rule].Label + ":" + r.Status.String()
		if r.Arrived() {
			parts[i] = "*" + parts[i]
		}
	}
	o.steps = append(o.steps, strings.Join(parts, " "))
}

// TestRuleRun_arrivedMarksFirstRunsInEveryLane: a run is marked as an
// arrival when the cursor of the agent or of a lane had just arrived at
// the rule: entering a list rule, a parallel (its one run of the step,
// recorded before its lanes' runs with its result; or its failed run when
// its conditions fail), each
// lane's first rule, an action's first run, a `running`
// rule's first run; not a rule that runs on, nor a parent a result bubbled
// to. Plain trees (the untracked loop) and trees with features alike.
func TestRuleRun_arrivedMarksFirstRunsInEveryLane(t *testing.T) {
	wait := func(id, secs string) string {
		return `<action id="` + id + `" name="bt.wait"><parameter name="wait.seconds">` + secs + `</parameter></action>`
	}
	for _, tc := range []struct {
		name, xml string
		want      []string
	}{
		{"plain", `<behaviorTree><sequence id="root">` + wait(".a", "0.5") + `<running id=".r"/></sequence></behaviorTree>`, []string{
			"*root:moved *root.a:running",
			"root.a:success root:moved *root.r:running",
			"root.r:running",
		}},
		{"lanes", `<behaviorTree><sequence id="root">
			<parallel id=".p">` + wait(".a", "1") + `<sequence id=".b">` + wait(".x", "0.5") + wait(".y", "0.5") + `</sequence></parallel>
			<running id=".r" cooldown="1"/></sequence></behaviorTree>`, []string{
			"*root:moved *root.p:running *root.p.a:running *root.p.b:moved *root.p.b.x:running",
			"root.p:running root.p.a:running root.p.b.x:success root.p.b:moved *root.p.b.y:running",
			"root.p:success root.p.a:success root.p.b.y:success root.p.b:success root:moved *root.r:running",
			"root.r:running",
		}},
		{"parallel refused by its conditions", `<behaviorTree><variables><variable name="No"/></variables><choice id="root">
			<parallel id=".p"><condition>No</condition>` + wait(".a", "1") + `</parallel>` + wait(".w", "1") + `</choice></behaviorTree>`, []string{
			"*root:moved *root.p:failure root:moved *root.w:running",
			"root.w:running",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &arrivals{}
			a := bindXML(t, NewRegistry(), tc.xml).NewAgent("a", &Env{Observer: o})
			for range tc.want {
				if _, err := a.Step(0.5); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := strings.Join(o.steps, "\n"), strings.Join(tc.want, "\n"); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}
