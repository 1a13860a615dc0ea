package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// memFiles serves tree files from memory, by slash-separated path.
func memFiles(files map[string]string) func(string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		if s, ok := files[filepath.ToSlash(path)]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
}

// loadMem loads main.xml from the given in-memory files.
func loadMem(t testing.TB, files map[string]string) (*Tree, error) {
	t.Helper()
	return LoadFile("main.xml", LoadOptions{ReadFile: memFiles(files)})
}

// mustLoadMem is loadMem for trees that must load.
func mustLoadMem(t testing.TB, files map[string]string) *Tree {
	t.Helper()
	tree, err := loadMem(t, files)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	checkTree(t, tree)
	return tree
}

// bt wraps rules in a <behaviorTree> element.
func bt(body string) string { return "<behaviorTree>" + body + "</behaviorTree>" }

// checkTree checks the invariants every loaded tree has.
func checkTree(t testing.TB, tree *Tree) {
	t.Helper()
	if len(tree.Rules) == 0 {
		t.Fatalf("tree has no rules")
	}
	if r := tree.Rules[0]; r.Parent != -1 || r.Next != -1 || r.Depth != 0 {
		t.Errorf("root has parent %d, next %d, depth %d", r.Parent, r.Next, r.Depth)
	}
	seen := 1
	for i := range tree.Rules {
		r := &tree.Rules[i]
		if r.Label == "" || r.Pos.Line <= 0 || r.Pos.Col <= 0 || r.Pos.File == "" {
			t.Errorf("rule %d: label %q, pos %v", i, r.Label, r.Pos)
		}
		if r.ID != "" && r.Label != r.ID {
			t.Errorf("rule %d: label %q differs from id %q", i, r.Label, r.ID)
		}
		prev := int32(i)
		for _, c := range tree.Children(int32(i)) {
			seen++
			if c <= prev || tree.Rules[c].Parent != int32(i) || tree.Rules[c].Depth != r.Depth+1 {
				t.Errorf("rule %d: child %d out of order, or wrong parent or depth", i, c)
			}
			prev = c
		}
		if !r.Kind.IsList() && r.FirstChild >= 0 {
			t.Errorf("rule %d (%s) has children", i, r.Kind)
		}
		if r.ID != "" {
			if j, ok := tree.RuleIndex(r.ID); !ok || j != int32(i) {
				t.Errorf("RuleIndex(%q) = %d, %v; want %d", r.ID, j, ok, i)
			}
		}
	}
	if seen != len(tree.Rules) {
		t.Errorf("%d rules reachable from the root, %d in Rules", seen, len(tree.Rules))
	}
}

// ids lists the full ids of the tree's rules, in order, "-" for none.
func ids(tree *Tree) []string {
	out := make([]string, len(tree.Rules))
	for i, r := range tree.Rules {
		out[i] = r.ID
		if r.ID == "" {
			out[i] = "-"
		}
	}
	return out
}

// outline lists each rule as depth-indented "kind label".
func outline(tree *Tree) []string {
	out := make([]string, len(tree.Rules))
	for i, r := range tree.Rules {
		out[i] = strings.Repeat(" ", int(r.Depth)) + r.Kind.String() + " " + r.Label
	}
	return out
}

func TestLoad_seedExampleLoadsUnchanged(t *testing.T) {
	const file = "scripts/ai/dragengine-exampleapp.xml"
	tree, err := LoadFile("../"+file, LoadOptions{Root: ".."})
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, tree)
	if tree.File != file || !reflect.DeepEqual(tree.Files, []string{file}) {
		t.Errorf("File %q, Files %q", tree.File, tree.Files)
	}
	raw, err := os.ReadFile("../" + file)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(append([]byte(file+"\x00"), raw...))
	if tree.Fingerprint != hex.EncodeToString(sum[:]) {
		t.Errorf("fingerprint %s, want %x", tree.Fingerprint, sum)
	}

	type want struct {
		kind   Kind
		label  string
		action string
		mode   CondMode
		conds  string
		params string
	}
	wants := []want{
		{KindChoice, "root", "", AllTrue, "", ""},
		{KindAction, "wander", "wander", AllFalse, "playerNearby", "chance=0.25"},
		{KindAction, "turning", "turning", AllTrue, "playerNotNearby", "chance=0.35"},
		{KindAction, "wait", "wait", AllTrue, "playerNotNearby", "chance=1"},
		{KindAction, "flee", "flee", AllTrue, "playerNearby", ""},
		{KindAction, "backOff", "backOff", AllTrue, "playerNearby", ""},
		{KindSuccess, "success@" + file + ":1:6852", "", AllTrue, "", ""},
	}
	if len(tree.Rules) != len(wants) {
		t.Fatalf("%d rules, want %d:\n%s", len(tree.Rules), len(wants), strings.Join(outline(tree), "\n"))
	}
	for i, w := range wants {
		r := tree.Rules[i]
		var conds, params []string
		for _, c := range r.Conds {
			if c.Negate {
				t.Errorf("rule %s: condition %s negated", r.Label, c.Name)
			}
			conds = append(conds, c.Name)
		}
		for _, p := range r.Params {
			params = append(params, p.Name+"="+p.Value)
		}
		got := want{r.Kind, r.Label, r.Action, r.Mode, strings.Join(conds, ","), strings.Join(params, ",")}
		if got != w {
			t.Errorf("rule %d: got %+v\nwant %+v", i, got, w)
		}
	}
	if r := tree.Rules[0]; r.Pos != (Pos{file, 1, 2100}) || r.Loop || r.DoNotFail {
		t.Errorf("root: pos %v, loop %v, doNotFail %v", r.Pos, r.Loop, r.DoNotFail)
	}
	if got := tree.Rules[1].Conds[0].Pos; got != (Pos{file, 1, 4650}) {
		t.Errorf("condition position %v, want %s:1:4650", got, file)
	}
	if len(tree.Vars)+len(tree.Signals)+len(tree.Stamps) != 0 {
		t.Errorf("declarations in a file without any")
	}
}

