package liveview

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Where the editor's operations put text: new children on lines of their
// own, indented as the file indents (or inline, where the file writes
// elements on one line), and rules removed or moved with the comments
// written just above them.

// fragment is markup to place: new markup (structural: indented afresh,
// one unit a level) or markup taken from the text (indented as it was,
// relative to oldBase, the indentation of its first line).
type fragment struct {
	text       string
	oldBase    string
	structural bool
}

func (e *opEditor) insert(at int, s string) {
	e.edits = append(e.edits, textEdit{at, at, s})
}

// newFragment reads markup the page sent: one element whose tag ok
// accepts. Characters the file's encoding cannot hold become character
// references.
func (e *opEditor) newFragment(markup string, ok func(tag string) bool, what string) (fragment, error) {
	markup = strings.Trim(markup, xmlSpaces)
	if markup == "" {
		return fragment{}, errors.New(`"xml" is required: ` + what)
	}
	d, err := scanSource(markup)
	if err != nil {
		var se *srcError
		errors.As(err, &se)
		return fragment{}, fmt.Errorf(`"xml" is not well formed at byte %d: %v`, se.off, err)
	}
	if len(d.nodes) != 1 || !ok(d.root.name) {
		return fragment{}, errors.New(`"xml": ` + what)
	}
	var edits []textEdit
	fit := func(start, end int) error {
		v := markup[start:end]
		var b strings.Builder
		changed := false
		for _, r := range v {
			if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
				return fmt.Errorf(`"xml" holds %q, a character an XML file cannot hold`, r)
			}
			if e.esc.enc.CanHold(r) {
				b.WriteRune(r)
				continue
			}
			changed = true
			b.WriteString("&#" + strconv.Itoa(int(r)) + ";")
		}
		if changed {
			edits = append(edits, textEdit{start, end, b.String()})
		}
		return nil
	}
	var walk func(n *srcNode) error
	walk = func(n *srcNode) error {
		switch n.kind {
		case srcText:
			return fit(n.start, n.end)
		case srcElem:
			if !isASCII(n.name) {
				return fmt.Errorf(`"xml": tag <%s> is not a tag of the format`, n.name)
			}
			for _, a := range n.attrs {
				if err := fit(a.valStart, a.valEnd); err != nil {
					return err
				}
			}
			for _, c := range n.children {
				if err := walk(c); err != nil {
					return err
				}
			}
		default: // a comment or CDATA section: references mean nothing there
			for _, r := range markup[n.start:n.end] {
				if !e.esc.enc.CanHold(r) {
					return fmt.Errorf(`"xml": a comment or CDATA section holds %q, which %s cannot hold`, r, e.esc.enc.Name())
				}
			}
		}
		return nil
	}
	if err := walk(d.root); err != nil {
		return fragment{}, err
	}
	return fragment{text: applyEdits(markup, edits), structural: true}, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// indented returns the fragment's text for a place whose first line is
// indented base: the line ends between its elements become the file's,
// and the lines after the first are indented base plus, for new markup,
// one unit a level, or, for markup from the text, what they had beyond its
// old base. Line ends inside values (a parameter's text) are kept.
func (e *opEditor) indented(f fragment, base string) string {
	d, err := scanSource(f.text)
	if err != nil {
		return f.text // new markup was read already; text from the file is well formed
	}
	var edits []textEdit
	// indent replaces the white space after each line end in [start, end),
	// at nesting depth depth (for new markup).
	indent := func(start, end int, depth func(lineEnd int) int) {
		s := f.text
		for i := start; i < end; i++ {
			if s[i] != '\n' && s[i] != '\r' {
				continue
			}
			nlEnd := i + 1
			if s[i] == '\r' && nlEnd < end && s[nlEnd] == '\n' {
				nlEnd++
			}
			ws := nlEnd
			for ws < end && (s[ws] == ' ' || s[ws] == '\t') {
				ws++
			}
			var ind string
			switch {
			case f.structural:
				ind = base + strings.Repeat(e.unit(), depth(ws))
			case strings.HasPrefix(s[nlEnd:ws], f.oldBase):
				ind = base + s[nlEnd+len(f.oldBase):ws]
			default:
				ind = s[nlEnd:ws]
			}
			edits = append(edits, textEdit{i, ws, e.nl + ind})
			i = ws - 1
		}
	}
	var walk func(n *srcNode, depth int)
	walk = func(n *srcNode, depth int) {
		switch n.kind {
		case srcElem:
			for k := range n.attrs { // line ends between attributes
				from := n.start + 1 + len(n.name)
				if k > 0 {
					from = n.attrs[k-1].end()
				}
				indent(from, n.attrs[k].start, func(int) int { return depth + 2 })
			}
			for k, c := range n.children {
				last := k == len(n.children)-1
				if c.kind != srcText {
					walk(c, depth+1)
					continue
				}
				t := f.text[c.start:c.end]
				lead := len(t) - len(strings.TrimLeft(t, xmlSpaces))
				trail := len(strings.TrimRight(t, xmlSpaces))
				if lead == len(t) { // white space between elements
					indent(c.start, c.end, func(int) int {
						if last {
							return depth
						}
						return depth + 1
					})
					continue
				}
				indent(c.start, c.start+lead, func(int) int { return depth + 1 })
				indent(c.start+trail, c.end, func(int) int { return depth })
			}
		case srcText:
			indent(n.start, n.end, func(int) int { return 0 })
		case srcComment:
			indent(n.start, n.end, func(int) int { return depth })
		}
	}
	for _, n := range d.nodes {
		walk(n, 0)
	}
	return applyEdits(f.text, edits)
}

