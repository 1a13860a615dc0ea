package liveview

import (
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// firstRule is a program's own composite: it runs its first child and
// finishes with its result.
type firstRule struct{}

func (firstRule) Enter(a *runtime.Agent) (runtime.Next, error) { return runtime.RunChild(0), nil }
func (firstRule) ChildDone(a *runtime.Agent, child int, res runtime.Status) (runtime.Next, error) {
	return runtime.Finish(res), nil
}
func (firstRule) Exit(a *runtime.Agent, how string) error { return nil }

// A rule a program registers through game.Options.Register is a tag of
// the editor's format like btrun's own: the palette lists it, and the
// outline and the edit operations treat it as a rule that holds rules.
func TestEditor_aProgramsOwnRuleIsInThePaletteAndTheOutline(t *testing.T) {
	const tree = `<behaviorTree>
  <first id="f">
    <action id=".a" name="bt.wait"><parameter name="wait.seconds">1</parameter></action>
  </first>
</behaviorTree>
`
	cfg := game.NewConfig("")
	cfg.Trees = []game.TreeConfig{{Name: "npc", File: "npc.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "npc", Count: 1}}
	g, err := game.Open(cfg, game.Options{Files: fstest.MapFS{"npc.xml": {Data: []byte(tree)}}, Stdout: io.Discard, Stderr: io.Discard,
		Register: func(reg *runtime.Registry) error {
			return reg.AddRule(runtime.RuleDef{RuleDecl: runtime.RuleDecl{Tag: "first", Doc: "runs its first child", Origin: runtime.Origin{Kind: "go"}},
				Bind: func(s *runtime.Site) (runtime.CustomRule, error) { return firstRule{}, nil }})
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	d := New(g, Options{Embedded: true})
	defer d.Close()

	var tag *paletteTag
	p := d.paletteView()
	for i := range p.Tags {
		if p.Tags[i].Tag == "first" {
			tag = &p.Tags[i]
		}
	}
	if tag == nil || tag.Kind != "rule" || !strings.HasPrefix(tag.Doc, "runs its first child") {
		t.Fatalf("the palette's <first>: %+v", tag)
	}
	for _, in := range p.Tags {
		if in.Tag == "sequence" && !contains(in.Inside, "first") {
			t.Errorf("a sequence's palette entry does not hold <first>: %v", in.Inside)
		}
	}

	o, err := readSourceIn(d.format(), "npc.xml", tree)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Rules) != 2 || o.Rules[0].Tag != "first" || len(o.Rules[0].Children) != 1 || o.Rules[1].Label != "f.a" {
		t.Fatalf("the outline: %+v", o.Rules)
	}
	// An action moved into the program's rule lands there.
	out, err := applyOpsIn(d.format(), "npc.xml", tree, ops(t, `{"op":"insert","parent":"f","index":0,"xml":"<success id=\".s\"/>"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o, err = readSourceIn(d.format(), "npc.xml", out); err != nil || len(o.Rules[0].Children) != 2 {
		t.Fatalf("after the insert (%v):\n%s", err, out)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