func TestLoad_ruleTagsMakeRules(t *testing.T) {
	tests := []struct {
		name, xml string
		kind      Kind
		tag       string
		loop, dnf bool
	}{
		{"action", `<action name="a"/>`, KindAction, "action", false, false},
		{"actionDoNotFail", `<action name="a" doNotFail="true"/>`, KindAction, "action", false, true},
		{"sequence", `<sequence/>`, KindSequence, "sequence", false, false},
		{"sequenceLoop", `<sequence loop="true" doNotFail="false"/>`, KindSequence, "sequence", true, false},
		{"choice", `<choice loop="false" doNotFail="true"/>`, KindChoice, "choice", false, true},
		{"success", `<success/>`, KindSuccess, "success", false, false},
		{"failure", `<failure/>`, KindFailure, "failure", false, false},
		{"running", `<running/>`, KindRunning, "running", false, false},
		{"yield", `<yield id="y"/>`, KindYield, "yield", false, false},
		{"subtree", `<subtree loop="true">sub.xml</subtree>`, KindSequence, "subtree", true, false},
		{"subTree", `<subTree doNotFail="true">sub.xml</subTree>`, KindSequence, "subTree", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := mustLoadMem(t, map[string]string{"main.xml": bt(tt.xml), "sub.xml": bt(`<success/>`)})
			r := tree.Rules[0]
			if r.Kind != tt.kind || r.Tag != tt.tag || r.Loop != tt.loop || r.DoNotFail != tt.dnf {
				t.Errorf("got kind %s tag %s loop %v doNotFail %v", r.Kind, r.Tag, r.Loop, r.DoNotFail)
			}
			if r.Pos != (Pos{"main.xml", 1, 15}) {
				t.Errorf("pos %v, want main.xml:1:15", r.Pos)
			}
		})
	}
}

func TestLoad_rulesInPreOrderWithLinks(t *testing.T) {
	tree := mustLoadMem(t, map[string]string{"main.xml": `<behaviorTree>
  <sequence id="a">
    <choice id="b">
      <action name="x"/>
      <action name="y"/>
    </choice>
    <success/>
  </sequence>
</behaviorTree>`})
	type link struct{ parent, first, next, depth int32 }
	want := []link{{-1, 1, -1, 0}, {0, 2, 4, 1}, {1, -1, 3, 2}, {1, -1, -1, 2}, {0, -1, -1, 1}}
	for i, w := range want {
		r := tree.Rules[i]
		if got := (link{r.Parent, r.FirstChild, r.Next, r.Depth}); got != w {
			t.Errorf("rule %d (%s): %+v, want %+v", i, r.Label, got, w)
		}
	}
	if got := tree.Rules[2].Label; got != "action@main.xml:4:7" {
		t.Errorf("label %q", got)
	}
}

func TestLoad_emptyMainFileGetsFailingRoot(t *testing.T) {
	tree := mustLoadMem(t, map[string]string{"main.xml": "<?xml version=\"1.0\"?>\n<!-- nothing yet -->\n  <behaviorTree>\n  <variables/>\n</behaviorTree>\n"})
	if len(tree.Rules) != 1 {
		t.Fatalf("%d rules", len(tree.Rules))
	}
	r := tree.Rules[0]
	if r.Kind != KindFailure || r.Tag != "failure" || r.Pos != (Pos{"main.xml", 3, 3}) || r.Label != "failure@main.xml:3:3" {
		t.Errorf("root %+v", r)
	}
}

