package runtime

import "testing"

// TestRestore_variablesAndStampsByNameWhateverTheirPlace: a restore finds
// a saved variable or timestamp at its place in the tree when the tree
// declares them in the save's order, and by name when an edit moved them
// (declarations reordered, one added before them): each gets its saved
// value either way.
func TestRestore_variablesAndStampsByNameWhateverTheirPlace(t *testing.T) {
	const saved = `<behaviorTree>
  <variables><variable name="A" default="false"/><variable name="B" default="false"/><variable name="C" default="true"/></variables>
  <timestamps><timestamp name="S"/><timestamp name="T"/></timestamps>
  <success id="root"/>
</behaviorTree>`
	const moved = `<behaviorTree>
  <variables><variable name="New" default="true"/><variable name="C" default="true"/><variable name="B" default="false"/><variable name="A" default="false"/></variables>
  <timestamps><timestamp name="T"/><timestamp name="New"/><timestamp name="S"/></timestamps>
  <success id="root"/>
</behaviorTree>`
	agent := func(xml string) *Agent {
		tree, err := LoadBytes("t.xml", []byte(xml), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Bind(tree, NewRegistry(), BindOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return b.NewAgent("a1", &Env{})
	}
	src := agent(saved)
	if _, err := src.StepAt(2.5); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{src.SetVar("A", true), src.SetVar("C", false), src.SetStamp("T")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := SaveAgents([]*Agent{src}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, xml := range []string{saved, moved} {
		dst := agent(xml)
		if _, err := RestoreAgents(data, []*Agent{dst}, nil); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]bool{"A": true, "B": false, "C": false} {
			if got, err := dst.Var(name); err != nil || got != want {
				t.Errorf("variable %s = %v (%v), want %v", name, got, err, want)
			}
		}
		if _, set, _ := dst.Stamp("S"); set {
			t.Error("timestamp S is set, want unset")
		}
		if at, set, _ := dst.Stamp("T"); !set || at != 2.5 {
			t.Errorf("timestamp T = %v (set %v), want 2.5", at, set)
		}
	}
}
