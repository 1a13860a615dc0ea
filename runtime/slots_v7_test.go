package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// slotsV7Fixture is a save (format 7, written before slots ran their trees
// from fixed blocks) of the two agents of slotSaveTree after slotsV7Steps
// steps of 0.5 s with seed 7: agent "a" with the gun grafted and its cursor
// inside it, "b" too, cooldowns and a random choice order in the grafted
// trees. go test -update writes it again (only when the format changes on
// purpose: the point of the file is that old saves still load).
const (
	slotsV7Fixture = "testdata/saves/slots_v7.save"
	slotsV7Steps   = 9
)

func slotsV7Run(t *testing.T, b *BoundTree, agents []*Agent, steps int) []string {
	t.Helper()
	o := &slotRunner{}
	for _, a := range agents {
		a.env.Observer = o
	}
	for i := range steps {
		for _, a := range agents {
			if _, err := a.Step(0.5); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		}
	}
	return o.lines
}

// TestSlot_formatSevenSaveStillRestores: a save written by the format 7
// writer restores and goes on exactly as the run that wrote it.
func TestSlot_formatSevenSaveStillRestores(t *testing.T) {
	b := slotSaveTree(t)
	fresh := func() []*Agent {
		env := &Env{Seed: 7}
		return []*Agent{b.NewAgent("a", env), b.NewAgent("b", env)}
	}
	agents := fresh()
	want := slotsV7Run(t, b, agents, slotsV7Steps+20)[2*slotsV7Steps:]
	if *update {
		agents := fresh()
		slotsV7Run(t, b, agents, slotsV7Steps)
		data, err := SaveAgents(agents, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(slotsV7Fixture), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(slotsV7Fixture, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(slotsV7Fixture)
	if err != nil {
		t.Fatal(err)
	}
	if v := data[len(AgentsMagic)]; v != 7 {
		t.Fatalf("the fixture is format %d, not 7", v)
	}
	agents = fresh()
	if _, err := RestoreAgents(data, agents, nil); err != nil {
		t.Fatalf("restore of the format 7 save: %v", err)
	}
	got := slotsV7Run(t, b, agents, 20)
	joined := strings.Join(want, "\n")
	if !strings.Contains(joined, "use.") {
		t.Fatalf("the fixture's run never runs a grafted tree after the save:\n%s", joined)
	}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("restored from the format 7 save: line %d\n got  %v\n want %s", i, got, want[i])
		}
	}
}
