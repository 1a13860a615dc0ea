package game

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

type lintPickParams struct {
	First int `param:"pick.first" default:"0"`
}

// TestTreeLints_customRuleParameters: a registered rule's declared
// parameters count as read, and one it does not declare is reported with
// the rule as its reader.
func TestTreeLints_customRuleParameters(t *testing.T) {
	reg := runtime.NewRegistry()
	err := runtime.TypedRule[lintPickParams, struct{}]{Tag: "pick",
		Enter: func(*runtime.Agent, *lintPickParams, *struct{}, int) (runtime.Next, error) {
			return runtime.RunChild(0), nil
		},
		ChildDone: func(_ *runtime.Agent, _ *lintPickParams, _ *struct{}, _, _ int, res runtime.Status) (runtime.Next, error) {
			return runtime.Finish(res), nil
		}}.Register(reg)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := runtime.LoadBytes("t.xml", []byte(`<behaviorTree><pick id="p">
  <parameter name="pick.first">0</parameter><parameter name="pick.frist">1</parameter><success id="s"/></pick></behaviorTree>`),
		runtime.LoadOptions{Rules: reg.RuleDecls()})
	if err != nil {
		t.Fatal(err)
	}
	lints := TreeLints(tree, reg)
	if len(lints) != 1 || !strings.Contains(lints[0].String(), `parameter "pick.frist" is read by nothing: not by rule <pick> (they read pick.first); did you mean "pick.first"?`) {
		t.Errorf("lints: %v", lints)
	}
}