// attachedStart is where n starts with the comments written just above it
// (each on lines of its own, no blank line between them and n).
func (e *opEditor) attachedStart(n *srcNode) int {
	start := n.start
	p := n.parent
	if p == nil || !e.doc.startsLine(n.start) {
		return start
	}
	k := 0
	for k < len(p.children) && p.children[k] != n {
		k++
	}
	for k--; k >= 0; k-- {
		c := p.children[k]
		switch c.kind {
		case srcText:
			t := e.doc.text[c.start:c.end]
			if strings.Trim(t, xmlSpaces) != "" || lineEnds(t) > 1 {
				return start
			}
		case srcComment:
			if !e.doc.startsLine(c.start) {
				return start
			}
			start = c.start
		default:
			return start
		}
	}
	return start
}

// lineEnds counts the line ends in t ("\r\n" is one).
func lineEnds(t string) int {
	return strings.Count(t, "\n") + strings.Count(t, "\r") - strings.Count(t, "\r\n")
}

// gapBefore is the white space between n (with its comments) and the
// sibling element before it, and whether there is such a sibling.
func (e *opEditor) gapBefore(n *srcNode) (string, bool) {
	start := e.attachedStart(n)
	p := n.parent
	if p == nil {
		return "", false
	}
	for k := len(p.children) - 1; k >= 0; k-- {
		c := p.children[k]
		if c.end > start {
			continue
		}
		if c.kind == srcText && strings.Trim(e.doc.text[c.start:c.end], xmlSpaces) == "" {
			return e.doc.text[c.start:c.end], k > 0
		}
		return "", c.kind != srcText
	}
	return "", false
}

// spaced reports whether n is set apart from the element before it by a
// blank line.
func (e *opEditor) spaced(n *srcNode) bool {
	gap, ok := e.gapBefore(n)
	return ok && lineEnds(gap) > 1
}

// removeNode removes n with its comments, and its lines when it has them
// to itself (with the blank line after them when that would leave two
// blank lines, or one at the start of its parent).
func (e *opEditor) removeNode(n *srcNode) {
	a, b := e.attachedStart(n), n.end
	if e.doc.startsLine(a) {
		if end, ok := e.doc.endsLine(b); ok {
			a, b = e.doc.lineStart(a), end
			if blankEnd, blank := e.doc.endsLine(b); blank && blankEnd > b && (!e.hasElementBefore(n) || e.spaced(n)) {
				b = blankEnd
			}
		}
	}
	e.edits = append(e.edits, textEdit{a, b, ""})
}

// hasElementBefore reports whether an element comes before n in its parent.
func (e *opEditor) hasElementBefore(n *srcNode) bool {
	if n.parent == nil {
		return false
	}
	for _, c := range n.parent.children {
		if c == n {
			return false
		}
		if c.kind == srcElem {
			return true
		}
	}
	return false
}

// insertBefore places f just before y (and the comments above it), set
// apart by a blank line when y is from the element before it.
func (e *opEditor) insertBefore(y *srcNode, f fragment) {
	at := e.attachedStart(y)
	if !e.doc.startsLine(at) {
		e.insert(at, e.indented(f, ""))
		return
	}
	ls := e.doc.lineStart(at)
	base := e.doc.text[ls:at]
	after := e.nl
	if e.spaced(y) {
		after += e.nl
	}
	e.insert(ls, base+e.indented(f, base)+after)
}

// insertAfter places f just after x, set apart by a blank line when x is
// from the element before it.
func (e *opEditor) insertAfter(x *srcNode, f fragment) {
	if e.doc.startsLine(x.start) {
		if end, ok := e.doc.endsLine(x.end); ok {
			base := e.doc.indentOf(x)
			before := ""
			if e.spaced(x) {
				before = e.nl
			}
			if end == len(e.doc.text) && !strings.HasSuffix(e.doc.text, "\n") && !strings.HasSuffix(e.doc.text, "\r") {
				e.insert(end, e.nl+before+base+e.indented(f, base))
				return
			}
			e.insert(end, before+base+e.indented(f, base)+e.nl)
			return
		}
	}
	e.insert(x.end, e.indented(f, ""))
}

// placeChild places f inside p: after child after, else first.
func (e *opEditor) placeChild(p, after *srcNode, f fragment) {
	if after != nil {
		e.insertAfter(after, f)
		return
	}
	for _, c := range p.children {
		if c.kind == srcElem {
			e.insertBefore(c, f)
			return
		}
	}
	e.insertOnly(p, f)
}

// insertOnly places f in p, which has no element inside.
func (e *opEditor) insertOnly(p *srcNode, f fragment) {
	d := e.doc
	block := d.startsLine(p.start)
	base := d.indentOf(p)
	inner := base + e.unit()
	if p.selfClose {
		from := p.start + 1 + len(p.name)
		if len(p.attrs) > 0 {
			from = p.attrs[len(p.attrs)-1].end()
		}
		if block {
			e.edits = append(e.edits, textEdit{from, p.end, ">" + e.nl + inner + e.indented(f, inner) + e.nl + base + "</" + p.name + ">"})
		} else {
			e.edits = append(e.edits, textEdit{from, p.end, ">" + e.indented(f, "") + "</" + p.name + ">"})
		}
		return
	}
	switch {
	case block && d.startsLine(p.closeStart) && d.lineStart(p.closeStart) > p.start:
		e.insert(d.lineStart(p.closeStart), inner+e.indented(f, inner)+e.nl)
	case block && strings.Trim(d.text[p.tagEnd:p.closeStart], xmlSpaces) == "":
		e.edits = append(e.edits, textEdit{p.tagEnd, p.closeStart, e.nl + inner + e.indented(f, inner) + e.nl + base})
	default:
		e.insert(p.closeStart, e.indented(f, ""))
	}
}
