package runtime

import (
	"fmt"
	"slices"
)

// Custom rules in tree files (custom.go): the tags LoadOptions.Rules
// declares are rule tags of the files loaded with them, whose elements
// take the attributes every rule takes (customAttrs), <parameter>,
// <condition> and <conditionMode>, and child rules as a sequence does, as
// many as the declaration allows. Which Go code runs them is the binder's
// business: the loader knows the declarations only.

// customTags are the declared custom rules by tag; nil when none.
type customTags map[string]*RuleDecl

func newCustomTags(decls []RuleDecl) customTags {
	if len(decls) == 0 {
		return nil
	}
	m := make(customTags, len(decls))
	for i := range decls {
		d := &decls[i]
		if isTagName(d.Tag) && !knownTags[d.Tag] { // Registry.AddRule refused the others already
			m[d.Tag] = d
		}
	}
	return m
}

// with is tags followed by the custom tags, sorted: what a place that
// holds rules allows, for messages.
func (m customTags) with(tags []string) []string {
	if len(m) == 0 {
		return tags
	}
	out := slices.Clip(tags)
	first := len(out)
	for t := range m {
		out = append(out, t)
	}
	slices.Sort(out[first:])
	return out
}

// kindOf is the kind of rule a tag makes, custom tags included.
func (c *checker) kindOf(name string) (Kind, bool) {
	if k, ok := ruleKinds[name]; ok {
		return k, true
	}
	if _, ok := c.custom[name]; ok {
		return KindCustom, true
	}
	return 0, false
}

// checkCustom checks a custom rule's number of children against its
// declaration.
func (c *checker) checkCustom(n *node, e *elem) {
	d := c.custom[e.name]
	least, most := d.kids()
	if k := len(n.children); k < least || most > 0 && k > most {
		what := fmt.Sprintf("<%s> has %d child rules; %s", e.name, k, kidsWanted(d))
		if k == 0 {
			what = fmt.Sprintf("<%s> has no child rule; %s", e.name, kidsWanted(d))
		}
		c.errorf(e.pos, "%s", what)
	}
}
