package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// nativeSeeds are the seed documents of testdata/native: every example of
// the Lumberyard MBT and CryEngine BHS seeds.
func nativeSeeds(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/native/*.xml")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if filepath.Base(f) != "Common.xml" {
			out = append(out, f)
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d seed documents", len(out))
	}
	return out
}

func TestNative_seedsLoad(t *testing.T) {
	for _, f := range nativeSeeds(t) {
		tree, err := LoadFile(f, LoadOptions{Root: "testdata/native"})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if strings.Contains(f, "_blocks") && !slices.Contains(tree.Files, "Common.xml") {
			t.Errorf("%s: files %v; the block file counts among them (reload watches it)", f, tree.Files)
		}
		var b strings.Builder
		tree.Format(&b)
		if os.Getenv("SHOW") != "" {
			t.Logf("%s:\n%s", f, b.String())
		}
	}
}

func TestConvert_seeds(t *testing.T) {
	for _, f := range nativeSeeds(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		conv, err := Convert(f, data, LoadOptions{Root: "testdata/native"})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if os.Getenv("SHOW") != "" {
			t.Logf("%s:\n%s", f, conv.Text)
		}
		if _, err := LoadBytes(f, conv.Text, LoadOptions{Root: "testdata/native"}); err != nil {
			t.Errorf("%s: the converted document does not load: %v\n%s", f, err, conv.Text)
		}
	}
}

// Errors in native documents carry the document's own line and column.
func TestNative_errorsCarryTheDocumentsPositions(t *testing.T) {
	cases := []struct{ doc, want string }{
		{"<BehaviorTree>\n<Root><Sequence>\n  <Loop count=\"x\"><A/></Loop></Sequence></Root></BehaviorTree>",
			`n.xml:3:3: count="x" on MBT <Loop> is not a whole number up to 2147483647`},
		{"<BehaviorTree><Root>\n <Wait duration=\"2\" variation=\"1\"/></Root></BehaviorTree>",
			`n.xml:2:2: unknown attribute variation on MBT <Wait>; expected one of duration, _startLog, _successLog, _failureLog`},
		{"<BehaviorTree><Root>\n <IfCondition condition=\"A and\"><B/></IfCondition></Root></BehaviorTree>",
			`n.xml:2:2: condition="A and" on MBT <IfCondition> ends where a name or ( was expected`},
		{"<BehaviorTree><Root><A/>\n<B/></Root></BehaviorTree>",
			`n.xml:1:15: MBT <Root> holds 2 nodes; expected exactly one, the tree's root node`},
		{"<BehaviorTree><Root><Sequence>\n <Case><A/></Case></Sequence></Root></BehaviorTree>",
			`n.xml:2:2: MBT <Case> is not allowed here; expected a node such as Sequence, Selector, Parallel, Loop, or an action leaf`},
		{"<BehaviorTree><SignalVariables>\n <Signal name=\"S\" variable=\"Nope\" value=\"true\"/></SignalVariables><Root><A/></Root></BehaviorTree>",
			`n.xml:2:2: signal "S" sets variable "Nope", which is not declared`},
		{"<BehaviorTree><Root>\n  <Parallel/></Root></BehaviorTree>",
			`n.xml:2:3: <parallel> has no children`},
		{"<SelectionTree><Priority>\n <Ref name=\"Missing\"/></Priority></SelectionTree>",
			`n.xml:2:2: BHS <Ref> names block "Missing", which no <Blocks> defines`},
		{"<SelectionTree><Priority>\n <Leaf name=\"A\" condition=\"A ^^ B\"/></Priority></SelectionTree>",
			`n.xml:2:2: condition="A ^^ B" on BHS <Leaf> has "^" where a name, not or ( was expected`},
		{"<BehaviorTree><Root><Move>\n <Wait duration=\"1\"/></Move></Root></BehaviorTree>",
			`n.xml:2:2: unexpected <Wait> in MBT <Move>, which holds no nodes; put them in a node that does, such as a Sequence`},
		{"<SelectionTree>\n <Prio/></SelectionTree>",
			`n.xml:2:2: unknown element <Prio> in BHS <SelectionTree>`},
		{"<SelectionTree blocks=\"none.xml\"><Priority><Leaf name=\"A\"/></Priority></SelectionTree>",
			`n.xml:1:1: cannot read BHS block file none.xml`},
	}
	files := map[string][]byte{}
	opts := LoadOptions{ReadFile: func(p string) ([]byte, error) {
		if b, ok := files[p]; ok {
			return b, nil
		}
		return nil, os.ErrNotExist
	}}
	for _, c := range cases {
		_, err := LoadBytes("n.xml", []byte(c.doc), opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n got: %v\nwant: %s", c.doc, err, c.want)
		}
	}
}

// Blocks that refer to themselves, or to others many times over, are
// errors, not a hang.
func TestNative_blocksThatMultiplyAreErrors(t *testing.T) {
	self := `<SelectionTree><Blocks><Block name="X"><Priority><Ref name="X"/></Priority></Block></Blocks>
<Priority><Ref name="X"/></Priority></SelectionTree>`
	_, err := LoadBytes("n.xml", []byte(self), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), `n.xml:1:50: BHS <Ref> to "X" inside block "X" itself`) {
		t.Fatalf("got %v", err)
	}
	var b strings.Builder
	b.WriteString("<SelectionTree><Blocks>")
	for i := range 20 {
		fmt.Fprintf(&b, `<Block name="B%d"><Priority><Ref name="B%d"/><Ref name="B%d"/></Priority></Block>`, i, i+1, i+1)
	}
	b.WriteString(`<Block name="B20"><Leaf name="L"/></Block></Blocks><Priority><Ref name="B0"/></Priority></SelectionTree>`)
	_, err = LoadBytes("n.xml", []byte(b.String()), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "put more than 50000 elements in place") {
		t.Fatalf("got %v", err)
	}
}

// Convert keeps the document's comments, those of declaration sections
// included, and says where each rule comes from.
func TestConvert_keepsCommentsAndOrigins(t *testing.T) {
	doc := `<!-- before -->
<SelectionTree>
<Variables>
  <!-- what the grunt knows -->
  <Variable name="A"/>
</Variables>
<LeafTranslations>
  <!-- grunt names -->
  <Map node="X" target="GruntX"/>
</LeafTranslations>
<Priority><!-- root --><Leaf name="X" condition="A"/><Leaf name="Y"/></Priority>
</SelectionTree>`
	conv, err := Convert("g.xml", []byte(doc), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<!-- Converted by btrun convert from g.xml (CryEngine BHS). -->
<!-- before -->
<behaviorTree>
  <variables>
    <!-- what the grunt knows -->
    <!-- BHS Variable, line 5 -->
    <variable name="A"/>
  </variables>
  <!-- grunt names -->
  <!-- BHS Priority, line 11 -->
  <choice id="Priority">
    <!-- root -->
    <!-- BHS Leaf, line 11 -->
    <action name="GruntX" abort="both" id="Priority.X">
      <condition>A</condition>
    </action>
    <!-- BHS Leaf, line 11 -->
    <action name="Y" id="Priority.Y"/>
  </choice>
</behaviorTree>
<!-- Actions this tree expects to be registered (by a script or a plugin): GruntX, Y -->
`
	if string(conv.Text) != want {
		t.Fatalf("got\n%s\nwant\n%s", conv.Text, want)
	}
	if strings.Join(conv.Actions, ",") != "GruntX,Y" {
		t.Fatalf("actions %v", conv.Actions)
	}
	if _, err := Convert("g.xml", []byte(bt(`<success/>`)), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "btrun convert reads <BehaviorTree> (MBT), <SelectionTree> (BHS) and Drag[en]gine <stateMachine> documents") {
		t.Fatalf("a tree file of the format: %v", err)
	}
}
