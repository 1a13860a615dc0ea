package runtime

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// This file reads decoded tree-file text into a small element tree that
// keeps the position of every start tag. It checks only that the XML is
// well formed; what the elements mean is checked in load_check.go.
//
// Two readers feed one builder (xmlBuilder): a scanner for the XML that
// tree files are written in (load_scan.go), and encoding/xml. The scanner
// reads a file only as far as it is sure encoding/xml reads it the same
// way; at anything else (malformed markup, a DOCTYPE, a name that is not
// ASCII) it gives up, and encoding/xml reads the file from its start. So
// every problem is reported as encoding/xml finds it, and the scanner only
// makes reading the files that are well formed faster.

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
	text     string // the character data directly inside, concatenated
	textPos  Pos    // first non-white-space character of text; Line 0 when there is none
	// node is set on a rule that was checked when its end tag was read;
	// the elements inside it are gone then (children is nil).
	node *node
}

// lineCounter turns byte offsets into the decoded text into positions. Offsets
// arrive in increasing order, so it walks the text once.
type lineCounter struct {
	text      []byte
	file      string
	off       int
	line, col int
}

func newLineCounter(file string, text []byte) lineCounter {
	return lineCounter{text: text, file: file, line: 1, col: 1}
}

// pos returns the position of the character at byte offset off.
func (c *lineCounter) pos(off int) Pos {
	if off < c.off {
		c.off, c.line, c.col = 0, 1, 1
	}
	off = min(off, len(c.text))
	if seg := c.text[c.off:off]; bytes.IndexByte(seg, '\r') < 0 {
		// The common case, done with the fast byte functions.
		if n := bytes.Count(seg, []byte{'\n'}); n > 0 {
			c.line += n
			c.col = 1
			seg = seg[bytes.LastIndexByte(seg, '\n')+1:]
		}
		c.col += utf8.RuneCount(seg)
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
			_, size = utf8.DecodeRune(c.text[c.off:])
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

// xmlReading chooses how readXML reads; the zero value is the fast way.
// The others exist for tests, which hold the ways to the same results.
type xmlReading struct {
	noScan   bool // read with encoding/xml only
	noStream bool // check the rules after reading the whole file, keeping every element
	// comments keeps comments as commentTag elements and checks nothing
	// (btrun convert reads with it, through decodeXML: convert.go).
	comments bool
}

// readXML parses the decoded text of one file and returns its root element
// and the checker that checked its rules while they were read (see
// xmlBuilder). Problems that leave the file unusable (malformed XML) end the
// reading with one error; the others are added to errs and reading goes
// on. A nil root means the file holds no usable element; the checker's
// problems are then dropped. Strings are made by strs.
func readXML(file string, text []byte, strs *strTable, errs *ErrorList, how xmlReading, custom customTags) (*elem, *checker) {
	begin := func() (*checker, *xmlBuilder) {
		c := &checker{errs: new(ErrorList), custom: custom}
		return c, newXMLBuilder(file, text, strs, c, how)
	}
	c, b := begin()
	var root *elem
	scanned := false
	if !how.noScan {
		root, scanned = scanXML(b)
	}
	if !scanned { // the scanner gave up: what it made is dropped
		c, b = begin()
		root = decodeXML(b)
	}
	*errs = append(*errs, b.errs...)
	if root == nil {
		return nil, nil
	}
	return root, c
}

// decodeXML reads the builder's text with encoding/xml.
func decodeXML(b *xmlBuilder) *elem {
	text := b.text
	d := xml.NewDecoder(bytes.NewReader(text))
	d.Strict = true
	d.CharsetReader = identityCharset
	for {
		start := int(d.InputOffset())
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			pos, msg := syntaxProblem(err, text, start, int(d.InputOffset()), &b.lc)
			b.add(pos, "%s", msg)
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !b.start(qname(t.Name), t.Attr, start) {
				return nil
			}
		case xml.EndElement:
			if !b.end(qname(t.Name), start) {
				return nil
			}
		case xml.CharData:
			b.charData(t, start)
		case xml.ProcInst:
			if t.Target == "xml" && !b.xmlDecl(start) {
				return nil
			}
		case xml.Comment:
			if b.comments {
				b.comment(string(t), start)
			}
		case xml.Directive:
			// ignored, as the format says
		}
	}
	return b.finish()
}

// xmlBuilder makes the element tree from the tokens of one file, in
// order, as a reader finds them. A method that returns false has met a
// problem that ends the reading (reported in errs): the file has no root.
//
// The checker checks each rule as soon as its end tag is read (when it
// will check it as a rule at all: checker.checksRule), and the elements
// inside the rule are dropped then, their slab space handed out again. So
// reading a file holds the open elements and the children of each, not
// the whole file; checker.checkFile finds the rules checked at the end.
type xmlBuilder struct {
	text  []byte
	lc    lineCounter
	strs  *strTable
	errs  ErrorList
	check *checker // nil: no rule is checked while reading

	root  *elem
	stack []*elem   // the open elements
	marks []xmlMark // per open element
	// kids holds the children of the open elements, each element's after
	// its mark, and textBuf their text; an end tag moves them into the
	// element. Elements, attributes and children lists come from slabs.
	kids      []*elem
	textBuf   []byte
	strayText bool
	comments  bool    // xmlReading.comments
	outer     []*elem // with comments: those outside the root element
	elems     slab[elem]
	kidLists  slab[*elem]
	attrLists slab[xml.Attr]
}

// xmlMark is where an open element's children start in kids and its text
// in textBuf, whether the checker checks it as a rule (and its kind), and
// where the slabs stood after it was made: the elements inside it come
// after that.
type xmlMark struct {
	kids, text  int
	rule        bool
	kind        Kind
	elems, kidL slabMark
	attrL       slabMark
}

func newXMLBuilder(file string, text []byte, strs *strTable, c *checker, how xmlReading) *xmlBuilder {
	b := &xmlBuilder{
		text: text, lc: newLineCounter(file, text), strs: strs, check: c,
		elems: newSlab[elem](32, 256), kidLists: newSlab[*elem](64, 1024), attrLists: newSlab[xml.Attr](64, 512),
	}
	if how.noStream || how.comments {
		b.check = nil
	}
	b.comments = how.comments
	return b
}

func (b *xmlBuilder) add(pos Pos, format string, args ...any) {
	b.errs = append(b.errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Err: ErrInvalidTree})
}

