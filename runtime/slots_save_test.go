package runtime

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

// slotRunner runs a fixture whose actions graft and ungraft by the step
// count, and writes every step's runs as labels.
type slotRunner struct {
	lines []string
}

func (o *slotRunner) StepDone(a *Agent, runs []RuleRun, st Status, err error) {
	var l []string
	for _, r := range runs {
		l = append(l, a.Tree().Tree.Rules[r.Rule].Label+"="+r.Status.String())
	}
	o.lines = append(o.lines, fmt.Sprintf("%s %d %s %s %v", a.ID(), a.StepCount(), st, strings.Join(l, " "), err))
}

const slotSaveHost = `<behaviorTree>
  <variables><variable name="armed"/></variables>
  <sequence id="root">
    <action name="pick" id="pick"/>
    <slot id="use" default="idle" cooldown="1.5" doNotFail="true"/>
    <slot id="spare" doNotFail="true"/>
  </sequence>
</behaviorTree>`

var slotSaveGame = map[string]string{
	"idle": `<behaviorTree><yield id="wait"/></behaviorTree>`,
	"gun": `<behaviorTree><variables><variable name="armed"/></variables>
  <sequence id="man"><choice id="try"><yield id="aim" cooldown="2"/><success id="skip"/></choice><action name="arm" id="fire"/><yield id="recoil"/></sequence></behaviorTree>`,
	"crate": `<behaviorTree><choice id="open" order="random"><yield id="lift"/><yield id="kick"/><yield id="pry"/></choice></behaviorTree>`,
}

func slotSaveTree(t *testing.T) *BoundTree { return slotSaveTreeWith(t, slotSaveGame) }

func slotSaveTreeWith(t *testing.T, game map[string]string) *BoundTree {
	t.Helper()
	reg := NewRegistry()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(reg.RegisterAction("pick", ActionFunc(func(a *Agent, p Params) (Status, error) {
		switch a.StepCount() % 7 {
		case 1:
			return Success, a.Graft("use", "gun")
		case 2:
			return Success, a.Graft("spare", "crate")
		case 4:
			return Success, a.Ungraft("use")
		case 5:
			return Success, a.Graft("use", "crate")
		case 6:
			return Success, a.Ungraft("spare")
		}
		return Success, nil
	})))
	must(reg.RegisterAction("arm", ActionFunc(func(a *Agent, p Params) (Status, error) {
		return Success, a.SetVar("armed", !mustVar(a))
	})))
	tr, err := LoadBytes("host.xml", []byte(slotSaveHost), LoadOptions{})
	must(err)
	b, err := Bind(tr, reg, BindOptions{Trees: slotTrees(t, game)})
	must(err)
	return b
}

func mustVar(a *Agent) bool { v, _ := a.Var("armed"); return v }

// A save at any step of a run with grafts, restored into fresh agents,
// goes on exactly as the run without the save.
func TestSlot_saveAndRestoreAtEveryStepGoOnAsWithout(t *testing.T) {
	b := slotSaveTree(t)
	const steps = 60
	run := func(saveAt int) []string {
		o := &slotRunner{}
		env := &Env{Observer: o, Seed: 7}
		agents := []*Agent{b.NewAgent("a", env), b.NewAgent("b", env)}
		for i := range steps {
			if i == saveAt {
				data, err := SaveAgents(agents, nil)
				if err != nil {
					t.Fatalf("save at step %d: %v", i, err)
				}
				agents = []*Agent{b.NewAgent("a", env), b.NewAgent("b", env)}
				if _, err := RestoreAgents(data, agents, nil); err != nil {
					t.Fatalf("restore at step %d: %v", i, err)
				}
			}
			for _, a := range agents {
				if _, err := a.Step(0.5); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
		}
		return o.lines
	}
	want := run(-1)
	joined := strings.Join(want, "\n")
	for _, l := range []string{"use.aim=", "use.fire=", "spare.open=", "use.open=", "use.wait=", "spare=success root"} {
		if !strings.Contains(joined, l) {
			t.Fatalf("the fixture never runs %s:\n%s", l, joined)
		}
	}
	for k := 1; k < steps; k++ {
		got := run(k)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("saved and restored at step %d: line %d\n got  %s\n want %s", k, i, got[i], want[i])
			}
		}
	}
}

