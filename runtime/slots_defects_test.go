package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// Defects of the first design of slots (a composite bound per sequence of
// trees a slot took, remapped between steps), each held here by a test
// that failed on it (issue 34).

// A slot in a lane of a parallel runs its grafted tree like the same tree
// written inline: the other lane keeps running, and the grafted tree's
// finish bubbles to the parallel. (Before: taking the tree dropped the
// agent's lanes, and the tree's finish panicked in lanes.go.)
func TestSlot_inALaneKeepsTheOtherLanes(t *testing.T) {
	h := newSlotHarness(t, `<behaviorTree><variables><variable name="armed"/></variables><sequence id="root">
  <parallel id="par"><action name="act" id="side"/><slot id="use"/></parallel>
  <action name="ok" id="after"/>
</sequence></behaviorTree>`)
	h.script["side"] = []Status{Running, Running, Success}
	h.script["use.aim"] = []Status{Running, Success}
	h.must(h.agent.Graft("use", "gun"))
	expectSteps(t, h.steps(3), []string{
		"running par{side use.aim}: side:start side use.aim:start use.aim",
		"running par{side use=success}: side use.aim use.fire",
		"success root: side after",
	})
}

// The same with the graft made from inside the lane, in the step that
// enters the slot.
func TestSlot_graftFromALaneAppliesInTheLane(t *testing.T) {
	h := newSlotHarness(t, `<behaviorTree><variables><variable name="armed"/></variables><sequence id="root">
  <parallel id="par"><action name="act" id="side"/><sequence id="l2"><action name="act" id="pick"/><slot id="use"/></sequence></parallel>
</sequence></behaviorTree>`)
	h.script["side"] = []Status{Running}
	h.script["use.aim"] = []Status{Running}
	h.hook["pick"] = func(a *Agent) error { return a.Graft("use", "gun") }
	expectSteps(t, h.steps(2), []string{
		"running par{side use.aim}: side:start side pick:start pick use.aim:start use.aim",
		"running par{side use.aim}: side use.aim",
	})
}

// A reload of the grafted tree alone, its two actions swapped (ids kept):
// the agent on use.aim stays on use.aim. (Before: the composite took the
// template's fingerprint, so the carry mapped every rule to its index, and
// the agent landed on use.fire.)
func TestSlot_reloadOfTheGraftedTreeAloneCarriesByID(t *testing.T) {
	h := newSlotHarness(t, slotHost)
	h.must(h.agent.Graft("use", "gun"))
	h.script["use.aim"] = []Status{Running}
	expectSteps(t, h.steps(1), []string{"running use.aim: walk:start walk use.aim:start use.aim"})
	game := map[string]string{}
	for k, v := range slotGame {
		game[k] = v
	}
	game["gun"] = `<behaviorTree><variables><variable name="armed" default="false"/></variables>
  <sequence id="man"><action name="ok" id="fire"/><action name="act" id="aim"/></sequence></behaviorTree>`
	b2, err := Bind(h.tree.Tree, h.reg, BindOptions{Trees: slotTrees(t, game)})
	h.must(err)
	if gone := h.carry(b2); gone != "" {
		t.Fatalf("lost its place: %s", gone)
	}
	if got := h.agent.CursorLabel(); got != "use.aim" {
		t.Fatalf("after the reload the agent is on %s, want use.aim", got)
	}
	expectSteps(t, h.steps(1), []string{"running use.aim: use.aim"})
}

// A save of an agent on a grafted tree that has changed since is restored
// as an edited tree (warned), not as the same one.
func TestSlot_restoreSeesAnEditOfTheGraftedTree(t *testing.T) {
	h := newSlotHarness(t, slotHost)
	h.must(h.agent.Graft("use", "gun"))
	h.script["use.aim"] = []Status{Running}
	h.steps(1)
	data, err := SaveAgents([]*Agent{h.agent}, nil)
	h.must(err)
	game := map[string]string{}
	for k, v := range slotGame {
		game[k] = v
	}
	game["gun"] = strings.Replace(slotGame["gun"], `<action name="ok" id="fire"/>`, `<action name="ok" id="fire"/><action name="ok" id="reload"/>`, 1)
	b2, err := Bind(h.tree.Tree, h.reg, BindOptions{Trees: slotTrees(t, game)})
	h.must(err)
	a := b2.NewAgent("a1", h.env)
	warns, err := RestoreAgents(data, []*Agent{a}, nil)
	h.must(err)
	if !strings.Contains(strings.Join(warns, "\n"), "changed since the save") {
		t.Fatalf("restore of a save whose grafted tree changed: warnings %q", warns)
	}
	if a.CursorLabel() != "use.aim" {
		t.Fatalf("restored on %s", a.CursorLabel())
	}
}

