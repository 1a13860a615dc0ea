package runtime

import (
	"strings"
	"testing"
)

// A grafted tree may bring actions with signal handlers into an agent whose
// own tree has none: the composite the agent runs binds them, so a signal
// delivered while the grafted action runs calls its handler, and its result
// is the action's at the next step.
func TestSlot_handlersOfAGraftedTreeWhoseHostHasNone(t *testing.T) {
	h := newHarness(t, bt(`<action id="x" name="ok"/>`), nil)
	g := &guardAction{h: h, answers: map[string]any{"Hurt": Failure}}
	h.must(h.reg.RegisterAction("guard", g))
	trees := slotTrees(t, map[string]string{
		"guarded": bt(`<signals><signal name="Hurt"/></signals><action id="watch" name="guard"/>`),
	})
	host, err := LoadBytes("host.xml", []byte(bt(`<signals><signal name="Hurt"/></signals>
<choice id="root">
  <sequence id="work"><action id="walk" name="ok"/><slot id="use"/></sequence>
  <action id="rest" name="ok"/>
</choice>`)), LoadOptions{})
	h.must(err)
	h.tree, err = Bind(host, h.reg, BindOptions{Trees: trees})
	h.must(err)
	if h.tree.handlers != nil {
		t.Fatal("the host tree has no action with handlers, yet its bound tree lists some")
	}
	h.agent = h.tree.NewAgent("a1", h.env)

	// Without a graft the slot fails, and Hurt calls nothing.
	expectSteps(t, h.steps(1), []string{"success root: walk rest"})
	h.log = h.log[:0]
	h.must(h.agent.SignalData("Hurt", numv(1)))
	if len(h.log) != 0 {
		t.Fatalf("a handler was called with no grafted tree: %v", h.log)
	}

	h.must(h.agent.Graft("use", "guarded"))
	expectSteps(t, h.steps(1), []string{"running use.watch: walk use.watch"})
	h.log = h.log[:0]
	h.must(h.agent.SignalData("Hurt", numv(10)))
	if got := strings.Join(h.log, " "); got != "use.watch.onHurt(10)" {
		t.Fatalf("at delivery: %q, want the grafted action's handler called", got)
	}
	// The handler's Failure is the action's: the slot fails, the choice
	// goes on to rest.
	expectSteps(t, h.steps(1), []string{"success root: rest"})
}