// start opens an element whose '<' is at offset off.
func (b *xmlBuilder) start(name string, attrs []xml.Attr, off int) bool {
	e := &b.elems.take(1)[0]
	*e = elem{name: name, attrs: attrs, pos: b.lc.pos(off)}
	var m xmlMark
	if parent := b.top(); parent != nil && b.check != nil {
		pm := &b.marks[len(b.marks)-1]
		m.kind, m.rule = b.check.checksRule(name, parent, parent == b.root, pm.rule, pm.kind)
	}
	m.elems, m.kidL, m.attrL = b.elems.mark(), b.kidLists.mark(), b.attrLists.mark()
	switch {
	case len(b.stack) >= maxDepth:
		b.add(e.pos, "elements nested more than %d deep; a tree file may nest at most %d elements", maxDepth, maxDepth)
		return false
	case len(b.stack) > 0:
		b.kids = append(b.kids, e)
	case b.root == nil:
		b.root = e
	default:
		b.add(e.pos, "second root element <%s> (the first is <%s> at %s); a tree file holds exactly one <behaviorTree> element",
			e.name, b.root.name, b.root.pos)
	}
	m.kids, m.text = len(b.kids), len(b.textBuf)
	b.stack = append(b.stack, e)
	b.marks = append(b.marks, m)
	return true
}

// comment keeps a comment whose '<' is at offset off (xmlReading.comments).
func (b *xmlBuilder) comment(text string, off int) {
	e := &elem{name: commentTag, text: text, pos: b.lc.pos(off)}
	if len(b.stack) > 0 {
		b.kids = append(b.kids, e)
	} else {
		b.outer = append(b.outer, e)
	}
}

// top is the innermost open element, nil when there is none.
func (b *xmlBuilder) top() *elem {
	if len(b.stack) == 0 {
		return nil
	}
	return b.stack[len(b.stack)-1]
}