func TestLoad_parametersAndConditions(t *testing.T) {
	tree := mustLoadMem(t, map[string]string{"main.xml": bt(`
<action name="a">
  <parameter name="speed">  fast  </parameter>
  <parameter name="empty"></parameter>
  <parameter name="selfClosed"/>
  <parameter name="speed">slow</parameter>
  <parameter name="split">a<!-- note -->b</parameter>
  <parameter name="escaped">&lt;1 &amp; &#233;&gt;<![CDATA[ <x> ]]></parameter>
  <condition> playerNearby </condition>
  <condition>!hungry</condition>
  <condition>! tired </condition>
  <conditionMode> anyFalse </conditionMode>
</action>`)})
	r := tree.Rules[0]
	want := Params{{"empty", ""}, {"escaped", "<1 & é> <x>"}, {"selfClosed", ""}, {"speed", "slow"}, {"split", "ab"}}
	if !reflect.DeepEqual(r.Params, want) {
		t.Errorf("params %q, want %q", r.Params, want)
	}
	wantConds := []Cond{
		{Name: "playerNearby", Negate: false, Pos: Pos{"main.xml", 9, 3}},
		{Name: "hungry", Negate: true, Pos: Pos{"main.xml", 10, 3}},
		{Name: "tired", Negate: true, Pos: Pos{"main.xml", 11, 3}},
	}
	if !reflect.DeepEqual(r.Conds, wantConds) || r.Mode != AnyFalse {
		t.Errorf("conds %+v mode %s", r.Conds, r.Mode)
	}
}

func TestLoad_conditionModes(t *testing.T) {
	for _, m := range []CondMode{AllTrue, AnyTrue, AnyFalse, AllFalse} {
		tree := mustLoadMem(t, map[string]string{"main.xml": bt(`<success><conditionMode>` + m.String() + `</conditionMode></success>`)})
		if got := tree.Rules[0].Mode; got != m {
			t.Errorf("mode %s loaded as %s", m, got)
		}
	}
}

func TestLoad_commentsAndNamespacesIgnored(t *testing.T) {
	tree := mustLoadMem(t, map[string]string{"main.xml": `<?xml version="1.0"?>
<!DOCTYPE behaviorTree>
<!-- before -->
<behaviorTree xmlns="urn:btrun" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="urn:btrun bt.xsd">
  <!-- inside --><sequence><?editor fold?><success/></sequence>
</behaviorTree>
<!-- after -->
`})
	if got := outline(tree); !reflect.DeepEqual(got, []string{"sequence sequence@main.xml:5:18", " success success@main.xml:5:43"}) {
		t.Errorf("outline %q", got)
	}
}

func TestLoad_idRules(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"dotIdTakesParentPrefix", map[string]string{"main.xml": bt(
			`<choice id="interrupt"><action id=".flee" name="flee"/></choice>`)},
			[]string{"interrupt", "interrupt.flee"}},
		{"dotIdWithoutParentStays", map[string]string{"main.xml": bt(
			`<sequence><action id=".flee" name="flee"/></sequence>`)},
			[]string{"-", ".flee"}},
		{"dotIdTakesClosestParentWithId", map[string]string{"main.xml": bt(
			`<choice id="a"><sequence><sequence id=".b"><action id=".c" name="x"/></sequence><action id=".d" name="x"/></sequence></choice>`)},
			[]string{"a", "-", "a.b", "a.b.c", "a.d"}},
		{"plainIdsStayInMainFile", map[string]string{"main.xml": bt(
			`<choice id="a"><action id="b" name="x"/></choice>`)},
			[]string{"a", "b"}},
		{"subtreePrefixesIds", map[string]string{
			"main.xml": bt(`<sequence id="root"><subtree id="patrol">sub.xml</subtree></sequence>`),
			"sub.xml":  bt(`<sequence id="walk"><action id="step" name="x"/><action id=".turn" name="x"/></sequence>`)},
			[]string{"root", "patrol", "patrol.walk", "patrol.step", "patrol.walk.turn"}},
		{"topLevelDotInSubtreeStays", map[string]string{
			"main.xml": bt(`<sequence id="root"><subtree id="patrol">sub.xml</subtree></sequence>`),
			"sub.xml":  bt(`<action id=".x" name="x"/><sequence id=".y"><success id=".z"/></sequence>`)},
			[]string{"root", "patrol", ".x", ".y", ".y.z"}},
		{"dotSubtreeIdTakesParentPrefix", map[string]string{
			"main.xml": bt(`<sequence id="root"><subTree id=".patrol">sub.xml</subTree></sequence>`),
			"sub.xml":  bt(`<action id="step" name="x"/>`)},
			[]string{"root", "root.patrol", "root.patrol.step"}},
		{"subtreeWithoutIdAddsNoPrefix", map[string]string{
			"main.xml": bt(`<sequence id="root"><subtree>sub.xml</subtree></sequence>`),
			"sub.xml":  bt(`<action id="step" name="x"/><action id=".up" name="x"/>`)},
			[]string{"root", "-", "step", ".up"}},
		{"nestedSubtreesCompose", map[string]string{
			"main.xml":      bt(`<subtree id="a">ai/b.xml</subtree>`),
			"ai/b.xml":      bt(`<sequence id="s"><subtree id=".c">deep/c.xml</subtree></sequence><subtree>deep/c.xml</subtree>`),
			"ai/deep/c.xml": bt(`<action id="leaf" name="x"/>`)},
			[]string{"a", "a.s", "a.s.c", "a.s.c.leaf", "-", "a.leaf"}},
		{"sameFileTwiceWithDifferentIds", map[string]string{
			"main.xml": bt(`<sequence><subtree id="left">sub.xml</subtree><subtree id="right">sub.xml</subtree></sequence>`),
			"sub.xml":  bt(`<action id="step" name="x"/>`)},
			[]string{"-", "left", "left.step", "right", "right.step"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := mustLoadMem(t, tt.files)
			if got := ids(tree); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ids %q, want %q", got, tt.want)
			}
		})
	}
}

