package runtime

import (
	"strings"
	"testing"
)

// TestBind_translateBindsOneTreeToEachKindsActions: one loaded tree, bound
// with two kinds' translations, calls each kind's own actions; the tree is
// shared, untranslated names bind as written, and a translation to an
// action nobody registered is a bind error at the rule naming both names.
func TestBind_translateBindsOneTreeToEachKindsActions(t *testing.T) {
	tree, err := LoadBytes("t.xml", []byte(bt(`<sequence id="root"><action id="a" name="Attack"/><action id="w" name="Wait"/></sequence>`)), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	reg := NewRegistry()
	for _, n := range []string{"Attack", "Wait", "gruntAttack", "sniperAttack"} {
		name := n
		if err := reg.RegisterAction(name, ActionFunc(func(a *Agent, p Params) (Status, error) {
			calls = append(calls, a.ID()+":"+name)
			return Success, nil
		})); err != nil {
			t.Fatal(err)
		}
	}
	grunt, err := Bind(tree, reg, BindOptions{Translate: map[string]string{"Attack": "gruntAttack"}})
	if err != nil {
		t.Fatal(err)
	}
	sniper, err := Bind(tree, reg, BindOptions{Translate: map[string]string{"Attack": "sniperAttack"}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if grunt.Tree != sniper.Tree {
		t.Error("the kinds do not share the tree")
	}
	for _, a := range []*Agent{grunt.NewAgent("g", &Env{}), sniper.NewAgent("s", &Env{}), plain.NewAgent("p", &Env{})} {
		if _, err := a.Step(1); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := strings.Join(calls, " "), "g:gruntAttack g:Wait s:sniperAttack s:Wait p:Attack p:Wait"; got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
	_, err = Bind(tree, reg, BindOptions{Translate: map[string]string{"Attack": "gruntAtack"}})
	if err == nil || !strings.Contains(err.Error(), `t.xml:1:35: rule a: action "Attack" translates to unknown action "gruntAtack"`) || !strings.Contains(err.Error(), `did you mean "gruntAttack"?`) {
		t.Errorf("unknown target: %v", err)
	}
}
