package liveview

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
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

// TestOutline_stateMachineShowsItsStates: the outline the page draws holds
// a state machine's states themselves, in document order, with their
// transitions as written, the initial one marked and each one's rule.
func TestOutline_stateMachineShowsItsStates(t *testing.T) {
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
	m := slices.IndexFunc(o.Rules, func(r outlineRule) bool { return r.Tag == "stateMachine" })
	if m < 0 {
		t.Fatal("no stateMachine in the outline")
	}
	var got []string
	for _, s := range o.Rules[m].States {
		line := fmt.Sprintf("%s@%d initial=%v rule=%s:", s.Name, s.Line, s.Initial, o.Rules[s.Rule].Label)
		for _, tr := range s.Transitions {
			line += fmt.Sprintf(" %s%s->%s", tr.Signal, tr.Result, tr.To)
		}
		got = append(got, line)
	}
	want := []string{
		"Watch@19 initial=true rule=lookout.watch: OnEnemySeen->Alert",
		"Alert@29 initial=false rule=lookout.backOff: OnLostSightOfTarget->Search success->Alert",
		"Search@37 initial=false rule=lookout.search: OnEnemySeen->Alert success->Watch failure->Watch",
	}
	if !slices.Equal(got, want) {
		t.Errorf("states:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// As the page receives them.
	js, err := json.Marshal(o.Rules[m])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"states":[{"name":"Watch","line":19,"col":5,"initial":true,"rule":`) ||
		!strings.Contains(string(js), `"transitions":[{"signal":"OnEnemySeen","to":"Alert"}]`) {
		t.Errorf("JSON: %s", js)
	}
}
