package liveview

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// The edit operations on text: each changes only what it edits, where the
// file writes it, as the file writes it (indentation, quotes, line ends,
// encoding), and each refusal names the operation and says why.

const opsTree = `<?xml version="1.0" encoding="UTF-8"?>
<!-- a guard -->
<behaviorTree>
  <variables>
    <variable name="Alarm" default="false"/>
  </variables>

  <choice id="guard">
    <!-- fight when the alarm is on -->
    <sequence id=".fight" abort='both'>
      <condition>Alarm</condition>
      <action id=".shout" name="bt.log"><parameter name="log.message">alarm!</parameter></action>
      <action id=".chase" name="walk" timeout="3">
        <parameter name="walk.steps">6</parameter>
      </action>
    </sequence>

    <choice id=".idle">
      <action id=".rest" name="bt.wait"><parameter name="wait.seconds">1</parameter></action>
      <success/>
    </choice>
  </choice>
</behaviorTree>
`

// loadText says whether a text of the test file loads.
func loadText(file string) func(string) error {
	return func(text string) error {
		data, err := runtime.EncodeSource(file, text)
		if err != nil {
			return err
		}
		_, err = runtime.LoadBytes(file, data, runtime.LoadOptions{ReadFile: func(string) ([]byte, error) { return nil, errors.New("no subtree files here") }})
		return err
	}
}

func ops(t *testing.T, list ...string) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, len(list))
	for i, s := range list {
		if !json.Valid([]byte(s)) {
			t.Fatalf("op %d is not JSON: %s", i, s)
		}
		out[i] = json.RawMessage(s)
	}
	return out
}

// change returns the lines that differ between a and b, as "-old" and
// "+new" lines (a line-by-line comparison of the changed middle).
func change(a, b string) string {
	al, bl := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	i := 0
	for i < len(al) && i < len(bl) && al[i] == bl[i] {
		i++
	}
	j, k := len(al), len(bl)
	for j > i && k > i && al[j-1] == bl[k-1] {
		j, k = j-1, k-1
	}
	var out strings.Builder
	for _, l := range al[i:j] {
		out.WriteString("-" + l)
	}
	for _, l := range bl[i:k] {
		out.WriteString("+" + l)
	}
	return out.String()
}

