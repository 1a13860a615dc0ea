package runtime

import (
	"errors"
	"strings"
	"testing"
)

// TestBind_lenientUnknownActionFailsAndConditionIsFalse is strict = false:
// unknown names bind, an unknown action fails and an unknown condition is
// false at run time, with one warning per name.
func TestBind_lenientUnknownActionFailsAndConditionIsFalse(t *testing.T) {
	tree, err := LoadBytes("test.xml", []byte(bt(`<choice id="root">
  <action id="a" name="missing"/>
  <action id="b" name="missing"/>
  <success id="c"><condition>nowhere</condition></success>
  <success id="d"><condition>!nowhere</condition></success>
</choice>`)), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Bind(tree, NewRegistry(), BindOptions{}); !errors.Is(err, ErrUnbound) {
		t.Fatalf("strict binding: %v, want ErrUnbound", err)
	}
	b, err := Bind(tree, NewRegistry(), BindOptions{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	for _, w := range b.Warnings {
		warnings = append(warnings, w.Error())
	}
	want := []string{
		`test.xml:2:3: rule a: unknown action "missing": it fails at run time (strict = false)`,
		`test.xml:4:19: rule c: unknown condition "nowhere": it is false at run time (strict = false)`,
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
	var runs []string
	env := &Env{Observer: observerFunc(func(a *Agent, rr []RuleRun, st Status, err error) {
		for _, r := range rr {
			runs = append(runs, a.Tree().Tree.Rules[r.Rule].Label+"="+r.Status.String())
		}
	})}
	a := b.NewAgent("a1", env)
	if st, err := a.Step(1); st != Success || err != nil {
		t.Fatalf("step: %v %v", st, err)
	}
	if got := strings.Join(runs, " "); got != "root=moved a=failure root=moved b=failure root=moved c=failure root=moved d=success root=success" {
		t.Errorf("runs: %s", got)
	}
}

type observerFunc func(a *Agent, runs []RuleRun, st Status, err error)

func (f observerFunc) StepDone(a *Agent, runs []RuleRun, st Status, err error) { f(a, runs, st, err) }
