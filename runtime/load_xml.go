package runtime

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file reads decoded tree-file text into a small element tree that
// keeps the position of every start tag. It checks only that the XML is
// well formed; what the elements mean is checked in load_check.go.

// maxDepth caps element nesting in a file and rule nesting through subtree
// files, so that no input can exhaust the stack. Real trees are a few dozen
// levels deep.
const maxDepth = 10000

// elem is one XML element as written.
type elem struct {
	name     string // with its prefix, as written: "action", "bt:action"
	attrs    []xml.Attr
	pos      Pos // the '<' of the start tag
	children []*elem
	text     []byte // the character data directly inside, concatenated
	textPos  Pos    // first non-white-space character of text; Line 0 when there is none
}

// lineCounter turns byte offsets into the decoded text into positions. Offsets
// arrive in increasing order, so it walks the text once.
type lineCounter struct {
	text      string
	file      string
	off       int
	line, col int
}

func newLineCounter(file, text string) *lineCounter {
	return &lineCounter{text: text, file: file, line: 1, col: 1}
}

// pos returns the position of the character at byte offset off.
func (c *lineCounter) pos(off int) Pos {
	if off < c.off {
		c.off, c.line, c.col = 0, 1, 1
	}
	off = min(off, len(c.text))
	if seg := c.text[c.off:off]; strings.IndexByte(seg, '\r') < 0 {
		// The common case, done with the fast string functions.
		if n := strings.Count(seg, "\n"); n > 0 {
			c.line += n
			c.col = 1
			seg = seg[strings.LastIndexByte(seg, '\n')+1:]
		}
		c.col += utf8.RuneCountInString(seg)
		c.off = off
		return Pos{File: c.file, Line: c.line, Col: c.col}
	}
	for c.off < off {
		b := c.text[c.off]
		size := 1
		switch {
		case b == '\n':
			c.line, c.col = c.line+1, 1
		case b == '\r':
			if c.off+1 < len(c.text) && c.text[c.off+1] == '\n' {
				c.col++ // the '\n' that follows ends the line
			} else {
				c.line, c.col = c.line+1, 1
			}
		case b < utf8.RuneSelf:
			c.col++
		default:
			_, size = utf8.DecodeRuneInString(c.text[c.off:])
			c.col++
		}
		c.off += size
	}
	return Pos{File: c.file, Line: c.line, Col: c.col}
}

// qname is an XML name as written, with its prefix.
func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// identityCharset satisfies encoding/xml when the declaration names a
// non-UTF-8 encoding: decodeText has already turned the text into UTF-8.
func identityCharset(_ string, r io.Reader) (io.Reader, error) { return r, nil }

// readXML parses the decoded text of one file and returns its root element.
// Problems that leave the file unusable (malformed XML) end the reading with
// one error; the others are added to errs and reading goes on. A nil root
// means the file holds no usable element.
func readXML(file, text string, errs *ErrorList) *elem {
	d := xml.NewDecoder(strings.NewReader(text))
	d.Strict = true
	d.CharsetReader = identityCharset
	lc := newLineCounter(file, text)
	add := func(pos Pos, format string, args ...any) {
		*errs = append(*errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Err: ErrInvalidTree})
	}

	var root *elem
	var stack []*elem
	// kids holds the children of the open elements, each element's after
	// its mark; an end tag moves them into one exact-size slice. Elements
	// come from slabs. Both save most of the allocations of big files.
	var kids []*elem
	var marks []int
	var slab []elem
	strayText := false
	for {
		start := int(d.InputOffset())
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			pos, msg := syntaxProblem(err, text, start, int(d.InputOffset()), lc)
			add(pos, "%s", msg)
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(slab) == cap(slab) {
				slab = make([]elem, 0, 256)
			}
			slab = append(slab, elem{name: qname(t.Name), attrs: t.Attr, pos: lc.pos(start)})
			e := &slab[len(slab)-1]
			switch {
			case len(stack) >= maxDepth:
				add(e.pos, "elements nested more than %d deep; a tree file may nest at most %d elements", maxDepth, maxDepth)
				return nil
			case len(stack) > 0:
				kids = append(kids, e)
			case root == nil:
				root = e
			default:
				add(e.pos, "second root element <%s> (the first is <%s> at %s); a tree file holds exactly one <behaviorTree> element",
					e.name, root.name, root.pos)
			}
			stack = append(stack, e)
			marks = append(marks, len(kids))
		case xml.EndElement:
			name := qname(t.Name)
			if len(stack) == 0 {
				add(lc.pos(start), "end tag </%s> without a start tag", name)
				return nil
			}
			top := stack[len(stack)-1]
			if name != top.name {
				add(lc.pos(start), "end tag </%s> does not match start tag <%s> at %s; expected </%s>",
					name, top.name, top.pos, top.name)
				return nil
			}
			mark := marks[len(marks)-1]
			if len(kids) > mark {
				top.children = slices.Clone(kids[mark:])
			}
			kids = kids[:mark]
			stack, marks = stack[:len(stack)-1], marks[:len(marks)-1]
		case xml.CharData:
			nonSpace := skipSpace(t) < len(t)
			if len(stack) == 0 {
				if nonSpace && !strayText {
					strayText = true // once per file is enough
					add(lc.pos(start+skipSpace(text[start:])), "text outside the <behaviorTree> element; only comments may appear there")
				}
				continue
			}
			top := stack[len(stack)-1]
			if nonSpace || len(top.text) > 0 {
				// Leading white space is trimmed anyway; skipping it saves
				// copying the indentation between rules.
				top.text = append(top.text, t...)
			}
			if nonSpace && top.textPos.Line == 0 {
				top.textPos = lc.pos(start + skipSpace(text[start:]))
			}
		case xml.ProcInst:
			if t.Target == "xml" && start != 0 {
				add(lc.pos(start), "the XML declaration <?xml ...?> must be at the very start of the file")
				return nil
			}
		case xml.Comment, xml.Directive:
			// ignored, as the format says
		}
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		add(top.pos, "<%s> is not closed before the end of the file; expected </%s>", top.name, top.name)
		return nil
	}
	if root == nil {
		add(lc.pos(len(text)), "the file holds no element; expected a <behaviorTree> element")
	}
	return root
}

// skipSpace returns the number of leading XML white-space bytes of s.
func skipSpace[T string | xml.CharData](s T) int {
	i := 0
	for i < len(s) && isXMLSpace(s[i]) {
		i++
	}
	return i
}

// syntaxProblem turns an encoding/xml error into a position and a message.
// start is the offset where the failing token began and now the decoder's
// offset after the failure.
func syntaxProblem(err error, text string, start, now int, lc *lineCounter) (Pos, string) {
	var se *xml.SyntaxError
	if !errors.As(err, &se) {
		return lc.pos(start), "malformed XML: " + strings.TrimPrefix(err.Error(), "xml: ")
	}
	if se.Msg == "unexpected EOF" {
		return lc.pos(start), "malformed XML: the file ends inside the markup that starts here"
	}
	// Point at the last character the decoder read: that is where it gave up.
	off := max(start, now-1)
	if strings.HasPrefix(se.Msg, "invalid character entity") {
		if i := strings.LastIndexByte(text[start:min(now, len(text))], '&'); i >= 0 {
			off = start + i
		}
		return lc.pos(off), "malformed XML: " + se.Msg + "; expected &amp; &lt; &gt; &quot; &apos; or a character reference like &#233;"
	}
	return lc.pos(off), "malformed XML: " + se.Msg
}