func TestEditOps_changeOnlyWhatTheyEdit(t *testing.T) {
	tests := []struct {
		name string
		ops  []string
		want string // change() of the result
	}{
		{"attr changes a value in place", []string{`{"op":"attr","rule":"guard.fight.chase","name":"timeout","value":"4.5"}`},
			"-      <action id=\".chase\" name=\"walk\" timeout=\"3\">\n+      <action id=\".chase\" name=\"walk\" timeout=\"4.5\">\n"},
		{"attr keeps the value's quotes", []string{`{"op":"attr","rule":"guard.fight","name":"abort","value":"self"}`},
			"-    <sequence id=\".fight\" abort='both'>\n+    <sequence id=\".fight\" abort='self'>\n"},
		{"attr adds after the last attribute", []string{`{"op":"attr","rule":"guard.idle","name":"loop","value":"true"}`},
			"-    <choice id=\".idle\">\n+    <choice id=\".idle\" loop=\"true\">\n"},
		{"attr null removes it with its space", []string{`{"op":"attr","rule":"guard.fight.chase","name":"timeout","value":null}`},
			"-      <action id=\".chase\" name=\"walk\" timeout=\"3\">\n+      <action id=\".chase\" name=\"walk\">\n"},
		{"attr escapes markup", []string{`{"op":"attr","rule":"guard.fight.chase","name":"name","value":"a<b&\"c\""}`},
			"-      <action id=\".chase\" name=\"walk\" timeout=\"3\">\n+      <action id=\".chase\" name=\"a&lt;b&amp;&quot;c&quot;\" timeout=\"3\">\n"},
		{"param changes the text", []string{`{"op":"param","rule":"guard.fight.chase","name":"walk.steps","value":"8"}`},
			"-        <parameter name=\"walk.steps\">6</parameter>\n+        <parameter name=\"walk.steps\">8</parameter>\n"},
		{"param adds after the last parameter, on a line of its own", []string{`{"op":"param","rule":"guard.fight.chase","name":"log.start","value":"go"}`},
			"+        <parameter name=\"log.start\">go</parameter>\n"},
		{"param adds inline where the rule is written on one line", []string{`{"op":"param","rule":"guard.idle.rest","name":"log.start","value":"zz"}`},
			"-      <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n" +
				"+      <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter><parameter name=\"log.start\">zz</parameter></action>\n"},
		{"param opens a self-closing rule", []string{`{"op":"param","rule":"success@editor.xml:20:7","name":"log.start","value":"ok"}`},
			"-      <success/>\n+      <success>\n+        <parameter name=\"log.start\">ok</parameter>\n+      </success>\n"},
		{"param null removes the element and its line", []string{`{"op":"param","rule":"guard.fight.chase","name":"walk.steps","value":null}`},
			"-        <parameter name=\"walk.steps\">6</parameter>\n"},
		{"conditions: changed, added, mode", []string{`{"op":"conditions","rule":"guard.fight","conditions":["!Alarm","Tired"],"mode":"anyTrue"}`},
			"-      <condition>Alarm</condition>\n+      <condition>!Alarm</condition>\n+      <condition>Tired</condition>\n+      <conditionMode>anyTrue</conditionMode>\n"},
		{"conditions: removed", []string{`{"op":"conditions","rule":"guard.fight","conditions":[]}`},
			"-      <condition>Alarm</condition>\n"},
		{"conditions: the first goes before the other children", []string{`{"op":"conditions","rule":"guard.idle","conditions":["Alarm"]}`},
			"+      <condition>Alarm</condition>\n"},
		{"insert: structured markup, indented as the file", []string{`{"op":"insert","parent":"guard.idle","index":1,"xml":"<sequence id=\".nap\">\n<yield id=\".z\"/>\n</sequence>"}`},
			"+      <sequence id=\".nap\">\n+        <yield id=\".z\"/>\n+      </sequence>\n"},
		{"insert: at the end", []string{`{"op":"insert","parent":"guard.idle","xml":"<failure/>"}`},
			"+      <failure/>\n"},
		{"insert: first, before a child's comment", []string{`{"op":"insert","parent":"guard","index":0,"xml":"<yield id=\".first\"/>"}`},
			"+    <yield id=\".first\"/>\n"},
		{"delete: with its comment and its lines", []string{`{"op":"delete","rule":"guard.fight"}`},
			"-    <!-- fight when the alarm is on -->\n-    <sequence id=\".fight\" abort='both'>\n-      <condition>Alarm</condition>\n" +
				"-      <action id=\".shout\" name=\"bt.log\"><parameter name=\"log.message\">alarm!</parameter></action>\n" +
				"-      <action id=\".chase\" name=\"walk\" timeout=\"3\">\n-        <parameter name=\"walk.steps\">6</parameter>\n-      </action>\n-    </sequence>\n-\n"},
		{"move: to another parent, indentation shifted", []string{`{"op":"move","rule":"guard.fight.chase","parent":"guard.idle","index":0}`},
			"-      <action id=\".chase\" name=\"walk\" timeout=\"3\">\n-        <parameter name=\"walk.steps\">6</parameter>\n-      </action>\n" +
				"-    </sequence>\n-\n-    <choice id=\".idle\">\n+    </sequence>\n+\n+    <choice id=\".idle\">\n" +
				"+      <action id=\".chase\" name=\"walk\" timeout=\"3\">\n+        <parameter name=\"walk.steps\">6</parameter>\n+      </action>\n"},
		{"move: within its parent", []string{`{"op":"move","rule":"success@editor.xml:20:7","parent":"guard.idle","index":0}`},
			"-      <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n-      <success/>\n" +
				"+      <success/>\n+      <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n"},
		{"tag: renames both tags, drops what the new tag does not take", []string{`{"op":"tag","rule":"guard.idle","tag":"sequence"}`},
			"-    <choice id=\".idle\">\n-      <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n-      <success/>\n-    </choice>\n" +
				"+    <sequence id=\".idle\">\n+      <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n+      <success/>\n+    </sequence>\n"},
		{"text: a subtree's path", []string{`{"op":"insert","parent":"guard.idle","xml":"<subtree id=\".leg\">a.xml</subtree>"}`, `{"op":"text","rule":"guard.idle.leg","value":"b.xml"}`},
			"+      <subtree id=\".leg\">b.xml</subtree>\n"},
		{"duplicate: after the rule, with a fresh id", []string{`{"op":"duplicate","rule":"guard.fight.chase"}`},
			"+      <action id=\".chase2\" name=\"walk\" timeout=\"3\">\n+        <parameter name=\"walk.steps\">6</parameter>\n+      </action>\n"},
		{"declare: into its block", []string{`{"op":"declare","xml":"<variable name=\"Tired\"/>"}`},
			"+    <variable name=\"Tired\"/>\n"},
		{"declare: a new block before the rules", []string{`{"op":"declare","xml":"<gate name=\"door\" users=\"2\"/>"}`},
			"+  <gates>\n+    <gate name=\"door\" users=\"2\"/>\n+  </gates>\n"},
		{"wrap: one rule in a new sequence, re-indented", []string{`{"op":"wrap","rule":"guard.idle.rest","tag":"sequence"}`},
			"-      <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n" +
				"+      <sequence>\n+        <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n+      </sequence>\n"},
		{"wrap: two rules with their comment in a parallel with an id", []string{`{"op":"wrap","rule":"guard.fight","tag":"parallel","count":2,"id":".both"}`},
			"-    <!-- fight when the alarm is on -->\n-    <sequence id=\".fight\" abort='both'>\n-      <condition>Alarm</condition>\n" +
				"-      <action id=\".shout\" name=\"bt.log\"><parameter name=\"log.message\">alarm!</parameter></action>\n" +
				"-      <action id=\".chase\" name=\"walk\" timeout=\"3\">\n-        <parameter name=\"walk.steps\">6</parameter>\n-      </action>\n-    </sequence>\n-\n" +
				"-    <choice id=\".idle\">\n-      <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n-      <success/>\n-    </choice>\n" +
				"+    <parallel id=\".both\">\n+      <!-- fight when the alarm is on -->\n+      <sequence id=\".fight\" abort='both'>\n+        <condition>Alarm</condition>\n" +
				"+        <action id=\".shout\" name=\"bt.log\"><parameter name=\"log.message\">alarm!</parameter></action>\n" +
				"+        <action id=\".chase\" name=\"walk\" timeout=\"3\">\n+          <parameter name=\"walk.steps\">6</parameter>\n+        </action>\n+      </sequence>\n+\n" +
				"+      <choice id=\".idle\">\n+        <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n+        <success/>\n+      </choice>\n+    </parallel>\n"},
		{"unwrap: the rules take the list's place, one level out", []string{`{"op":"unwrap","rule":"guard.idle"}`},
			"-    <choice id=\".idle\">\n-      <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n-      <success/>\n-    </choice>\n" +
				"+    <action id=\".rest\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n+    <success/>\n"},
		{"paste: a copy with its ids made fresh where the file uses them", []string{`{"op":"paste","parent":"guard.idle","index":0,"xml":"<sequence id=\".fight\">\n  <action id=\".chase\" name=\"walk\"/>\n  <action id=\".new\" name=\"walk\"/>\n</sequence>"}`},
			"+      <sequence id=\".fight\">\n+        <action id=\".chase\" name=\"walk\"/>\n+        <action id=\".new\" name=\"walk\"/>\n+      </sequence>\n"},
		{"paste: an id the file uses gets a fresh one", []string{`{"op":"paste","parent":"guard","index":2,"xml":"<action id=\".idle\" name=\"walk\"/>"}`},
			"+\n+    <action id=\".idle2\" name=\"walk\"/>\n"},
		{"undeclare: the block goes with its last line (and the blank line after it, first in its parent)", []string{`{"op":"undeclare","tag":"variable","name":"Alarm"}`},
			"-  <variables>\n-    <variable name=\"Alarm\" default=\"false\"/>\n-  </variables>\n-\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyOps("editor.xml", opsTree, ops(t, tt.ops...), nil)
			if err != nil {
				t.Fatal(err)
			}
			if c := change(opsTree, got); c != tt.want {
				t.Errorf("change:\n%s\nwant:\n%s\nresult:\n%s", c, tt.want, got)
			}
		})
	}
}

