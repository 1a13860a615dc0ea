package liveview

import (
	"os"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// TestOutline_stateMachineRulesAreItsChildren: the editor's outline of a
// state machine holds its states' rules as the machine's children, with the
// ids the loader gives them (".x" prefixed with the machine's id), in the
// loader's order.
func TestOutline_stateMachineRulesAreItsChildren(t *testing.T) {
	data, err := os.ReadFile("../scripts/ai/lookout.xml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := scanSource(string(data))
	if err != nil {
		t.Fatal(err)
	}
	o, err := newOutline(tagFormat(), doc, "scripts/ai/lookout.xml", runtime.TextEncoding{})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := runtime.LoadBytes("scripts/ai/lookout.xml", data, runtime.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Rules) != len(tree.Rules) {
		t.Fatalf("%d rules in the outline, %d in the tree", len(o.Rules), len(tree.Rules))
	}
	for i, r := range o.Rules {
		if r.ID != tree.Rules[i].ID || int32(r.Parent) != tree.Rules[i].Parent {
			t.Errorf("rule %d: outline %s (parent %d), tree %s (parent %d)", i, r.ID, r.Parent, tree.Rules[i].ID, tree.Rules[i].Parent)
		}
	}
}