func TestSlot_restoreWithoutTheSlotsTreeIsAnError(t *testing.T) {
	b := slotSaveTree(t)
	a := b.NewAgent("a", &Env{})
	for range 2 {
		if _, err := a.Step(0.5); err != nil {
			t.Fatal(err)
		}
	}
	data, err := SaveAgents([]*Agent{a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	game := map[string]string{"idle": slotSaveGame["idle"], "crate": slotSaveGame["crate"]} // no gun
	tr, _ := LoadBytes("host.xml", []byte(slotSaveHost), LoadOptions{})
	reg := b.graft.reg
	b2, err := Bind(tr, reg, BindOptions{Trees: slotTrees(t, game)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = RestoreAgents(data, []*Agent{b2.NewAgent("a", &Env{})}, nil)
	if err == nil || !strings.Contains(err.Error(), `no tree "gun" in the game's [[trees]]`) {
		t.Fatalf("restore without the grafted tree: %v", err)
	}
}

// FuzzRestoreSlots feeds damaged bodies of saves of agents whose slots
// hold grafted trees (format version 7) to the restore, behind a valid
// frame (the checksum would keep them away): it never panics, and a
// restore it refuses leaves the agents as they were.
//
//	go test ./runtime -run '^$' -fuzz FuzzRestoreSlots
func FuzzRestoreSlots(f *testing.F) {
	b := slotSaveTree(&testing.T{})
	fresh := func() []*Agent {
		env := &Env{Seed: 7}
		return []*Agent{b.NewAgent("a", env), b.NewAgent("b", env)}
	}
	agents := fresh()
	for i := range 12 { // saves with slots empty, grafted, and switching
		for _, a := range agents {
			a.Step(0.5)
		}
		if i%3 == 2 {
			e := savecodec.NewEncoder()
			if err := EncodeAgents(e, agents, nil); err != nil {
				f.Fatal(err)
			}
			f.Add(e.Bytes(), strings.Join(e.Strings(), "\x00"))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, table string) {
		data := savecodec.WriteContainer(AgentsMagic, AgentsVersion, savecodec.RawEncoder(body, strings.Split(table, "\x00")))
		agents := fresh()
		before, _ := SaveAgents(agents, nil)
		if _, err := RestoreAgents(data, agents, nil); err != nil {
			if after, _ := SaveAgents(agents, nil); string(before) != string(after) {
				t.Fatalf("a failed restore changed the agents: %v", err)
			}
		}
	})
}

// A save does not depend on the order in which the game first needed its
// grafted trees: restored into a fresh bind (whose trees' blocks are laid
// out in another order) at any step, the run's saves are byte for byte
// those of the run without the restore.
func TestSlot_savesDoNotDependOnTheOrderTreesWereFirstGrafted(t *testing.T) {
	game := map[string]string{ // both slots' trees with rules whose state a save lists in tree order
		"idle":  slotSaveGame["idle"],
		"gun":   slotSaveGame["gun"],
		"crate": `<behaviorTree><choice id="open" order="random"><yield id="lift" cooldown="5"/><yield id="kick" cooldown="5"/><yield id="pry"/></choice></behaviorTree>`,
	}
	b := slotSaveTreeWith(t, game)
	const steps = 40
	run := func(saveAt int) [][]byte {
		env := &Env{Seed: 7}
		agents := []*Agent{b.NewAgent("a", env), b.NewAgent("b", env)}
		var saves [][]byte
		for i := range steps {
			if i == saveAt {
				data, err := SaveAgents(agents, nil)
				if err != nil {
					t.Fatal(err)
				}
				fresh, err := Bind(b.Tree, b.graft.reg, BindOptions{Trees: b.graft.opts.Trees})
				if err != nil {
					t.Fatal(err)
				}
				agents = []*Agent{fresh.NewAgent("a", env), fresh.NewAgent("b", env)}
				if _, err := RestoreAgents(data, agents, nil); err != nil {
					t.Fatalf("restore at step %d: %v", i, err)
				}
			}
			for _, a := range agents {
				if _, err := a.Step(0.5); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			data, err := SaveAgents(agents, nil)
			if err != nil {
				t.Fatal(err)
			}
			saves = append(saves, data)
		}
		return saves
	}
	want := run(-1)
	for k := 1; k < steps; k++ {
		got := run(k)
		for i := k; i < steps; i++ {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("restored into a fresh bind at step %d: the save after step %d differs", k, i+1)
			}
		}
	}
}

// An agent whose slots all gave up their trees saves as one that never
// held any, which is what its restore gives back: the save after the
// restore is byte for byte the one before.
func TestSlot_aSaveWithEverySlotEmptyRestoresAsIs(t *testing.T) {
	h := newSlotHarness(t, `<behaviorTree><variables><variable name="armed"/></variables><choice id="root"><slot id="use"/><action name="ok" id="else"/></choice></behaviorTree>`)
	h.must(h.agent.Graft("use", "crate"))
	h.steps(1)
	h.must(h.agent.Ungraft("use"))
	h.steps(1)
	before, err := SaveAgents([]*Agent{h.agent}, nil)
	h.must(err)
	a := h.tree.NewAgent("a1", h.env)
	warns, err := RestoreAgents(before, []*Agent{a}, nil)
	h.must(err)
	after, err := SaveAgents([]*Agent{a}, nil)
	h.must(err)
	if len(warns) > 0 || !bytes.Equal(before, after) {
		t.Fatalf("restored with warnings %q; saves equal: %v", warns, bytes.Equal(before, after))
	}
}