// Issue 40: an id with an empty part ("..stretch", a new subtree's id
// typed with its dot) loaded as label "grunt.investigate..stretch" and
// validate said nothing; it is an error at the rule.
func TestLoad_idWithAnEmptyPartIsAnError(t *testing.T) {
	for _, id := range []string{"..stretch", "a..b", "a.", "."} {
		_, err := loadMem(t, map[string]string{"main.xml": bt(`<choice id="grunt"><subtree id="` + id + `">sub.xml</subtree></choice>`), "sub.xml": bt(`<success/>`)})
		if err == nil || !strings.Contains(err.Error(), "main.xml:") || !strings.Contains(err.Error(), `id "`+id+`" on <subtree> has an empty part between dots`) {
			t.Errorf("id %q: %v", id, err)
		}
	}
}

func TestLoad_subtreeFilesFromNestedFolders(t *testing.T) {
	tree, err := LoadFile("testdata/valid/guard/main.xml", LoadOptions{Root: "testdata/valid/guard"})
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, tree)
	wantFiles := []string{"main.xml", "ai/combat.xml", "ai/weapons/shoot.xml", "ai/patrol.xml"}
	if !reflect.DeepEqual(tree.Files, wantFiles) {
		t.Errorf("files %q, want %q", tree.Files, wantFiles)
	}
	want := []string{
		"choice guard",
		" sequence combat",
		"  sequence combat.engage",
		"   action combat.engage.approach",
		"   sequence combat.shoot",
		"    action combat.shoot.aim",
		"    action combat.shoot.fire",
		"  action .giveUp",
		" sequence guard.patrol",
		"  sequence guard.patrol.route",
		"   action guard.patrol.route.walk",
		"   yield yield@ai/patrol.xml:6:3",
		"  action action@main.xml:24:7",
		" success success@main.xml:28:5",
	}
	if got := outline(tree); !reflect.DeepEqual(got, want) {
		t.Errorf("outline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	i, _ := tree.RuleIndex("guard.patrol.route")
	if r := tree.Rules[i]; r.Tag != "subTree" || r.Subtree != "ai/patrol.xml" || !r.DoNotFail {
		t.Errorf("subtree rule %+v", r)
	}
	i, _ = tree.RuleIndex("combat.shoot.fire")
	if r := tree.Rules[i]; r.Pos != (Pos{"ai/weapons/shoot.xml", 4, 3}) {
		t.Errorf("fire at %v", r.Pos)
	}

	// The fingerprint covers every file, in load order.
	h := sha256.New()
	for _, f := range wantFiles {
		raw, err := os.ReadFile("testdata/valid/guard/" + f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s\x00%s", f, raw)
	}
	if got := hex.EncodeToString(h.Sum(nil)); tree.Fingerprint != got {
		t.Errorf("fingerprint %s, want %s", tree.Fingerprint, got)
	}
}

func TestLoad_subtreeFiles(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"severalTopLevelRulesBecomeChildren", map[string]string{
			"main.xml": bt(`<subtree>sub.xml</subtree>`),
			"sub.xml":  bt(`<action name="a"/><success/><failure/>`)},
			[]string{"sequence subtree@main.xml:1:15", " action action@sub.xml:1:15", " success success@sub.xml:1:33", " failure failure@sub.xml:1:43"}},
		{"fileWithoutRulesGivesEmptySequence", map[string]string{
			"main.xml": bt(`<subTree id="s">sub.xml</subTree>`),
			"sub.xml":  bt(`<variables><variable name="v"/></variables>`)},
			[]string{"sequence s"}},
		{"pathIsTrimmedAndRelativeToIncludingFile", map[string]string{
			"main.xml":     bt(`<subtree>  ai/a.xml  </subtree>`),
			"ai/a.xml":     bt(`<subtree>../common/b.xml</subtree>`),
			"common/b.xml": bt(`<success/>`)},
			[]string{"sequence subtree@main.xml:1:15", " sequence subtree@ai/a.xml:1:15", "  success success@common/b.xml:1:15"}},
		{"backslashesSeparateFolders", map[string]string{
			"main.xml": bt(`<subtree>ai\b.xml</subtree>`),
			"ai/b.xml": bt(`<success/>`)},
			[]string{"sequence subtree@main.xml:1:15", " success success@ai/b.xml:1:15"}},
		{"sameFileTwiceWithoutIds", map[string]string{
			"main.xml": bt(`<sequence><subtree>sub.xml</subtree><subtree>sub.xml</subtree></sequence>`),
			"sub.xml":  bt(`<success/>`)},
			[]string{"sequence sequence@main.xml:1:15", " sequence subtree@main.xml:1:25", "  success success@sub.xml:1:15",
				" sequence subtree@main.xml:1:51", "  success success@sub.xml:1:15"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := mustLoadMem(t, tt.files)
			if got := outline(tree); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestLoad_filesInLoadOrderOnce(t *testing.T) {
	tree := mustLoadMem(t, map[string]string{
		"main.xml": bt(`<sequence><subtree id="a">b.xml</subtree><subtree id="c">c.xml</subtree><subtree id="d">b.xml</subtree></sequence>`),
		"b.xml":    bt(`<subtree>c.xml</subtree>`),
		"c.xml":    bt(`<success/>`),
	})
	if want := []string{"main.xml", "b.xml", "c.xml"}; !reflect.DeepEqual(tree.Files, want) {
		t.Errorf("files %q, want %q", tree.Files, want)
	}
}

func TestLoad_fingerprintCoversPathsAndBytes(t *testing.T) {
	load := func(name, content string) string {
		tree, err := LoadBytes(name, []byte(content), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tree.Fingerprint
	}
	a := load("a.xml", bt(`<success/>`))
	if a != load("a.xml", bt(`<success/>`)) {
		t.Errorf("same input, different fingerprints")
	}
	if a == load("b.xml", bt(`<success/>`)) {
		t.Errorf("fingerprint ignores the path")
	}
	if a == load("a.xml", bt(`<success/> `)) {
		t.Errorf("fingerprint ignores the bytes")
	}
}

func TestLoad_declarations(t *testing.T) {
	tree := mustLoadMem(t, map[string]string{
		"main.xml": `<behaviorTree>
  <signals>
    <signal name="OnEnemySeen" variable="AwareOfEnemy" value="true"/>
    <signal name="OnNoTarget" variable="AwareOfEnemy" value="false"/>
    <signal name="OnNoTarget" variable="AwareOfSound" value="false"/>
    <signal name="OnPing"/>
  </signals>
  <variables>
    <variable name="AwareOfEnemy"/>
    <variable name="AwareOfSound" default="true"/>
  </variables>
  <sequence><subtree>sub.xml</subtree></sequence>
  <timestamps>
    <timestamp name="TargetSpotted" setOnSignal="OnEnemySeen" exclusiveTo="TargetLost"/>
    <timestamp name="TargetLost" setOnSignal="OnNoTarget"/>
    <timestamp name="Heard" setOnSignal="OnNoise" exclusiveTo="TargetLost"/>
  </timestamps>
</behaviorTree>`,
		"sub.xml": `<behaviorTree>
  <variables>
    <variable name="AwareOfEnemy" default="false"/>
    <variable name="Hungry"/>
  </variables>
  <signals>
    <signal name="OnEnemySeen" variable="AwareOfEnemy" value="true"/>
    <signal name="OnFood" variable="Hungry" value="false"/>
  </signals>
  <timestamps>
    <timestamp name="TargetLost" setOnSignal="OnNoTarget"/>
  </timestamps>
  <success/>
</behaviorTree>`,
	})
	wantVars := []VarDecl{
		{Name: "AwareOfEnemy", Default: false, Pos: Pos{"main.xml", 9, 5}},
		{Name: "AwareOfSound", Default: true, Pos: Pos{"main.xml", 10, 5}},
		{Name: "Hungry", Default: false, Pos: Pos{"sub.xml", 4, 5}},
	}
	if !reflect.DeepEqual(tree.Vars, wantVars) {
		t.Errorf("vars %+v", tree.Vars)
	}
	wantSignals := []SignalDecl{
		{"OnEnemySeen", Pos{"main.xml", 3, 5}, []SignalSet{{Var: 0, Value: true, Pos: Pos{"main.xml", 3, 5}}}, []int32{1}, 0, Pos{}},
		{"OnNoTarget", Pos{"main.xml", 4, 5}, []SignalSet{{Var: 0, Value: false, Pos: Pos{"main.xml", 4, 5}}, {Var: 1, Value: false, Pos: Pos{"main.xml", 5, 5}}}, []int32{0}, 0, Pos{}},
		{"OnPing", Pos{"main.xml", 6, 5}, nil, nil, 0, Pos{}},
		{"OnFood", Pos{"sub.xml", 8, 5}, []SignalSet{{Var: 2, Value: false, Pos: Pos{"sub.xml", 8, 5}}}, nil, 0, Pos{}},
		{"OnNoise", Pos{"main.xml", 16, 5}, nil, []int32{2}, 0, Pos{}},
	}
	if !reflect.DeepEqual(tree.Signals, wantSignals) {
		t.Errorf("signals:\n%+v\nwant:\n%+v", tree.Signals, wantSignals)
	}
	// The subtree file is read where its tag stands, before the main
	// file's declarations that follow the root: TargetLost comes first.
	wantStamps := []StampDecl{
		{"TargetLost", "OnNoTarget", "", []int32{1, 2}, Pos{"sub.xml", 11, 5}},
		{"TargetSpotted", "OnEnemySeen", "TargetLost", []int32{0}, Pos{"main.xml", 14, 5}},
		{"Heard", "OnNoise", "TargetLost", []int32{0}, Pos{"main.xml", 16, 5}},
	}
	if !reflect.DeepEqual(tree.Stamps, wantStamps) {
		t.Errorf("stamps:\n%+v\nwant:\n%+v", tree.Stamps, wantStamps)
	}
	for name, want := range map[string]int32{"AwareOfSound": 1, "Hungry": 2} {
		if i, ok := tree.VarIndex(name); !ok || i != want {
			t.Errorf("VarIndex(%s) = %d, %v", name, i, ok)
		}
	}
	if i, ok := tree.SignalIndex("OnNoise"); !ok || i != 4 {
		t.Errorf("SignalIndex(OnNoise) = %d, %v", i, ok)
	}
	if i, ok := tree.StampIndex("Heard"); !ok || i != 2 {
		t.Errorf("StampIndex(Heard) = %d, %v", i, ok)
	}
}

func TestLoad_exclusiveToIsSymmetric(t *testing.T) {
	tree := mustLoadMem(t, map[string]string{"main.xml": bt(`<timestamps>
<timestamp name="A" exclusiveTo="B"/><timestamp name="B" exclusiveTo="A"/><timestamp name="C" exclusiveTo="B"/>
</timestamps>`)})
	want := [][]int32{{1}, {0, 2}, {1}}
	for i, s := range tree.Stamps {
		if !reflect.DeepEqual(s.Exclusive, want[i]) {
			t.Errorf("%s clears %v, want %v", s.Name, s.Exclusive, want[i])
		}
	}
}

func TestLoad_signalVariableOrder(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		wantErr string
	}{
		{"laterInSameFileIsAllowed", map[string]string{"main.xml": bt(
			`<signals><signal name="S" variable="V" value="true"/></signals><success/><variables><variable name="V"/></variables>`)}, ""},
		{"subtreeMayUseParentsEarlierVariable", map[string]string{
			"main.xml": bt(`<variables><variable name="V"/></variables><subtree>sub.xml</subtree>`),
			"sub.xml":  bt(`<signals><signal name="S" variable="V" value="true"/></signals>`)}, ""},
		{"parentMayUseSubtreesVariable", map[string]string{
			"main.xml": bt(`<signals><signal name="S" variable="V" value="true"/></signals><subtree>sub.xml</subtree>`),
			"sub.xml":  bt(`<variables><variable name="V"/></variables>`)}, ""},
		{"subtreeMayNotUseParentsLaterVariable", map[string]string{
			"main.xml": bt(`<subtree>sub.xml</subtree><variables><variable name="V"/></variables>`),
			"sub.xml":  bt(`<signals><signal name="S" variable="V" value="true"/></signals>`)},
			`sub.xml:1:24: signal "S" sets variable "V", which is not declared; declare it with <variable name="V"/> in this file or in a file read before it`},
		{"neverDeclared", map[string]string{"main.xml": bt(`<signals><signal name="S" variable="V" value="true"/></signals>`)},
			`main.xml:1:24: signal "S" sets variable "V", which is not declared; declare it with <variable name="V"/> in this file or in a file read before it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := loadMem(t, tt.files)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if s := tree.Signals[0]; len(s.Sets) != 1 || s.Sets[0].Var != 0 {
					t.Errorf("signal %+v", s)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("error %v\nwant %s", err, tt.wantErr)
			}
		})
	}
}

func TestLoad_encodings(t *testing.T) {
	// Each file holds "Café–naïve" (the dash is U+2013 where the encoding
	// has it) in a parameter, and a second element on the same line after
	// the text: its column counts characters, not bytes.
	const utf8Body = "<behaviorTree>\n<action name=\"say\"><parameter name=\"text\">Café naïve</parameter><condition>x</condition></action>\n</behaviorTree>\n"
	latin1 := []byte(strings.ReplaceAll(utf8Body, "é", "\xe9"))
	latin1 = []byte(strings.ReplaceAll(string(latin1), "ï", "\xef"))
	tests := []struct {
		name, decl string
		body       []byte
		want       string
	}{
		{"utf8Default", "", []byte(utf8Body), "Café naïve"},
		{"utf8Declared", `<?xml version="1.0" encoding="UTF-8"?>`, []byte(utf8Body), "Café naïve"},
		{"utf8BOM", "\xef\xbb\xbf", []byte(utf8Body), "Café naïve"},
		{"utf8BOMAndDeclaration", "\xef\xbb\xbf<?xml version='1.0' encoding='utf-8'?>", []byte(utf8Body), "Café naïve"},
		{"iso88591", `<?xml version='1.0' encoding='ISO-8859-1'?>`, latin1, "Café naïve"},
		{"latin1Alias", `<?xml version="1.0" encoding="latin1" standalone="yes"?>`, latin1, "Café naïve"},
		{"windows1252", `<?xml version="1.0" encoding="windows-1252"?>`,
			[]byte(strings.ReplaceAll(string(latin1), "\xe9 na", "\xe9\x96na")), "Café–naïve"},
		{"windows1252Quotes", `<?xml version="1.0" encoding="cp1252"?>`,
			[]byte(strings.ReplaceAll(string(latin1), "\xe9 na", "\xe9\x93\x80\x94na")), "Café“€”naïve"},
		{"usASCII", `<?xml version="1.0" encoding="US-ASCII"?>`,
			[]byte(strings.NewReplacer("é", "&#233;", "ï", "&#xEF;").Replace(utf8Body)), "Café naïve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := append([]byte(tt.decl+"\n"), tt.body...)
			tree, err := LoadBytes("main.xml", data, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r := tree.Rules[0]
			if v, _ := r.Params.Get("text"); v != tt.want {
				t.Errorf("text %q, want %q", v, tt.want)
			}
			// <condition> follows 61 - 1 + len(want) characters of line 3.
			wantCol := len(`<action name="say"><parameter name="text">`) + len([]rune(tt.want)) + len(`</parameter>`) + 1
			if tt.name == "usASCII" {
				wantCol += len("&#233;&#xEF;") - 2
			}
			if got := r.Conds[0].Pos; got != (Pos{"main.xml", 3, wantCol}) {
				t.Errorf("condition at %v, want column %d", got, wantCol)
			}
		})
	}
}

func TestLoad_positionsCountLinesAndCharacters(t *testing.T) {
	tree := mustLoadMem(t, map[string]string{"main.xml": "<behaviorTree>\r\n<sequence>\r\n\t<success/>\r<failure/><!-- é --><running/>\n</sequence></behaviorTree>"})
	want := []Pos{{"main.xml", 2, 1}, {"main.xml", 3, 2}, {"main.xml", 4, 1}, {"main.xml", 4, 21}}
	for i, w := range want {
		if got := tree.Rules[i].Pos; got != w {
			t.Errorf("rule %d at %v, want %v", i, got, w)
		}
	}
}

func TestLoad_unreadableFilesWrapTheCause(t *testing.T) {
	_, err := LoadFile("testdata/nothere.xml", LoadOptions{Root: "testdata"})
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrInvalidTree) {
		t.Errorf("missing main file: %v", err)
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 || list[0].Pos.File != "nothere.xml" {
		t.Errorf("error %#v", err)
	}

	_, err = loadMem(t, map[string]string{"main.xml": bt(`<subtree>gone.xml</subtree>`)})
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrInvalidTree) {
		t.Errorf("missing subtree file: %v", err)
	}
	if want := "main.xml:1:15: subtree file gone.xml does not exist; the path is relative to the folder of this file"; err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}

	denied := errors.New("permission denied")
	_, err = LoadFile("main.xml", LoadOptions{ReadFile: func(p string) ([]byte, error) {
		if p == "main.xml" {
			return []byte(bt(`<subtree>locked.xml</subtree>`)), nil
		}
		return nil, denied
	}})
	if !errors.Is(err, denied) || err.Error() != "main.xml:1:15: cannot read subtree file locked.xml: permission denied" {
		t.Errorf("unreadable subtree file: %v", err)
	}
}

func TestLoad_displayPathsRelativeToRoot(t *testing.T) {
	tree, err := LoadFile("testdata/valid/guard/ai/patrol.xml", LoadOptions{Root: "testdata/valid"})
	if err == nil {
		t.Fatalf("a subtree file with two top-level rules loaded as a main file")
	}
	if !strings.HasPrefix(err.Error(), "guard/ai/patrol.xml:6:3: second top-level rule <yield>") {
		t.Errorf("error %v", err)
	}
	tree, err = LoadFile("testdata/valid/guard/main.xml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tree.File != "testdata/valid/guard/main.xml" || tree.Files[3] != "testdata/valid/guard/ai/patrol.xml" {
		t.Errorf("files %q", tree.Files)
	}
}

// genTree writes a tree of exactly n rules: under the root, list rules of up
// to ten children, every fourth child a list again down to depth 6, leaves
// mostly actions with ids, a condition and parameters.
func genTree(n int) []byte {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<behaviorTree>\n")
	left := n
	var list func(depth int)
	list = func(depth int) {
		tag := []string{"sequence", "choice"}[depth%2]
		left--
		fmt.Fprintf(&b, "%s<%s id=\".n%d\" loop=\"false\">\n", strings.Repeat("  ", depth), tag, left)
		fmt.Fprintf(&b, "%s  <condition>!busy%d</condition>\n", strings.Repeat("  ", depth), depth)
		for i := 0; i < 10 && left > 0; i++ {
			ind := strings.Repeat("  ", depth+1)
			switch {
			case i%4 == 3 && left > 1 && depth < 6:
				list(depth + 1)
			case i%5 == 4:
				left--
				fmt.Fprintf(&b, "%s<success/>\n", ind)
			default:
				left--
				fmt.Fprintf(&b, "%s<action id=\".a%d\" name=\"act%d\" doNotFail=\"true\">\n", ind, left, i)
				fmt.Fprintf(&b, "%s  <parameter name=\"act.speed\">%d</parameter>\n", ind, i)
				fmt.Fprintf(&b, "%s  <parameter name=\"act.target\">enemy %d</parameter>\n", ind, left)
				fmt.Fprintf(&b, "%s  <condition>near%d</condition><conditionMode>anyTrue</conditionMode>\n", ind, i)
				fmt.Fprintf(&b, "%s</action>\n", ind)
			}
		}
		fmt.Fprintf(&b, "%s</%s>\n", strings.Repeat("  ", depth), tag)
	}
	b.WriteString("<choice id=\"root\">\n")
	left--
	for left > 0 {
		list(1)
	}
	b.WriteString("</choice>\n</behaviorTree>\n")
	return []byte(b.String())
}

func TestLoad_encodedFilesOnDisk(t *testing.T) {
	tests := []struct{ file, text string }{
		{"utf8-bom.xml", "Grüße – «Café»"},
		{"iso-8859-1.xml", "Grüße - «Café»"},
		{"windows-1252.xml", "Grüße – «Café»"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tree, err := LoadFile("testdata/valid/encodings/"+tt.file, LoadOptions{Root: "testdata/valid/encodings"})
			if err != nil {
				t.Fatal(err)
			}
			r := tree.Rules[0]
			if v, _ := r.Params.Get("text"); v != tt.text {
				t.Errorf("text %q, want %q", v, tt.text)
			}
			// <condition> comes after 14 characters of text, whatever their bytes.
			want := Pos{tt.file, 4, len(`  <action id="greet" name="say"><parameter name="text">`) + 14 + len(`</parameter>`) + 1}
			if c := r.Conds[0]; c.Pos != want || c.Name != "Busy" || !c.Negate {
				t.Errorf("condition %+v, want at %v", c, want)
			}
		})
	}
}

func TestGenTree_makesTheAskedRules(t *testing.T) {
	data := genTree(10000)
	tree, err := LoadBytes("big.xml", data, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, tree)
	maxDepth := int32(0)
	for _, r := range tree.Rules {
		maxDepth = max(maxDepth, r.Depth)
	}
	if len(tree.Rules) != 10000 || maxDepth != 7 {
		t.Errorf("%d rules, %d deep, %d bytes", len(tree.Rules), maxDepth, len(data))
	}
}

// TestLoad_validFilesLoad loads every tree under testdata/valid that is a
// main file, including the examples copied from docs/format.md.
func TestLoad_validFilesLoad(t *testing.T) {
	files, err := filepath.Glob("testdata/valid/*.xml")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "testdata/valid/guard/main.xml")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			tree, err := LoadFile(file, LoadOptions{Root: "testdata/valid"})
			if err != nil {
				t.Fatal(err)
			}
			checkTree(t, tree)
		})
	}
}
