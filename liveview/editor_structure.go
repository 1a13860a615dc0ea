package liveview

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The structural operations of the editor (docs/debug.md, "Editing"):
// wrap rules in a new list, unwrap a list, and paste a rule copied from
// this file or another. Like the others (editor_ops.go) each is a
// byte-range replacement of the scanned text: the rules moved keep their
// text, comments and attribute order, only re-indented by one level.

// opWrap puts "count" rules (1 when absent), from "rule" on among its
// siblings, inside a new <"tag"> (with id "id" when given) at their place.
func (e *opEditor) opWrap(op *editOp) error {
	n, err := e.rule(op.Rule)
	if err != nil {
		return err
	}
	f := e.o.format
	if !f.list[op.Tag] {
		return fmt.Errorf(`"tag": %q is not a rule that holds rules (sequence, choice, parallel, ...)`, op.Tag)
	}
	count := 1
	if op.Count != nil {
		count = *op.Count
	}
	sibs := ruleChildren(f, n.parent, nil)
	k := slices.Index(sibs, n)
	if count < 1 || k+count > len(sibs) {
		return fmt.Errorf(`"count" %d is out of range: rule %s is followed by %d rules in its list (1 to %d)`, count, op.Rule, len(sibs)-k-1, len(sibs)-k)
	}
	first, last := sibs[k], sibs[k+count-1]
	for _, c := range n.parent.children {
		if c.kind == srcElem && c.start > first.start && c.end <= last.end && c.parent == n.parent && !f.rule[c.name] {
			line, col := e.doc.pos(c.start)
			return fmt.Errorf("a <%s> at line %d, column %d stands between the rules to wrap: wrap fewer", c.name, line, col)
		}
	}
	open := "<" + op.Tag
	if op.ID != "" {
		id, err := e.esc.attr(op.ID, '"')
		if err != nil {
			return err
		}
		open += ` id="` + id + `"`
	}
	open += ">"
	end := "</" + op.Tag + ">"
	from := e.attachedStart(first)
	seg := e.doc.text[from:last.end]
	if !e.doc.startsLine(from) {
		e.edits = append(e.edits, textEdit{from, last.end, open + seg + end})
		return nil
	}
	base := e.doc.text[e.doc.lineStart(from):from]
	inner := base + e.unit()
	e.edits = append(e.edits, textEdit{from, last.end, open + e.nl + inner + reindent(seg, base, inner, e.nl) + e.nl + base + end})
	return nil
}

// opUnwrap puts the rules of list "rule" in its place. A list with
// attributes besides its id (enter, loop, abort, ...), conditions,
// parameters or other content besides its rules is refused: what it says
// would be lost.
func (e *opEditor) opUnwrap(op *editOp) error {
	n, err := e.rule(op.Rule)
	if err != nil {
		return err
	}
	f := e.o.format
	if !f.list[n.name] {
		return fmt.Errorf("rule %s is a <%s>, which holds no rules to unwrap", op.Rule, n.name)
	}
	rules := ruleChildren(f, n, nil)
	if len(rules) == 0 {
		return fmt.Errorf("rule %s holds no rules: delete it instead", op.Rule)
	}
	for _, c := range n.children {
		if c.kind == srcElem && !f.rule[c.name] {
			line, col := e.doc.pos(c.start)
			return fmt.Errorf("rule %s holds a <%s> (line %d, column %d) that unwrapping would lose: remove it first", op.Rule, c.name, line, col)
		}
	}
	for _, a := range n.attrs {
		if a.name != "id" { // a hook, a loop, a timeout...: said of the list alone
			return fmt.Errorf("rule %s has %s=%q, which unwrapping would lose: remove it first", op.Rule, a.name, e.doc.attrValue(&a))
		}
	}
	from := e.attachedStart(rules[0])
	seg := e.doc.text[from:rules[len(rules)-1].end]
	at := e.attachedStart(n)
	if !e.doc.startsLine(from) || !e.doc.startsLine(at) {
		e.edits = append(e.edits, textEdit{at, n.end, seg})
		return nil
	}
	childBase := e.doc.text[e.doc.lineStart(from):from]
	base := e.doc.text[e.doc.lineStart(at):at]
	e.edits = append(e.edits, textEdit{at, n.end, reindent(seg, childBase, base, e.nl)})
	return nil
}

// opPaste inserts one rule element (copied from this file or another) as
// insert does, giving fresh ids to those of its ids that the file uses
// already, as duplicate names them ("chase" -> "chase2").
func (e *opEditor) opPaste(op *editOp) error {
	p, err := e.parent(op.Parent)
	if err != nil {
		return err
	}
	frag, err := e.newFragment(op.XML, func(tag string) bool { return e.o.format.rule[tag] },
		"paste takes one rule element (<action>, <sequence>, ...)")
	if err != nil {
		return err
	}
	frag.text = e.freshIDs(frag.text, e.dotOf(p))
	return e.placeRule(p, nil, op.Index, frag)
}

// dotOf is the full id a ".x" id inside p is joined to: the id of p or
// of the closest rule around it that holds rules and has one.
func (e *opEditor) dotOf(p *srcNode) string {
	for q := p; q != nil; q = q.parent {
		if i := slices.Index(e.o.nodes, q); i >= 0 && e.o.Rules[i].ID != "" && (e.o.format.list[q.name] || q.name == "stateMachine") {
			return e.o.Rules[i].ID
		}
	}
	return ""
}

// freshIDs renames the ids of markup (one element, well formed) whose
// full ids, inside a rule whose full id is dot, the file uses already.
func (e *opEditor) freshIDs(markup, dot string) string {
	d, err := scanSource(markup)
	if err != nil {
		return markup
	}
	used := map[string]bool{}
	for _, r := range e.o.Rules {
		used[r.ID] = true
	}
	var edits []textEdit
	var walk func(m *srcNode, dot string)
	walk = func(m *srcNode, dot string) {
		inner := dot
		if a, ok := m.attr("id"); ok {
			id := d.attrValue(a)
			prefix := ""
			if strings.HasPrefix(id, ".") {
				prefix = dot
			}
			if used[prefix+id] {
				base := strings.TrimRight(id, "0123456789")
				for k := 2; ; k++ {
					if fresh := base + strconv.Itoa(k); !used[prefix+fresh] {
						s, _ := e.esc.attr(fresh, a.quote)
						edits = append(edits, textEdit{a.valStart, a.valEnd, s})
						id = fresh
						break
					}
				}
			}
			used[prefix+id] = true
			if e.o.format.list[m.name] || m.name == "stateMachine" {
				inner = prefix + id
			}
		}
		for _, c := range m.elements() {
			walk(c, inner)
		}
	}
	walk(d.root, dot)
	return applyEdits(markup, edits)
}

// reindent moves the lines of seg after its first from indentation
// oldBase to newBase (a line indented otherwise keeps its indentation),
// with line ends nl.
func reindent(seg, oldBase, newBase, nl string) string {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c != '\n' && c != '\r' {
			b.WriteByte(c)
			continue
		}
		if c == '\r' && i+1 < len(seg) && seg[i+1] == '\n' {
			i++
		}
		b.WriteString(nl)
		rest := seg[i+1:]
		if strings.HasPrefix(rest, oldBase) {
			b.WriteString(newBase)
			i += len(oldBase)
		}
	}
	return b.String()
}