// slotMemoryGame: "try up to ten smart objects until one is free": a
// sequence with attempts grafts one of several trees, most of them busy
// (failing), and enters the slot.
const slotMemoryHost = `<behaviorTree>
  <variables><variable name="armed" default="false"/></variables>
  <choice id="root"><sequence id="try" attempts="10"><action name="pick" id="pick"/><slot id="use"/></sequence><action name="ok" id="none"/></choice>
</behaviorTree>`

// Grafts in any pattern keep the bound trees of a template bounded by the
// trees involved: thousands of steps, each trying objects in another
// order, bind nothing after the first ones. (Before: every sequence of
// trees a slot took in a step became a composite, bound and kept.)
func TestSlot_graftsInAnyPatternKeepBoundTreesBounded(t *testing.T) {
	game := map[string]string{}
	for i := range 5 {
		game[fmt.Sprint("t", i)] = fmt.Sprintf(`<behaviorTree><sequence id="s%d"><action name="ok" id="go"/><action name="busy" id="b%d"/></sequence></behaviorTree>`, i, i)
	}
	reg := NewRegistry()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	x := uint32(1)
	must(reg.RegisterAction("ok", ActionFunc(func(a *Agent, p Params) (Status, error) { return Success, nil })))
	must(reg.RegisterAction("pick", ActionFunc(func(a *Agent, p Params) (Status, error) {
		x = x*1664525 + 1013904223
		return Success, a.Graft("use", fmt.Sprint("t", x>>29%5))
	})))
	must(reg.RegisterAction("busy", ActionFunc(func(a *Agent, p Params) (Status, error) {
		x = x*1664525 + 1013904223
		if x>>28%7 == 0 {
			return Success, nil
		}
		return Failure, nil
	})))
	tree, err := LoadBytes("test.xml", []byte(slotMemoryHost), LoadOptions{})
	must(err)
	b, err := Bind(tree, reg, BindOptions{Trees: slotTrees(t, game)})
	must(err)
	a := b.NewAgent("a", &Env{RunawayLimit: 200})
	count := func(n int) int {
		for range n {
			if _, err := a.Step(1); err != nil {
				t.Fatal(err)
			}
		}
		return b.graft.boundCount()
	}
	warm := count(200)
	if after := count(3000); after != warm {
		t.Fatalf("bound trees of the template: %d after 200 steps, %d after 3200", warm, after)
	}
}

// enter, exit and attempts on a slot act as on any rule.
func TestSlot_hooksAndAttemptsActAsOnAnyRule(t *testing.T) {
	h := newSlotHarness(t, `<behaviorTree><variables><variable name="armed"/></variables><sequence id="root">
  <slot id="use" default="gun" enter="h" exit="h" attempts="2"/>
</sequence></behaviorTree>`)
	h.script["use.aim"] = []Status{Failure, Success}
	expectSteps(t, h.steps(1), []string{
		"success root: +use use.aim:start use.aim use.aim:start use.aim use.fire -use(success)",
	})
}

func TestSlot_badHookAndAttemptsAreLoadErrors(t *testing.T) {
	for xml, want := range map[string]string{
		`<behaviorTree><slot id="use" attempts="banana"/></behaviorTree>`: `attempts`,
		`<behaviorTree><slot id="use" enter="nope"/></behaviorTree>`:      `unknown hook "nope"`,
	} {
		tree, err := LoadBytes("test.xml", []byte(xml), LoadOptions{})
		if err == nil {
			_, err = Bind(tree, NewRegistry(), BindOptions{})
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", xml, err, want)
		}
	}
}

