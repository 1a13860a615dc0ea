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

// TestBind_unknownScorers: a choice.score naming no scorer is a bind error
// with a suggestion; under lenient binding a warning, and the child scores 0.
func TestBind_unknownScorers(t *testing.T) {
	xml := bt(`<choice id="root" order="score">
<action id="a" name="ok"><parameter name="choice.score">urgee</parameter></action>
<action id="b" name="ok"><parameter name="choice.score">0.5</parameter></action>
</choice>`)
	tree, err := LoadBytes("test.xml", []byte(xml), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	reg.RegisterAction("ok", ActionFunc(func(a *Agent, p Params) (Status, error) { return Success, nil }))
	reg.RegisterScorer("urge", ScorerFunc(func(a *Agent, p Params) (float64, error) { return 1, nil }))
	_, err = Bind(tree, reg, BindOptions{})
	want := `test.xml:2:1: rule a: unknown scorer "urgee" (parameter choice.score): not registered by a script, a plugin or Go; did you mean "urge"?`
	if err == nil || err.Error() != want || !errors.Is(err, ErrUnbound) {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	b, err := Bind(tree, reg, BindOptions{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Unresolved) != 1 || b.Unresolved[0].Kind != "scorer" || !strings.Contains(b.Warnings[0].Msg, "scores 0") {
		t.Errorf("unresolved %+v, warnings %v", b.Unresolved, b.Warnings)
	}
	var runs []string
	a := b.NewAgent("a1", &Env{Observer: observerFunc(func(a *Agent, rr []RuleRun, st Status, err error) {
		for _, r := range rr {
			runs = append(runs, a.bound.Tree.Rules[r.Rule].Label)
		}
	})})
	if st, _ := a.Step(1); st != Success || strings.Join(runs, " ") != "root b root" {
		t.Errorf("%v, runs %v: the unknown scorer's child should score 0 and not be tried", st, runs)
	}
}
