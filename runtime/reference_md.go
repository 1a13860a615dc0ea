package runtime

import (
	"fmt"
	"io"
	"strings"
)

// The reference of registered actions and conditions in Markdown, from what
// they declare (Doc, Params, Instant): btrun's docs/reference.md lists its
// built-ins with it, and a game that embeds btrun can list its own Go
// actions the same way for its designers:
//
//	var own []runtime.ActionDef
//	for _, d := range g.Registry().Actions() {
//		if d.Origin.Kind == "go" {
//			own = append(own, d)
//		}
//	}
//	runtime.WriteActionsMarkdown(w, own)

// WriteActionsMarkdown writes a section per action: "### `NAME`", what it
// does, and the table of its parameters.
func WriteActionsMarkdown(w io.Writer, defs []ActionDef) error {
	var b strings.Builder
	for _, d := range defs {
		fmt.Fprintf(&b, "### `%s`\n\n%s.", d.Name, capitalize(d.Doc))
		if d.Instant {
			b.WriteString(" Never returns running.")
		}
		b.WriteString("\n\n")
		writeParams(&b, d.Params)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteConditionsMarkdown writes a section per condition, as
// WriteActionsMarkdown does ("### `NAME` (condition)").
func WriteConditionsMarkdown(w io.Writer, defs []ConditionDef) error {
	var b strings.Builder
	for _, d := range defs {
		fmt.Fprintf(&b, "### `%s` (condition)\n\n%s.\n\n", d.Name, capitalize(d.Doc))
		writeParams(&b, d.Params)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteParamsMarkdown writes the table of parameters ps ("No parameters."
// when there are none).
func WriteParamsMarkdown(w io.Writer, ps []ParamSpec) error {
	var b strings.Builder
	writeParams(&b, ps)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeParams(b *strings.Builder, ps []ParamSpec) {
	if len(ps) == 0 {
		b.WriteString("No parameters.\n\n")
		return
	}
	b.WriteString("| parameter | value | default | meaning |\n|---|---|---|---|\n")
	for _, p := range ps {
		def := "`" + p.Default + "`"
		switch {
		case p.Required:
			def = "required"
		case p.Default == "":
			def = "none"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", p.Name, p.Type, def, p.Doc)
	}
	b.WriteString("\n")
}

// capitalize starts a doc text with a capital, unless it starts with code.
func capitalize(s string) string {
	if s == "" || s[0] == '`' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
