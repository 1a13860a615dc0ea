package host

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// TestPlugin_graftsATreeIntoASlot: a plugin action's reply grafts a tree
// into the agent's slot (sdk.Call.Graft), which runs it at its next entry;
// Ungraft gives the slot back its default; a tree that does not fit fails
// the call with the reason.
func TestPlugin_graftsATreeIntoASlot(t *testing.T) {
	trees := map[string]string{
		"idle":  `<behaviorTree><action id="wait" name="test.result"/></behaviorTree>`,
		"gun":   `<behaviorTree><action id="fire" name="test.result"/></behaviorTree>`,
		"alien": `<behaviorTree><variables><variable name="hungry"/></variables><action id="eat" name="test.result"/></behaviorTree>`,
	}
	loaded := map[string]*runtime.Tree{}
	for name, xml := range trees {
		tr, err := runtime.LoadBytes(name+".xml", []byte(xml), runtime.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		loaded[name] = tr
	}
	worldTrees = func(name string) (*runtime.Tree, bool) { tr, ok := loaded[name]; return tr, ok }
	t.Cleanup(func() { worldTrees = nil })
	xml := `<behaviorTree><sequence id="root">
  <slot id="use" default="idle"/>
  <action id=".pick" name="test.graft"><parameter name="graft.tree">gun</parameter></action>
  <slot id="use2" default="idle"/>
</sequence></behaviorTree>`
	w := newWorld(t, xml, []Spec{helperSpec("test", "plugin")}, Options{}, 1, nil)
	w.step()
	w.step()
	want := []string{
		"t=0.1 a1: root=moved use=moved use.wait=success use=success root=moved root.pick=success root=moved use2=moved use2.wait=success use2=success root=success -> success",
		"t=0.2 a1: root=moved use=moved use.fire=success use=success root=moved root.pick=success root=moved use2=moved use2.wait=success use2=success root=success -> success",
	}
	if got := strings.Join(w.trace, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("trace:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	bad := newWorld(t, strings.Replace(xml, ">gun<", ">alien<", 1), []Spec{helperSpec("test", "plugin")}, Options{}, 1, nil)
	out := bad.step()
	if out[0].Err == nil || !strings.Contains(out[0].Err.Error(), `reply cannot graft "alien" into slot "use"`) ||
		!strings.Contains(out[0].Err.Error(), `uses variable "hungry"`) {
		t.Errorf("a graft that does not fit: %v", out[0].Err)
	}
}
