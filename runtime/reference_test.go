package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// sampleValue is a valid value for a parameter of the given type, in a tree
// that declares variable V and timestamp T.
func sampleValue(t *testing.T, typ string) string {
	switch typ {
	case "seconds":
		return "1.5"
	case "boolean":
		return "true"
	case "signal name":
		return "S"
	case "variable name":
		return "V"
	case "timestamp name":
		return "T"
	case "gate name":
		return "G"
	case "count >= 1":
		return "2"
	case "agent id, self or all":
		return "self"
	case "string", "number, boolean or string":
		return "hello"
	case "value of the variable's type":
		return "true" // V is a boolean
	case "number":
		return "1"
	}
	t.Fatalf("no sample value for parameter type %q", typ)
	return ""
}

func bindBuiltin(action string, params map[string]string) error {
	var b strings.Builder
	b.WriteString(`<behaviorTree><variables><variable name="V"/></variables><timestamps><timestamp name="T"/></timestamps><gates><gate name="G" users="2"/></gates>`)
	fmt.Fprintf(&b, `<action id="root" name="%s">`, action)
	for n, v := range params {
		fmt.Fprintf(&b, `<parameter name="%s">%s</parameter>`, n, v)
	}
	b.WriteString(`</action></behaviorTree>`)
	tree, err := LoadBytes("t.xml", []byte(b.String()), LoadOptions{})
	if err != nil {
		return err
	}
	_, err = Bind(tree, NewRegistry(), BindOptions{})
	return err
}

// TestBuiltins_declareWhatTheyRead: every built-in action binds with its
// declared parameters; each required one missing, and each typed one with
// a bad value, is a bind error naming it (so the code reads what the
// declaration, and the reference page generated from it, says).
func TestBuiltins_declareWhatTheyRead(t *testing.T) {
	for _, d := range builtinActions() {
		if d.Doc == "" || d.Params == nil {
			t.Errorf("%s: no Doc or no Params declaration", d.Name)
		}
		all := map[string]string{}
		for _, p := range d.Params {
			if d.Name == "bt.variable.set" && p.Name == "variable.add" {
				continue // exactly one of variable.value and variable.add (TestVars_variableSetBindErrors)
			}
			all[p.Name] = sampleValue(t, p.Type)
			if oneOf := d.Name == "bt.variable.set" && p.Name == "variable.value"; oneOf {
				continue
			}
			if p.Doc == "" || p.Required == (p.Default != "") && !p.Family { // a family has no default: none given, none read
				t.Errorf("%s: parameter %s needs a Doc and either Required or a Default", d.Name, p.Name)
			}
		}
		if err := bindBuiltin(d.Name, all); err != nil {
			t.Errorf("%s with its declared parameters: %v", d.Name, err)
		}
		for _, p := range d.Params {
			some := map[string]string{}
			for n, v := range all {
				some[n] = v
			}
			if p.Required {
				delete(some, p.Name)
				if err := bindBuiltin(d.Name, some); err == nil || !strings.Contains(err.Error(), p.Name) {
					t.Errorf("%s without %s: %v", d.Name, p.Name, err)
				}
			}
			if p.Type == "seconds" || p.Type == "boolean" {
				some[p.Name] = "x"
				if err := bindBuiltin(d.Name, some); err == nil || !strings.Contains(err.Error(), p.Name) {
					t.Errorf("%s with %s = x: %v", d.Name, p.Name, err)
				}
			}
		}
	}
}

// TestDeclaredConditions_bindAsDeclared: each declared condition form binds
// with its parameters and reports them by the timestamp's name.
func TestDeclaredConditions_bindAsDeclared(t *testing.T) {
	tree, err := LoadBytes("t.xml", []byte(`<behaviorTree>
<variables><variable name="Aware"/></variables><timestamps><timestamp name="Seen"/></timestamps>
<action id="root" name="bt.log"><parameter name="log.message">x</parameter>
  <condition>Aware</condition><condition>Seen.set</condition><condition>Seen.lessThan</condition><condition>Seen.moreThan</condition>
  <parameter name="Seen.lessThan">2</parameter><parameter name="Seen.moreThan">3</parameter><parameter name="Seen.orNeverSet">true</parameter>
</action></behaviorTree>`), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Bind(tree, NewRegistry(), BindOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"Aware": "", "Seen.set": "", "Seen.lessThan": "Seen.lessThan", "Seen.moreThan": "Seen.moreThan Seen.orNeverSet"} {
		ps, ok := tree.DeclaredParams(name)
		var names []string
		for _, p := range ps {
			names = append(names, p.Name)
		}
		if !ok || strings.Join(names, " ") != want {
			t.Errorf("DeclaredParams(%s) = %v, %v; want %q", name, names, ok, want)
		}
	}
	if _, ok := tree.DeclaredParams("Seen.often"); ok {
		t.Error("Seen.often is not a declared condition")
	}
}

// TestSuggest_countsASwapAsOneEdit: "did you mean" finds typos that swap
// two letters, like other one-letter slips.
func TestSuggest_countsASwapAsOneEdit(t *testing.T) {
	known := []string{"Alert", "Calm", "chase.speed", "OnIntruder"}
	for in, want := range map[string]string{"Alret": "Alert", "Clam": "Calm", "chase.sped": "chase.speed", "OnIntrudr": "OnIntruder", "Zebra": ""} {
		if got := Suggest(in, known); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRuleReads_choiceParametersOnlyUnderTheirOrder: the runtime reads
// choice.weight only on a weighted choice's children and choice.score only
// on a score choice's, so validate can call them unread elsewhere.
func TestRuleReads_choiceParametersOnlyUnderTheirOrder(t *testing.T) {
	tree, err := LoadBytes("test.xml", []byte(bt(`<sequence id="root">
  <choice id="w" order="weighted"><success id=".a"/></choice>
  <choice id="s" order="score"><success id=".b"/></choice>
  <choice id="l"><success id=".c"/></choice>
</sequence>`)), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := func(id string) string {
		i, _ := tree.RuleIndex(id)
		var n []string
		for _, p := range tree.RuleReads(i) {
			n = append(n, p.Name)
		}
		return strings.Join(n, " ")
	}
	for id, want := range map[string]string{
		"root": "log.start log.success log.failure",
		"w.a":  "log.start log.success log.failure choice.weight",
		"s.b":  "log.start log.success log.failure choice.score",
		"l.c":  "log.start log.success log.failure",
	} {
		if got := names(id); got != want {
			t.Errorf("%s reads %q, want %q", id, got, want)
		}
	}
}