// TestEditOps_sameValueChangesNothing: an operation that sets what is
// there already gives the text back byte for byte.
func TestEditOps_sameValueChangesNothing(t *testing.T) {
	for _, op := range []string{
		`{"op":"attr","rule":"guard.fight","name":"abort","value":"both"}`,
		`{"op":"attr","rule":"guard.idle","name":"loop","value":null}`,
		`{"op":"param","rule":"guard.fight.chase","name":"walk.steps","value":"6"}`,
		`{"op":"param","rule":"guard.fight.chase","name":"nothing","value":null}`,
		`{"op":"conditions","rule":"guard.fight","conditions":["Alarm"]}`,
		`{"op":"conditions","rule":"guard.fight","conditions":["Alarm"],"mode":"allTrue"}`,
		`{"op":"move","rule":"guard.fight","parent":"guard","index":0}`,
		`{"op":"tag","rule":"guard.idle","tag":"choice"}`,
		`{"op":"declare","xml":"<variable name=\"Alarm\" default=\"false\"/>"}`,
	} {
		got, err := applyOps("editor.xml", opsTree, ops(t, op), loadText("editor.xml"))
		if err != nil {
			t.Errorf("%s: %v", op, err)
		} else if got != opsTree {
			t.Errorf("%s changed the text:\n%s", op, change(opsTree, got))
		}
	}
}

