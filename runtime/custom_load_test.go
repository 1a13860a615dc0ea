package runtime

import (
	"errors"
	"strings"
	"testing"
)

// TestCustom_refusedAtRegistration: what a custom rule may not be is an
// error of AddRule or TypedRule.Def, before any tree.
func TestCustom_refusedAtRegistration(t *testing.T) {
	bind := func(*Site) (CustomRule, error) { return firstRule{}, nil }
	for _, c := range []struct {
		name string
		def  RuleDef
		want string
	}{
		{"a tag of the format", RuleDef{RuleDecl: RuleDecl{Tag: "sequence"}, Bind: bind}, "<sequence> is a tag of the format"},
		{"a declaration's tag", RuleDef{RuleDecl: RuleDecl{Tag: "gate"}, Bind: bind}, "<gate> is a tag of the format"},
		{"not a name", RuleDef{RuleDecl: RuleDecl{Tag: "x:y"}, Bind: bind}, `tag "x:y" is not an element name`},
		{"no Bind", RuleDef{RuleDecl: RuleDecl{Tag: "x"}}, "rule <x> has no Bind"},
		{"a decorator with two children", RuleDef{RuleDecl: RuleDecl{Tag: "x", Decorator: true, MinChildren: 2}, Bind: bind}, "is a decorator, which has exactly one child"},
		{"fewer at most than at least", RuleDef{RuleDecl: RuleDecl{Tag: "x", MinChildren: 3, MaxChildren: 2}, Bind: bind}, "takes at most 2 children and at least 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := NewRegistry().AddRule(c.def)
			if err == nil || !errors.Is(err, ErrRuleDecl) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrRuleDecl containing %q", err, c.want)
			}
		})
	}
	reg := NewRegistry()
	if err := registerFirst(reg); err != nil {
		t.Fatal(err)
	}
	if err := registerFirst(reg); !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), "rule <first> from go is already registered from go") {
		t.Errorf("a second <first>: %v", err)
	}
	if _, err := (TypedRule[struct{}, struct{}]{Tag: "x"}).Def(); !errors.Is(err, ErrRuleDecl) {
		t.Errorf("a TypedRule without Enter: %v", err)
	}
	if _, err := (TypedRule[struct{}, struct{ m map[string]int }]{Tag: "x", Enter: func(*Agent, *struct{}, *struct{ m map[string]int }, int) (Next, error) { return Next{}, nil },
		ChildDone: func(*Agent, *struct{}, *struct{ m map[string]int }, int, int, Status) (Next, error) {
			return Next{}, nil
		}}).Def(); !errors.Is(err, ErrParamDecl) {
		t.Errorf("a TypedRule whose state cannot be saved: %v", err)
	}
}

// TestCustom_loadAndBindErrors: a custom tag is a rule tag of the files
// loaded with its declaration, checked for its children and attributes;
// its parameters are checked at bind; an unknown tag is an error of the
// loader, or of the binder for a tree loaded with declarations the
// registry lacks.
func TestCustom_loadAndBindErrors(t *testing.T) {
	h := newHarness(t, bt(`<success/>`), nil)
	opts := LoadOptions{Rules: h.reg.RuleDecls()}
	for _, c := range []struct{ name, xml, want string }{
		{"a decorator with two children", `<invert id="i"><success/><success/></invert>`, "<invert> has 2 child rules; a decorator takes exactly one child rule"},
		{"a composite without children", `<pick id="p"/>`, "<pick> has no child rule; it takes at least 1 child rules"},
		{"an attribute it does not take", `<pick id="p" loop="true"><success/></pick>`, "unknown attribute loop on <pick>"},
		{"unknown without the declaration", `<sequence><nope><success/></nope></sequence>`, "unknown tag <nope> in <sequence>; expected one of action, sequence, choice, parallel, success, failure, running, yield, subtree, subTree, slot, stateMachine, parameter, condition, conditionMode, invert, pick, times"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadBytes("t.xml", []byte(bt(c.xml)), opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	for _, c := range []struct{ name, xml, want string }{
		{"a required parameter missing", `<times id="t"><success/></times>`, `<times>: needs parameter "times.n"`},
		{"a parameter of the wrong type", `<pick id="p"><parameter name="pick.first">one</parameter><success/></pick>`, `"pick.first" = "one" is not`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree, err := LoadBytes("t.xml", []byte(bt(c.xml)), opts)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Bind(tree, h.reg, BindOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	tree, err := LoadBytes("t.xml", []byte(bt(`<pick id="p"><success/></pick>`)), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Bind(tree, NewRegistry(), BindOptions{}); err == nil || !strings.Contains(err.Error(), `unknown rule "pick"`) {
		t.Errorf("bound without the rule: %v", err)
	}
	b, err := Bind(tree, NewRegistry(), BindOptions{Lenient: true})
	if err != nil || len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0].Error(), `unknown rule "pick": it fails at run time`) {
		t.Fatalf("lenient: %v %v", err, b.Warnings)
	}
	if st, err := b.NewAgent("a", &Env{}).Step(1); st != Failure || err != nil {
		t.Errorf("an unknown rule under lenient binding: %v %v", st, err)
	}
}
