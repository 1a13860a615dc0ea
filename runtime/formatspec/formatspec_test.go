package formatspec

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// probe loads a file holding one element of tag with the attribute attr
// (value v) and returns the load's error text.
func probe(tag, attr, v string) string {
	el := fmt.Sprintf(`<%s %s="%s">`, tag, attr, v)
	var body string
	switch tag {
	case "parameter", "condition", "conditionMode":
		text := map[string]string{"parameter": "1", "condition": "c", "conditionMode": "allTrue"}[tag]
		body = `<action id="root" name="x">` + el + text + `</` + tag + `></action>`
	case "variables", "signals", "timestamps", "gates":
		body = el + `</` + tag + `>`
	case "include":
		body = `<` + tag + ` file="sub.xml" ` + attr + `="` + v + `"/>`
		if attr == "file" {
			body = `<include file="sub.xml"/>`
		}
	case "state":
		body = `<stateMachine id="root">` + el + `<success/></state></stateMachine>`
	case "transition":
		body = `<stateMachine id="root"><state name="A">` + el + `</transition><success/></state></stateMachine>`
	case "variable", "signal", "timestamp", "gate":
		body = `<` + tag + `s>` + `<` + tag + ` name="N" ` + attr + `="` + v + `"/></` + tag + `s>`
		if attr == "name" {
			body = `<` + tag + `s><` + tag + ` name="N"/></` + tag + `s>`
		}
	case "subtree", "subTree":
		body = `<sequence id="root">` + el + `sub.xml</` + tag + `></sequence>`
	default:
		body = `<sequence id="root">` + el + `</` + tag + `></sequence>`
	}
	files := map[string]string{"t.xml": `<behaviorTree>` + body + `</behaviorTree>`, "sub.xml": `<behaviorTree/>`}
	_, err := runtime.LoadBytes("t.xml", []byte(files["t.xml"]), runtime.LoadOptions{ReadFile: func(p string) ([]byte, error) { return []byte(files[p]), nil }})
	if err != nil {
		return err.Error()
	}
	return ""
}

// TestTags_agreeWithTheLoader: every attribute Tags declares on
// a tag is accepted there, and an unknown one is refused with a message
// listing exactly the declared attributes: the reference page and schema
// generated from Tags say what the loader does.
func TestTags_agreeWithTheLoader(t *testing.T) {
	samples := map[string]string{"boolean": "true", "id": "x", "name": "n"}
	for _, ts := range Tags() {
		if ts.Doc == "" {
			t.Errorf("<%s> has no description", ts.Tag)
		}
		if ts.Tag == "behaviorTree" {
			continue
		}
		var names []string
		for _, a := range ts.Attrs {
			names = append(names, a.Name)
			v := samples[a.Type]
			if ts.Tag == "signal" && (a.Name == "variable" || a.Name == "value") {
				continue // they come as a pair; the full line is checked below
			}
			if msg := probe(ts.Tag, a.Name, v); strings.Contains(msg, "unknown attribute") {
				t.Errorf("<%s %s>: %s", ts.Tag, a.Name, msg)
			}
		}
		msg := probe(ts.Tag, "zzProbe", "1")
		want := "unknown attribute zzProbe on <" + ts.Tag + ">; "
		switch len(names) {
		case 0:
			want += "<" + ts.Tag + "> takes no attributes"
		case 1:
			want += "expected " + names[0]
		default:
			want += "expected one of " + strings.Join(names, ", ")
		}
		if !strings.Contains(msg, want) {
			t.Errorf("<%s>: the loader says\n  %s\nTags says\n  %s", ts.Tag, msg, want)
		}
	}
	if msg := probe("signal", "variable", "V"); !strings.Contains(msg, "needs a value attribute") {
		t.Errorf("signal with a variable but no value: %s", msg)
	}
}