// TestEditOps_refused: every refusal names its operation and why.
func TestEditOps_refused(t *testing.T) {
	tests := []struct {
		ops  []string
		want string
	}{
		{[]string{`{"op":"rename","rule":"guard"}`}, `op 0 (rename): unknown op "rename": one of attr, param`},
		{[]string{`{"op":"wrap","rule":"guard.idle","tag":"action"}`}, `op 0 (wrap): "tag": "action" is not a rule that holds rules`},
		{[]string{`{"op":"wrap","rule":"guard.idle","tag":"sequence","count":2}`}, `op 0 (wrap): "count" 2 is out of range: rule guard.idle is followed by 0 rules in its list (1 to 1)`},
		{[]string{`{"op":"unwrap","rule":"guard.fight"}`}, `op 0 (unwrap): rule guard.fight holds a <condition> (line 11, column 7) that unwrapping would lose: remove it first`},
		{[]string{`{"op":"unwrap","rule":"guard.fight.chase"}`}, `op 0 (unwrap): rule guard.fight.chase is a <action>, which holds no rules to unwrap`},
		// An attribute says as much as a condition: a hook, a loop, a timeout.
		{[]string{`{"op":"attr","rule":"guard.idle","name":"enter","value":"h"}`, `{"op":"unwrap","rule":"guard.idle"}`}, `op 1 (unwrap): rule guard.idle has enter="h", which unwrapping would lose: remove it first`},
		{[]string{`{"op":"attr","rule":"guard.idle","name":"loop","value":"true"}`, `{"op":"unwrap","rule":"guard.idle"}`}, `op 1 (unwrap): rule guard.idle has loop="true", which unwrapping would lose: remove it first`},
		{[]string{`{"op":"paste","parent":"guard","xml":"<variable name=\"x\"/>"}`}, `op 0 (paste): "xml": paste takes one rule element`},

		{[]string{`{"rule":"guard"}`}, `op 0: "op" is missing`},
		{[]string{`{"op":"attr","rule":"guard","name":"loop","value":"true","extra":1}`}, `op 0: not an operation object: json: unknown field "extra"`},
		{[]string{`[1]`}, `op 0: not an operation object`},
		{[]string{`{"op":"attr","rule":"nobody","name":"loop","value":"true"}`}, `op 0 (attr): no rule "nobody" in editor.xml`},
		{[]string{`{"op":"attr","rule":"guard","name":"loop"}`}, `op 0 (attr): "value" is required`},
		{[]string{`{"op":"attr","rule":"guard","name":"loop","value":3}`}, `op 0 (attr): "value" must be a string or null, not 3`},
		{[]string{`{"op":"attr","rule":"guard","name":"speed","value":"3"}`}, `op 0 (attr): <choice> takes no attribute "speed"; it takes id, loop, doNotFail`},
		{[]string{`{"op":"attr","rule":"guard","name":"loop","value":"sometimes"}`}, `op 0 (attr): the result would not load: editor.xml:8:3: `},
		{[]string{`{"op":"attr","rule":"guard","name":"id","value":"\u0001"}`}, `op 0 (attr): the value holds '\x01', a character an XML file cannot hold`},
		{[]string{`{"op":"param","rule":"guard","value":"1"}`}, `op 0 (param): "name" (the parameter's name) is required`},
		{[]string{`{"op":"conditions","rule":"guard"}`}, `op 0 (conditions): "conditions" (the list of condition names, "!" to negate) is required`},
		{[]string{`{"op":"conditions","rule":"guard","conditions":[" "]}`}, `op 0 (conditions): condition 0 is empty`},
		{[]string{`{"op":"conditions","rule":"guard","conditions":[],"mode":"mostlyTrue"}`}, `op 0 (conditions): mode "mostlyTrue": one of allTrue, anyTrue, anyFalse, allFalse`},
		{[]string{`{"op":"insert","parent":"guard.fight.chase","xml":"<success/>"}`}, `op 0 (insert): rule guard.fight.chase is a <action>, which holds no rules`},
		{[]string{`{"op":"insert","xml":"<success/>"}`}, `op 0 (insert): "parent" is required`},
		{[]string{`{"op":"insert","parent":"guard","xml":"<variable name=\"x\"/>"}`}, `op 0 (insert): "xml": insert takes one rule element`},
		{[]string{`{"op":"insert","parent":"guard","xml":"<success>"}`}, `op 0 (insert): "xml" is not well formed at byte 0: <success> is not closed`},
		{[]string{`{"op":"insert","parent":"guard","xml":"<success/><failure/>"}`}, `op 0 (insert): "xml" is not well formed at byte 10: a second root element`},
		{[]string{`{"op":"insert","parent":"guard","index":9,"xml":"<success/>"}`}, `op 0 (insert): index 9 is out of range: the parent has 2 rules (0 to 2)`},
		{[]string{`{"op":"insert","parent":"","xml":"<success/>"}`}, `op 0 (insert): the result would not load: editor.xml:24:3: second top-level rule <success> in the main tree file`},
		{[]string{`{"op":"insert","parent":"guard","xml":"<action/>"}`}, `op 0 (insert): the result would not load: `},
		{[]string{`{"op":"move","rule":"guard.fight","parent":"guard.fight","index":0}`}, `op 0 (move): rule guard.fight cannot move into itself`},
		{[]string{`{"op":"move","rule":"guard.idle","parent":"guard.fight.chase","index":0}`}, `op 0 (move): rule guard.fight.chase is a <action>, which holds no rules`},
		{[]string{`{"op":"move","rule":"guard","parent":"guard.idle","index":0}`}, `op 0 (move): rule guard cannot move into itself`},
		{[]string{`{"op":"move","rule":"guard.fight","parent":"guard.idle"}`}, `op 0 (move): "index" is required`},
		{[]string{`{"op":"move","rule":"guard.fight.chase","parent":"guard.idle","index":-1}`}, `op 0 (move): index -1 is out of range`},
		{[]string{`{"op":"tag","rule":"guard","tag":"action"}`}, `op 0 (tag): rule guard has rules inside: <action> cannot hold them`},
		{[]string{`{"op":"tag","rule":"guard","tag":"variable"}`}, `op 0 (tag): "variable" is not a rule tag`},
		{[]string{`{"op":"text","rule":"guard","value":"x"}`}, `op 0 (text): <choice> holds no text`},
		{[]string{`{"op":"declare","xml":"<action name=\"x\"/>"}`}, `op 0 (declare): "xml": declare takes one declaration`},
		{[]string{`{"op":"declare","xml":"<variable name=\"Alarm\" default=\"true\"/>"}`}, `op 0 (declare): the result would not load: `},
		{[]string{`{"op":"undeclare","tag":"variable","name":"Nope"}`}, `op 0 (undeclare): editor.xml declares no <variable name="Nope">`},
		{[]string{`{"op":"undeclare","tag":"action","name":"x"}`}, `op 0 (undeclare): "action" is not a declaration tag`},
		{[]string{`{"op":"duplicate","rule":""}`}, `op 0 (duplicate): "rule" (the rule's label) is required`},
		{[]string{`{"op":"param","rule":"guard.idle","name":"a","value":"1"}`, `{"op":"delete","rule":"guard.idle.rest"}`, `{"op":"delete","rule":"guard.idle.rest"}`},
			`op 2 (delete): no rule "guard.idle.rest" in editor.xml`},
	}
	for _, tt := range tests {
		_, err := applyOps("editor.xml", opsTree, ops(t, tt.ops...), loadText("editor.xml"))
		var oe *opError
		if !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %s...", tt.ops, err, tt.want)
		}
	}
}