// end closes the innermost element with the end tag of name at offset off.
func (b *xmlBuilder) end(name string, off int) bool {
	top := b.top()
	if top == nil {
		b.add(b.lc.pos(off), "end tag </%s> without a start tag", name)
		return false
	}
	if name != top.name {
		b.add(b.lc.pos(off), "end tag </%s> does not match start tag <%s> at %s; expected </%s>",
			name, top.name, top.pos, top.name)
		return false
	}
	m := b.marks[len(b.marks)-1]
	if len(b.kids) > m.kids {
		top.children = b.kidList(b.kids[m.kids:])
		b.kids = b.kids[:m.kids]
	}
	if len(b.textBuf) > m.text {
		top.text = b.strs.intern(b.textBuf[m.text:])
		b.textBuf = b.textBuf[:m.text]
	}
	if m.rule {
		top.node = b.check.rule(top, m.kind)
		top.children = nil
		b.elems.release(m.elems)
		b.kidLists.release(m.kidL)
		b.attrLists.release(m.attrL)
	}
	b.stack, b.marks = b.stack[:len(b.stack)-1], b.marks[:len(b.marks)-1]
	return true
}

// charData adds character data that starts at offset off (the start of
// the markup for a CDATA section); data is decoded.
func (b *xmlBuilder) charData(data []byte, off int) {
	nonSpace := skipSpace(data) < len(data)
	top := b.top()
	if top == nil {
		if nonSpace && !b.strayText {
			b.strayText = true // once per file is enough
			b.add(b.lc.pos(off+skipSpace(b.text[off:])), "text outside the <behaviorTree> element; only comments may appear there")
		}
		return
	}
	if nonSpace || len(b.textBuf) > b.marks[len(b.marks)-1].text {
		// Leading white space is trimmed anyway; skipping it saves
		// copying the indentation between rules.
		b.textBuf = append(b.textBuf, data...)
	}
	if nonSpace && top.textPos.Line == 0 {
		top.textPos = b.lc.pos(off + skipSpace(b.text[off:]))
	}
}

// xmlDecl checks an <?xml ...?> declaration at offset off.
func (b *xmlBuilder) xmlDecl(off int) bool {
	if off != 0 {
		b.add(b.lc.pos(off), "the XML declaration <?xml ...?> must be at the very start of the file")
		return false
	}
	return true
}

// finish ends the file and returns its root element.
func (b *xmlBuilder) finish() *elem {
	if top := b.top(); top != nil {
		b.add(top.pos, "<%s> is not closed before the end of the file; expected </%s>", top.name, top.name)
		return nil
	}
	if b.root == nil {
		b.add(b.lc.pos(len(b.text)), "the file holds no element; expected a <behaviorTree> element")
	}
	return b.root
}

// kidList copies an element's children into the children slab.
func (b *xmlBuilder) kidList(kids []*elem) []*elem {
	l := b.kidLists.take(len(kids))
	copy(l, kids)
	return l
}

// attrList copies a start tag's attributes into the attribute slab.
func (b *xmlBuilder) attrList(attrs []xml.Attr) []xml.Attr {
	if len(attrs) == 0 {
		return nil
	}
	l := b.attrLists.take(len(attrs))
	copy(l, attrs)
	return l
}

// skipSpace returns the number of leading XML white-space bytes of s.
func skipSpace[T ~string | ~[]byte](s T) int {
	i := 0
	for i < len(s) && isXMLSpace(s[i]) {
		i++
	}
	return i
}

// syntaxProblem turns an encoding/xml error into a position and a message.
// start is the offset where the failing token began and now the decoder's
// offset after the failure.
func syntaxProblem(err error, text []byte, start, now int, lc *lineCounter) (Pos, string) {
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
		if i := bytes.LastIndexByte(text[start:min(now, len(text))], '&'); i >= 0 {
			off = start + i
		}
		return lc.pos(off), "malformed XML: " + se.Msg + "; expected &amp; &lt; &gt; &quot; &apos; or a character reference like &#233;"
	}
	return lc.pos(off), "malformed XML: " + se.Msg
}