// TestTagsFor_registeredRules: TagsFor adds a tag per
// registered rule, with its parameters, whose every attribute the loader
// takes on it (and refuses an unknown one listing exactly those), and
// every place that holds rules holds it; Tags stays the format's own.
func TestTagsFor_registeredRules(t *testing.T) {
	reg := registeredRules(t)
	specs := TagsFor(reg)
	byTag := map[string]Tag{}
	for _, s := range specs {
		byTag[s.Tag] = s
	}
	pick, ok := byTag["pick"]
	if !ok || pick.Kind != "rule" || len(pick.Params) != 2 || pick.Params[0].Name != "pick.first" || pick.Origin != "go" ||
		!strings.HasSuffix(pick.Doc, "(a composite: 1 or more child rules)") {
		t.Fatalf("<pick>: %+v", pick)
	}
	if inv := byTag["invert"]; !strings.HasSuffix(inv.Doc, "(a decorator: one child rule)") {
		t.Errorf("<invert>: %q", inv.Doc)
	}
	for _, tag := range []string{"behaviorTree", "sequence", "choice", "parallel", "pick"} {
		if !slices.Contains(byTag[tag].Inside, "pick") {
			t.Errorf("<%s> does not hold <pick>: %v", tag, byTag[tag].Inside)
		}
	}
	opts := runtime.LoadOptions{Rules: reg.RuleDecls()}
	var names []string
	for _, a := range pick.Attrs {
		names = append(names, a.Name)
		v := map[string]string{"boolean": "true", "id": "x", "name": "n", "count >= 1": "2", "seconds > 0": "1"}[a.Type]
		if a.Name == "abort" {
			v = "self"
		}
		_, err := runtime.LoadBytes("t.xml", []byte(tree(`<pick `+a.Name+`="`+v+`"><condition>c</condition><success/></pick>`)), opts)
		if err != nil && strings.Contains(err.Error(), "unknown attribute") {
			t.Errorf("<pick %s>: %v", a.Name, err)
		}
	}
	_, err := runtime.LoadBytes("t.xml", []byte(tree(`<pick nope="1"><success/></pick>`)), opts)
	if err == nil || !strings.Contains(err.Error(), strings.Join(names, ", ")) {
		t.Errorf("an unknown attribute: %v; want the list %v", err, names)
	}
	for _, s := range Tags() {
		if s.Tag == "pick" || slices.Contains(s.Inside, "pick") {
			t.Errorf("Tags holds <pick>: %+v", s)
		}
	}
}

// tree is a tree file whose root is body.
func tree(body string) string { return "<behaviorTree>" + body + "</behaviorTree>" }

type pickParams struct {
	First int  `param:"pick.first" default:"0" doc:"the child tried first"`
	Bad   bool `param:"pick.bad" default:"false" doc:"answer a child the rule does not have"`
}

// registeredRules is a registry with a composite, <pick>, and a
// decorator, <invert>.
func registeredRules(t *testing.T) *runtime.Registry {
	t.Helper()
	reg := runtime.NewRegistry()
	first := func(_ *runtime.Agent, p *pickParams, _ *struct{}, n int) (runtime.Next, error) {
		return runtime.RunChild(p.First), nil
	}
	done := func(_ *runtime.Agent, _ *pickParams, _ *struct{}, n, child int, res runtime.Status) (runtime.Next, error) {
		return runtime.Finish(res), nil
	}
	if err := (runtime.TypedRule[pickParams, struct{}]{Tag: "pick", Doc: "tries its children in order from pick.first until one succeeds", Enter: first, ChildDone: done}).Register(reg); err != nil {
		t.Fatal(err)
	}
	if err := (runtime.TypedRule[struct{}, struct{}]{Tag: "invert", Decorator: true,
		Enter: func(*runtime.Agent, *struct{}, *struct{}, int) (runtime.Next, error) { return runtime.RunChild(0), nil },
		ChildDone: func(_ *runtime.Agent, _ *struct{}, _ *struct{}, _, _ int, res runtime.Status) (runtime.Next, error) {
			return runtime.Finish(res), nil
		}}).Register(reg); err != nil {
		t.Fatal(err)
	}
	return reg
}