// TestEditOps_labels: a rule is named by its full id, or by its tag and
// position, which names any rule; an id two rules share names neither.
func TestEditOps_labels(t *testing.T) {
	text := strings.Replace(opsTree, `<success/>`, `<success id=".rest"/>`, 1)
	_, err := applyOps("editor.xml", text, ops(t, `{"op":"delete","rule":"guard.idle.rest"}`), nil)
	if err == nil || !strings.Contains(err.Error(), `"guard.idle.rest" names 2 rules (line 19, line 20): name one by TAG@FILE:LINE:COL`) {
		t.Errorf("an id two rules share: %v", err)
	}
	got, err := applyOps("editor.xml", text, ops(t, `{"op":"delete","rule":"success@editor.xml:20:7"}`), nil)
	if err != nil || strings.Contains(got, "<success") {
		t.Errorf("by position: %v\n%s", err, got)
	}
	_, err = applyOps("editor.xml", text, ops(t, `{"op":"delete","rule":"success@other.xml:20:7"}`), nil)
	if err == nil {
		t.Error("a position in another file named a rule of this one")
	}
}

// TestEditOps_fileStyle: new lines take the file's line ends and
// indentation unit (here CRLF and tabs).
func TestEditOps_fileStyle(t *testing.T) {
	text := "<behaviorTree>\r\n\t<sequence id=\"s\">\r\n\t\t<success/>\r\n\t</sequence>\r\n</behaviorTree>\r\n"
	got, err := applyOps("t.xml", text, ops(t, `{"op":"insert","parent":"s","xml":"<choice id=\".c\">\n<failure/>\n</choice>"}`), loadText("t.xml"))
	if err != nil {
		t.Fatal(err)
	}
	want := "<behaviorTree>\r\n\t<sequence id=\"s\">\r\n\t\t<success/>\r\n\t\t<choice id=\".c\">\r\n\t\t\t<failure/>\r\n\t\t</choice>\r\n\t</sequence>\r\n</behaviorTree>\r\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestEditOps_encoding: a value with characters the file's encoding cannot
// hold gets character references; the others are written as they are.
func TestEditOps_encoding(t *testing.T) {
	text := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<behaviorTree>\n  <action id=\"a\" name=\"bt.log\"/>\n</behaviorTree>\n"
	got, err := applyOps("l.xml", text, ops(t, `{"op":"param","rule":"a","name":"log.message","value":"café €5"}`), loadText("l.xml"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := runtime.EncodeSource("l.xml", got)
	if err != nil {
		t.Fatal(err)
	}
	if want := "<parameter name=\"log.message\">caf\xe9 &#8364;5</parameter>"; !strings.Contains(string(data), want) {
		t.Errorf("the file's bytes:\n%q\nwant them to hold %q", data, want)
	}
	tree, err := runtime.LoadBytes("l.xml", data, runtime.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := tree.Rules[0].Params.Get("log.message"); v != "café €5" {
		t.Errorf("the loader reads %q", v)
	}
}

// TestEditOps_malformed: text that is not well formed is refused with its
// position, and only the source can be edited.
func TestEditOps_malformed(t *testing.T) {
	for text, want := range map[string]string{
		"<behaviorTree>\n  <sequence>\n</behaviorTree>": "t.xml:3:1: end tag </behaviorTree> does not close <sequence> (line 2)",
		"<behaviorTree a=\"1\" a=\"2\"/>":               "t.xml:1:21: attribute a appears twice on <behaviorTree>",
		"<tree/>":                                       "t.xml:1:1: the root element is <tree>; a tree file's is <behaviorTree>",
		"<behaviorTree>&nbsp;</behaviorTree>":           "t.xml:1:15: unknown entity &nbsp;",
		"":                                              "t.xml:1:1: the text holds no element",
	} {
		_, err := applyOps("t.xml", text, ops(t, `{"op":"delete","rule":"x"}`), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

// BenchmarkEditOps: one parameter changed in the example game's grunt.xml
// (5.4 kB, 17 rules), as the page's edits are: the text scanned, the edit
// made, and (load) the result loaded to check it still loads.
func BenchmarkEditOps(b *testing.B) {
	data, err := os.ReadFile("../scripts/ai/grunt.xml")
	if err != nil {
		b.Fatal(err)
	}
	text := string(data)
	op := []json.RawMessage{json.RawMessage(`{"op":"param","rule":"grunt.idle.look","name":"wait.seconds","value":"2"}`)}
	load := func(text string) error {
		_, err := runtime.LoadBytes("grunt.xml", []byte(text), runtime.LoadOptions{})
		return err
	}
	for _, bc := range []struct {
		name string
		load func(string) error
	}{{"scanAndEdit", nil}, {"withLoadCheck", load}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := applyOps("grunt.xml", text, op, bc.load); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Issue 40: × on one signal row removed every signal of that name. With
// line and col (the outline's position of the row), undeclare removes that
// one declaration and keeps the others of the name and the block.
func TestOps_undeclareOneOfAName(t *testing.T) {
	src := strings.Replace(opsTree, "  <choice id=\"guard\">\n", `  <signals>
    <signal name="OnEnemy" variable="Alarm" value="true"/>
    <signal name="OnEnemy" variable="Alarm" value="false"/>
  </signals>
  <choice id="guard">
`, 1)
	got, err := applyOps("editor.xml", src, ops(t, `{"op":"undeclare","tag":"signal","name":"OnEnemy","line":10,"col":5}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := change(src, got); c != "-    <signal name=\"OnEnemy\" variable=\"Alarm\" value=\"false\"/>\n" {
		t.Errorf("change:\n%s", c)
	}
	_, err = applyOps("editor.xml", src, ops(t, `{"op":"undeclare","tag":"signal","name":"OnEnemy","line":5,"col":5}`), nil)
	if err == nil || !strings.Contains(err.Error(), `editor.xml has no <signal name="OnEnemy"> at line 5, column 5`) {
		t.Errorf("a position with another declaration: %v", err)
	}
}

// TestEditOps_wrapKeepsLineEndsAndTabs: a file with "\r\n" and tabs is
// wrapped and unwrapped in its own line ends and indentation, and the
// unwrap gives the text back byte for byte.
func TestEditOps_wrapKeepsLineEndsAndTabs(t *testing.T) {
	text := "<behaviorTree>\r\n\t<sequence id=\"s\">\r\n\t\t<!-- first -->\r\n\t\t<action id=\".a\" name=\"walk\">\r\n\t\t\t<parameter name=\"walk.steps\">2</parameter>\r\n\t\t</action>\r\n\t\t<success/>\r\n\t</sequence>\r\n</behaviorTree>\r\n"
	wrapped, err := applyOps("crlf.xml", text, ops(t, `{"op":"wrap","rule":"s.a","tag":"choice","count":2}`), loadText("crlf.xml"))
	if err != nil {
		t.Fatal(err)
	}
	want := "<behaviorTree>\r\n\t<sequence id=\"s\">\r\n\t\t<choice>\r\n\t\t\t<!-- first -->\r\n\t\t\t<action id=\".a\" name=\"walk\">\r\n\t\t\t\t<parameter name=\"walk.steps\">2</parameter>\r\n\t\t\t</action>\r\n\t\t\t<success/>\r\n\t\t</choice>\r\n\t</sequence>\r\n</behaviorTree>\r\n"
	if wrapped != want {
		t.Fatalf("wrapped:\n%q\nwant:\n%q", wrapped, want)
	}
	back, err := applyOps("crlf.xml", wrapped, ops(t, `{"op":"unwrap","rule":"choice@crlf.xml:3:3"}`), loadText("crlf.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if back != text {
		t.Errorf("unwrapped:\n%q\nwant the text back:\n%q", back, text)
	}
}
