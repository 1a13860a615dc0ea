package runtime

import (
	"strings"
	"testing"
)

// slotTrees loads the trees of a game for slot tests: name -> XML.
func slotTrees(t *testing.T, trees map[string]string) TreeSource {
	t.Helper()
	loaded := map[string]*Tree{}
	for name, xml := range trees {
		tr, err := LoadBytes(name+".xml", []byte(xml), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		loaded[name] = tr
	}
	return func(name string) (*Tree, bool) {
		tr, ok := loaded[name]
		return tr, ok
	}
}

const slotHost = `<behaviorTree>
  <variables><variable name="armed" default="false"/></variables>
  <sequence id="root">
    <action name="act" id="walk"/>
    <slot id="use" default="idle"/>
  </sequence>
</behaviorTree>`

var slotGame = map[string]string{
	"idle": `<behaviorTree><action name="ok" id="wait"/></behaviorTree>`,
	"gun": `<behaviorTree><variables><variable name="armed" default="false"/></variables>
  <sequence id="man"><action name="act" id="aim"/><action name="ok" id="fire"/></sequence></behaviorTree>`,
	"crate":   `<behaviorTree><sequence id="open"><action name="ok" id="lift"/></sequence></behaviorTree>`,
	"alien":   `<behaviorTree><variables><variable name="hungry"/></variables><action name="ok" id="eat"/></behaviorTree>`,
	"armedOn": `<behaviorTree><variables><variable name="armed" default="true"/></variables><action name="ok" id="x"/></behaviorTree>`,
	"nested":  `<behaviorTree><slot id="inner"/></behaviorTree>`,
	"waits":   `<behaviorTree><action name="bt.signal.wait" id="w"><parameter name="signal.name">Go</parameter></action></behaviorTree>`,
}

func newSlotHarness(t *testing.T, xml string) *harness {
	t.Helper()
	return newHarnessOpts(t, xml, nil, BindOptions{Trees: slotTrees(t, slotGame)})
}

func TestSlot_runsItsDefaultTreeUnderItsID(t *testing.T) {
	h := newSlotHarness(t, slotHost)
	expectSteps(t, h.steps(2), []string{
		"success root: walk:start walk use.wait",
		"success root: walk:start walk use.wait",
	})
	if h.agent.Tree() == h.tree {
		t.Error("the agent runs the template, not the composite with its default")
	}
	if h.agent.Template() != h.tree {
		t.Error("Template is not the tree the agent was made with")
	}
}

func TestSlot_withoutTreeFails(t *testing.T) {
	h := newSlotHarness(t, `<behaviorTree><choice id="root"><slot id="use"/><action name="ok" id="else"/></choice></behaviorTree>`)
	expectSteps(t, h.steps(1), []string{"success root: else"})
	h.must(h.agent.Graft("use", "crate"))
	expectSteps(t, h.steps(2), []string{"success root: use.lift", "success root: use.lift"})
	h.must(h.agent.Ungraft("use"))
	expectSteps(t, h.steps(1), []string{"success root: else"})
}

// A graft takes effect at the slot's next entry; an active slot keeps its
// tree until it is left.
func TestSlot_graftAppliesAtTheNextEntryAndNotBefore(t *testing.T) {
	h := newSlotHarness(t, slotHost)
	h.script["use.aim"] = []Status{Running, Success}
	h.must(h.agent.Graft("use", "gun"))
	h.hook["use.aim"] = func(a *Agent) error { return a.Graft("use", "crate") } // while use runs gun
	expectSteps(t, h.steps(3), []string{
		"running use.aim: walk:start walk use.aim:start use.aim",
		"success root: use.aim use.fire",         // still the gun: the slot is active
		"success root: walk:start walk use.lift", // entered again: the crate
	})
	// A graft from the action before the slot, in the same step: the slot
	// is entered after it, so it applies in that step.
	h.hook["walk"] = func(a *Agent) error { return a.Ungraft("use") }
	expectSteps(t, h.steps(1), []string{"success root: walk:start walk use.wait"})
	holds, wants, err := h.agent.Grafted("use")
	if err != nil || holds != "idle" || wants != "" {
		t.Errorf("Grafted = %q %q %v; want idle, none", holds, wants, err)
	}
}

func TestSlot_graftRefusesWhatTheAgentsTreeDoesNotDeclare(t *testing.T) {
	h := newSlotHarness(t, slotHost)
	for tree, want := range map[string]string{
		"alien":   `uses variable "hungry" (alien.xml:1:26), which test.xml does not declare; declare <variable name="hungry" default="false"/> there too`,
		"armedOn": `its variable "armed" has default true`,
		"nested":  `it has a slot of its own`,
		"waits":   `it mentions signal "Go", which test.xml neither declares nor mentions`,
		"none":    `no tree "none" in the game's [[trees]]`,
	} {
		err := h.agent.Graft("use", tree)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Graft(%s) = %v; want an error with %q", tree, err, want)
		}
	}
	if err := h.agent.Graft("nope", "gun"); err == nil || !strings.Contains(err.Error(), `no slot "nope" (its slots: use)`) {
		t.Errorf("Graft into an unknown slot = %v", err)
	}
	expectSteps(t, h.steps(1), []string{"success root: walk:start walk use.wait"}) // nothing changed
}

func TestSlot_loadAndBindErrors(t *testing.T) {
	if _, err := LoadBytes("t.xml", []byte(`<behaviorTree><slot default="x"/></behaviorTree>`), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "<slot> needs an id") {
		t.Errorf("slot without id: %v", err)
	}
	tr, err := LoadBytes("t.xml", []byte(`<behaviorTree><slot id="s" default="nope"/></behaviorTree>`), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Bind(tr, NewRegistry(), BindOptions{Trees: slotTrees(t, slotGame)}); err == nil || !strings.Contains(err.Error(), `t.xml:1:15: rule s: default tree: no tree "nope"`) {
		t.Errorf("unknown default: %v", err)
	}
}

// Labels inside a slot are the slot's id and the tree's ids: jumps reach
// them, and the composite is shared by the agents that hold the same trees.
func TestSlot_labelsAndJumpsInsideTheGraftedTree(t *testing.T) {
	h := newSlotHarness(t, slotHost)
	h.must(h.agent.Graft("use", "gun"))
	h.script["use.aim"] = []Status{Running}
	expectSteps(t, h.steps(1), []string{"running use.aim: walk:start walk use.aim:start use.aim"})
	h.must(h.agent.Jump("use.fire"))
	expectSteps(t, h.steps(1), []string{"success root: use.fire"})
	other := h.tree.NewAgent("a2", h.env)
	h.must(other.Graft("use", "gun"))
	if _, err := other.Step(1); err != nil {
		t.Fatal(err)
	}
	if other.Tree() != h.agent.Tree() {
		t.Error("two agents holding the same trees do not share the composite")
	}
	if err := h.agent.Jump("use.lift"); err == nil {
		t.Error("a jump into a tree the slot does not hold was accepted")
	}
}