// A restore whose saved tree in a slot, or saved graft, no longer fits
// the agent's tree is refused with an error naming the slot and the tree.
// (Before: it was restored, and then every entry of the slot aborted the
// step.)
func TestSlot_restoreChecksThatSavedGraftsStillFit(t *testing.T) {
	for _, c := range []struct{ name, wants string }{{"held", "gun"}, {"wanted", "crate"}} {
		t.Run(c.name, func(t *testing.T) {
			h := newSlotHarness(t, slotHost)
			h.must(h.agent.Graft("use", "gun"))
			h.script["use.aim"] = []Status{Running}
			h.steps(1)
			if c.name == "wanted" {
				h.must(h.agent.Graft("use", "crate"))
			}
			data, err := SaveAgents([]*Agent{h.agent}, nil)
			h.must(err)
			game := map[string]string{}
			for k, v := range slotGame {
				game[k] = v
			}
			game[c.wants] = `<behaviorTree><variables><variable name="armed" default="true"/></variables><action name="ok" id="aim"/></behaviorTree>`
			b2, err := Bind(h.tree.Tree, h.reg, BindOptions{Trees: slotTrees(t, game)})
			h.must(err)
			a := b2.NewAgent("a1", h.env)
			_, err = RestoreAgents(data, []*Agent{a}, nil)
			if err == nil || !strings.Contains(err.Error(), `cannot be grafted into slot "use"`) {
				t.Fatalf("restore of a graft that no longer fits: %v", err)
			}
		})
	}
}

// A slot in a subtree file, with a gate, a timeout and an exit hook, under
// a sequence whose abort watches a condition: the grafted tree's labels
// follow the slot's full id, the timeout fails the slot (its exit hook
// says so), and the abort leaves it.
func TestSlot_inASubtreeWithInterruptions(t *testing.T) {
	files := map[string]string{
		"main.xml": `<behaviorTree><variables><variable name="armed"/></variables><gates><gate name="G"/></gates>
  <choice id="root"><sequence id="go" abort="self"><condition>ok?</condition><subtree id="sub">sub.xml</subtree></sequence><action name="ok" id="else"/></choice></behaviorTree>`,
		"sub.xml": `<behaviorTree><slot id="use" default="gun" gate="G" timeout="2" exit="h"/></behaviorTree>`,
	}
	tree, err := LoadFile("main.xml", LoadOptions{ReadFile: memFiles(files)})
	if err != nil {
		t.Fatal(err)
	}
	h := newSlotHarness(t, `<behaviorTree><action name="ok"/></behaviorTree>`)
	h.must(h.reg.RegisterCondition("ok?", ConditionFunc(func(a *Agent, p Params) (bool, error) { return h.conds["ok?"], nil })))
	h.tree, err = Bind(tree, h.reg, BindOptions{Trees: slotTrees(t, slotGame)})
	h.must(err)
	h.agent = h.tree.NewAgent("a1", h.env)
	h.conds["ok?"] = true
	h.script["sub.use.aim"] = []Status{Running}
	expectSteps(t, h.steps(4), []string{
		"running sub.use.aim: sub.use.aim:start sub.use.aim",
		"running sub.use.aim: sub.use.aim",
		"success root: sub.use.aim:cancel -sub.use(timeout) else [timeout sub.use]",
		"running sub.use.aim: sub.use.aim:start sub.use.aim",
	})
	h.conds["ok?"] = false
	expectSteps(t, h.steps(1), []string{"success root: sub.use.aim:cancel -sub.use(abort) else [abort go]"})
}

// Once the trees involved are bound, a slot that takes another tree at
// every entry allocates nothing: the move is a pointer to a view made
// before.
func TestSlot_takingAnotherTreeAllocatesNothing(t *testing.T) {
	reg := NewRegistry()
	n := 0
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(reg.RegisterAction("ok", ActionFunc(func(a *Agent, p Params) (Status, error) { return Success, nil })))
	must(reg.RegisterAction("act", ActionFunc(func(a *Agent, p Params) (Status, error) { return Success, nil })))
	must(reg.RegisterAction("pick", ActionFunc(func(a *Agent, p Params) (Status, error) {
		n++
		return Success, a.Graft("use", [...]string{"gun", "crate", "idle"}[n%3])
	})))
	tree, err := LoadBytes("test.xml", []byte(`<behaviorTree><variables><variable name="armed"/></variables>
  <sequence id="root"><action name="pick" id="p"/><slot id="use" default="idle"/><action name="pick" id="q"/><slot id="spare"/></sequence></behaviorTree>`), LoadOptions{})
	must(err)
	b, err := Bind(tree, reg, BindOptions{Trees: slotTrees(t, slotGame)})
	must(err)
	a := b.NewAgent("a", &Env{})
	step := func() {
		if _, err := a.Step(1); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		step()
	}
	if allocs := testing.AllocsPerRun(100, step); allocs != 0 {
		t.Fatalf("%v allocations per step", allocs)
	}
}
