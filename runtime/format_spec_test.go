package runtime

import (
	"fmt"
	"slices"
	"strings"
	"testing"
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
	_, err := LoadBytes("t.xml", []byte(files["t.xml"]), LoadOptions{ReadFile: func(p string) ([]byte, error) { return []byte(files[p]), nil }})
	if err != nil {
		return err.Error()
	}
	return ""
}

// TestFormatTags_agreeWithTheLoader: every attribute FormatTags declares on
// a tag is accepted there, and an unknown one is refused with a message
// listing exactly the declared attributes: the reference page and schema
// generated from FormatTags say what the loader does.
func TestFormatTags_agreeWithTheLoader(t *testing.T) {
	samples := map[string]string{"boolean": "true", "id": "x", "name": "n"}
	for _, ts := range FormatTags() {
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
			t.Errorf("<%s>: the loader says\n  %s\nFormatTags says\n  %s", ts.Tag, msg, want)
		}
	}
	if msg := probe("signal", "variable", "V"); !strings.Contains(msg, "needs a value attribute") {
		t.Errorf("signal with a variable but no value: %s", msg)
	}
}

// TestFormatTags_listEveryTag: the tags of FormatTags are the loader's.
func TestFormatTags_listEveryTag(t *testing.T) {
	var got []string
	for _, ts := range FormatTags() {
		got = append(got, ts.Tag)
	}
	for tag := range knownTags {
		if !slices.Contains(got, tag) {
			t.Errorf("the loader knows <%s>, FormatTags does not", tag)
		}
	}
	if len(got) != len(knownTags) {
		t.Errorf("FormatTags lists %d tags, the loader knows %d", len(got), len(knownTags))
	}
}
