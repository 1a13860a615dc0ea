package runtime

import (
	"fmt"
	"slices"
)

// FormatTagsFor describes the format as a registry's trees see it: the
// format's tags (FormatTags), in which every place that holds rules also
// holds the registered rules' tags, then one tag per registered rule
// (custom.go), sorted by tag, with its attributes (those every rule takes),
// its parameters and what it holds. The reference, the XML schema,
// validate and the live view's palette call it where a registry is at
// hand.
func FormatTagsFor(reg *Registry) []TagSpec {
	out := FormatTags()
	var defs []RuleDef
	if reg != nil {
		defs = reg.Rules()
	}
	if len(defs) == 0 {
		return out
	}
	tags := make([]string, len(defs))
	for i, d := range defs {
		tags[i] = d.Tag
	}
	for i := range out {
		if slices.Contains(out[i].Inside, "action") { // a place that holds rules
			out[i].Inside = append(slices.Clip(out[i].Inside), tags...)
		}
	}
	inside := append(slices.Clip(listChildren), tags...)
	for _, d := range defs {
		ts := TagSpec{Tag: d.Tag, Kind: "rule", Doc: CustomDoc(&d.RuleDecl), Inside: inside, Params: d.Params, Origin: d.Origin.String()}
		for _, a := range customAttrs {
			spec, ok := attrDocs[a]
			if !ok {
				panic("runtime: attribute " + a + " of custom rules has no description in attrDocs")
			}
			spec.Name = a
			if a == "abort" {
				spec.Values = abortNames[:]
			}
			ts.Attrs = append(ts.Attrs, spec)
		}
		out = append(out, ts)
	}
	return out
}

// CustomDoc is a registered rule's description, as FormatTagsFor gives
// it: its own, and how many children it takes.
func CustomDoc(d *RuleDecl) string {
	doc := d.Doc
	if doc == "" {
		doc = "a rule registered from Go"
	}
	least, most := d.kids()
	switch {
	case d.Decorator:
		return doc + " (a decorator: one child rule)"
	case most == 0:
		return doc + fmt.Sprintf(" (a composite: %d or more child rules)", least)
	case least == most:
		return doc + fmt.Sprintf(" (a composite: %d child rules)", least)
	}
	return doc + fmt.Sprintf(" (a composite: %d to %d child rules)", least, most)
}
