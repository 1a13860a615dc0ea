package game

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/luabind"
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

// TestLints_hookParametersAreRead: the parameters a rule's hooks declare
// are read (bt.log's texts); a misspelt one is named with the hook among
// its readers.
func TestLints_hookParametersAreRead(t *testing.T) {
	tree, err := runtime.LoadBytes("t.xml", []byte(`<behaviorTree>
  <sequence id="root" enter="bt.log" exit="bt.log"><parameter name="log.enter">in</parameter><parameter name="log.exit">out {how}</parameter><parameter name="log.exti">x</parameter>
    <success id="a"/>
  </sequence>
</behaviorTree>`), runtime.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range TreeLints(tree, runtime.NewRegistry()) {
		got = append(got, l.String())
	}
	want := `t.xml:2:3: rule root: parameter "log.exti" is read by nothing: not by enter hook "bt.log" (they read log.enter, log.exit); did you mean "log.exit"?`
	if strings.Join(got, "\n") != want {
		t.Errorf("lints:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// TestLints_inlineLuaReadsTheParametersItNames: a parameter that a rule's
// inline Lua (bt.lua as its action, condition or hook) names is read by
// it (params.mood, params["mood"], params:number('mood')); one it does not
// name is still reported.
func TestLints_inlineLuaReadsTheParametersItNames(t *testing.T) {
	reg := runtime.NewRegistry()
	e, err := luabind.New(luabind.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Register(reg); err != nil {
		t.Fatal(err)
	}
	tree, err := runtime.LoadBytes("t.xml", []byte(`<behaviorTree>
  <sequence id="root" enter="bt.lua"><parameter name="lua.enter">ctx:log(params.mood)</parameter><parameter name="mood">grim</parameter><parameter name="moody">x</parameter>
    <action id="a" name="bt.lua"><parameter name="lua.run">ctx:log(params["who"] .. params:number('n'))</parameter><parameter name="who">me</parameter><parameter name="n">1</parameter></action>
    <success id="b"><condition>bt.lua</condition><parameter name="lua.test">params.level.x == nil</parameter><parameter name="level">1</parameter></success>
  </sequence>
</behaviorTree>`), runtime.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range TreeLints(tree, reg) {
		got = append(got, l.String())
	}
	want := `t.xml:2:3: rule root: parameter "moody" is read by nothing: not by enter hook "bt.lua" (they read lua.enter, lua.exit)`
	if strings.Join(got, "\n") != want {
		t.Errorf("lints:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}
