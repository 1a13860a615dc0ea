package liveview

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The editor's reading of a tree file's text: every node (element,
// text, comment, CDATA, processing instruction, doctype) with the byte
// offsets where it starts and ends, and for an element where its start
// tag ends, where its end tag starts and where each attribute's name and
// value are. Edits (editor_ops.go) are byte-range replacements computed
// from these offsets, so everything they do not touch stays byte for byte
// as it was: comments, attribute order and quotes, indentation, line ends.
//
// The scanner reads well-formed XML as tree files are written; what it
// does not read (malformed markup) is an error with its line and column,
// and the editor then offers only the source text.

type srcKind uint8

const (
	srcElem srcKind = iota
	srcText
	srcComment
	srcCData
	srcPI        // <?...?>, the XML declaration included
	srcDirective // <!DOCTYPE ...> and other <!...> directives
)

// srcAttr is one attribute as written: name at [start, start+len(name)),
// value between the quotes at [valStart, valEnd).
type srcAttr struct {
	name             string
	start            int
	valStart, valEnd int
	quote            byte
}

// end is the offset after the attribute's closing quote.
func (a *srcAttr) end() int { return a.valEnd + 1 }

// srcNode is one node of the text.
type srcNode struct {
	kind       srcKind
	start, end int // the whole node, end tag included
	parent     *srcNode
	// Elements only.
	name       string
	attrs      []srcAttr
	tagEnd     int  // after the start tag's '>'
	selfClose  bool // <x/>
	closeStart int  // the '<' of the end tag; tagEnd-2 for <x/> (the "/>")
	children   []*srcNode
}

// srcDoc is a scanned text.
type srcDoc struct {
	text  string
	nodes []*srcNode // the top level: prolog, the root element, what follows
	root  *srcNode   // the document element
	lines []int      // the offset where each line starts
	bom   int        // 3 when the text starts with U+FEFF, else 0
	// lastPos is the last offset pos was asked, and its position.
	lastPos struct{ off, line, col int }
}

// srcError is text the scanner cannot read, at a byte offset.
type srcError struct {
	off int
	msg string
}

func (e *srcError) Error() string { return e.msg }

// scanSource reads text. The error is a *srcError.
func scanSource(text string) (*srcDoc, error) {
	d := &srcDoc{text: text}
	if strings.HasPrefix(text, "\uFEFF") {
		d.bom = len("\uFEFF")
	}
	d.lines = append(d.lines, 0)
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			d.lines = append(d.lines, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue
			}
			d.lines = append(d.lines, i+1)
		}
	}
	s := scanState{d: d, s: text}
	if err := s.run(); err != nil {
		return nil, err
	}
	return d, nil
}

type scanState struct {
	d     *srcDoc
	s     string
	stack []*srcNode // open elements
}

func (s *scanState) fail(off int, format string, args ...any) error {
	return &srcError{off: off, msg: fmt.Sprintf(format, args...)}
}

// add appends a node to the open element, or to the top level.
func (s *scanState) add(n *srcNode) {
	if len(s.stack) > 0 {
		p := s.stack[len(s.stack)-1]
		n.parent = p
		p.children = append(p.children, n)
		return
	}
	s.d.nodes = append(s.d.nodes, n)
}

func (s *scanState) run() error {
	text := s.s
	i := s.d.bom
	for i < len(text) {
		if text[i] != '<' {
			end := strings.IndexByte(text[i:], '<')
			if end < 0 {
				end = len(text)
			} else {
				end += i
			}
			if len(s.stack) == 0 && strings.Trim(text[i:end], xmlSpaces) != "" {
				return s.fail(i, "text outside the root element")
			}
			if j := strings.IndexAny(text[i:end], "&"); j >= 0 {
				if _, err := unescapeXML(text[i:end]); err != nil {
					return s.fail(i+j, "%v", err)
				}
			}
			s.add(&srcNode{kind: srcText, start: i, end: end})
			i = end
			continue
		}
		var err error
		switch {
		case strings.HasPrefix(text[i:], "<!--"):
			i, err = s.until(i, srcComment, "-->", "a comment")
		case strings.HasPrefix(text[i:], "<![CDATA["):
			if len(s.stack) == 0 {
				return s.fail(i, "CDATA outside the root element")
			}
			i, err = s.until(i, srcCData, "]]>", "a CDATA section")
		case strings.HasPrefix(text[i:], "<?"):
			i, err = s.until(i, srcPI, "?>", "a processing instruction")
		case strings.HasPrefix(text[i:], "<!"):
			i, err = s.directive(i)
		case strings.HasPrefix(text[i:], "</"):
			i, err = s.endTag(i)
		default:
			i, err = s.startTag(i)
		}
		if err != nil {
			return err
		}
	}
	if len(s.stack) > 0 {
		e := s.stack[len(s.stack)-1]
		return s.fail(e.start, "<%s> is not closed", e.name)
	}
	if s.d.root == nil {
		return s.fail(len(text), "the text holds no element")
	}
	return nil
}

// until reads a node that ends with the first occurrence of end.
func (s *scanState) until(i int, kind srcKind, end, what string) (int, error) {
	j := strings.Index(s.s[i+2:], end)
	if j < 0 {
		return 0, s.fail(i, "%s that is not closed (no %s)", what, end)
	}
	stop := i + 2 + j + len(end)
	if kind == srcComment && (stop-len(end) < i+4) {
		return 0, s.fail(i, "a comment that is not closed (no -->)")
	}
	s.add(&srcNode{kind: kind, start: i, end: stop})
	return stop, nil
}

// directive reads <!DOCTYPE ...> (with an internal subset in brackets) or
// another <!...> directive, as encoding/xml reads one: the character after
// "<!" is taken as it is, then the directive ends at the first '>' outside
// quotes and outside the '<' '>' pairs it nests, a "<!--" in it starting a
// comment that ends at the first "--" (which must be followed by '>').
func (s *scanState) directive(i int) (int, error) {
	if i+2 >= len(s.s) || s.s[i+2] == '-' || s.s[i+2] == '[' {
		return 0, s.fail(i, "a <! that starts no comment, CDATA section or directive")
	}
	depth := 0
	var quote byte
	for j := i + 3; j < len(s.s); j++ {
		c := s.s[j]
		switch {
		case quote == 0 && c == '>' && depth == 0:
			s.add(&srcNode{kind: srcDirective, start: i, end: j + 1})
			return j + 1, nil
		case c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			depth--
		case strings.HasPrefix(s.s[j:], "<!--"):
			k := strings.Index(s.s[j+4:], "--")
			if k < 0 || j+4+k+2 >= len(s.s) || s.s[j+4+k+2] != '>' {
				return 0, s.fail(j, "a comment in a <! directive that is not closed (no -->), or that holds \"--\"")
			}
			j += 4 + k + 2 // the '>' of "-->"
		case c == '<':
			depth++
		}
	}
	return 0, s.fail(i, "a <! directive that is not closed")
}

// name reads an XML name at i and returns its end (i when there is none).
func (s *scanState) name(i int) int {
	j := i
	for j < len(s.s) {
		r, size := utf8.DecodeRuneInString(s.s[j:])
		if !isNameRune(r, j == i) {
			break
		}
		j += size
	}
	return j
}

func isNameRune(r rune, first bool) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_', r == ':':
		return true
	case r >= '0' && r <= '9', r == '-', r == '.':
		return !first
	case r == utf8.RuneError:
		return false
	}
	return r >= 0x80 && r != 0xFEFF
}

func (s *scanState) spaces(i int) int {
	for i < len(s.s) && strings.IndexByte(xmlSpaces, s.s[i]) >= 0 {
		i++
	}
	return i
}

func (s *scanState) startTag(i int) (int, error) {
	if len(s.stack) == 0 && s.d.root != nil {
		return 0, s.fail(i, "a second root element")
	}
	ne := s.name(i + 1)
	if ne == i+1 {
		return 0, s.fail(i, "'<' that starts no tag (write &lt; for a '<' in text)")
	}
	n := &srcNode{kind: srcElem, start: i, name: s.s[i+1 : ne]}
	j := ne
	for {
		k := s.spaces(j)
		if k >= len(s.s) {
			return 0, s.fail(i, "the start tag <%s is not closed", n.name)
		}
		switch {
		case s.s[k] == '>':
			n.tagEnd = k + 1
			s.add(n)
			if len(s.stack) >= maxSrcDepth {
				return 0, s.fail(i, "elements nested more than %d deep", maxSrcDepth)
			}
			s.stack = append(s.stack, n)
			if s.d.root == nil {
				s.d.root = n
			}
			return k + 1, nil
		case strings.HasPrefix(s.s[k:], "/>"):
			n.tagEnd, n.selfClose, n.closeStart, n.end = k+2, true, k, k+2
			s.add(n)
			if s.d.root == nil {
				s.d.root = n
			}
			return k + 2, nil
		}
		if k == j {
			return 0, s.fail(k, "expected a space, '>' or '/>' in the start tag <%s", n.name)
		}
		ae := s.name(k)
		if ae == k {
			return 0, s.fail(k, "unexpected %q in the start tag <%s", s.s[k], n.name)
		}
		a := srcAttr{name: s.s[k:ae], start: k}
		for _, b := range n.attrs {
			if b.name == a.name {
				return 0, s.fail(k, "attribute %s appears twice on <%s>", a.name, n.name)
			}
		}
		k = s.spaces(ae)
		if k >= len(s.s) || s.s[k] != '=' {
			return 0, s.fail(k, "attribute %s of <%s> has no value (write %s=\"...\")", a.name, n.name, a.name)
		}
		k = s.spaces(k + 1)
		if k >= len(s.s) || s.s[k] != '"' && s.s[k] != '\'' {
			return 0, s.fail(k, "the value of attribute %s of <%s> is not in quotes", a.name, n.name)
		}
		a.quote = s.s[k]
		end := strings.IndexByte(s.s[k+1:], a.quote)
		if end < 0 {
			return 0, s.fail(k, "the value of attribute %s of <%s> is not closed", a.name, n.name)
		}
		a.valStart, a.valEnd = k+1, k+1+end
		val := s.s[a.valStart:a.valEnd]
		if l := strings.IndexByte(val, '<'); l >= 0 {
			return 0, s.fail(a.valStart+l, "'<' in the value of attribute %s (write &lt;)", a.name)
		}
		if _, err := unescapeXML(val); err != nil {
			return 0, s.fail(a.valStart, "attribute %s: %v", a.name, err)
		}
		n.attrs = append(n.attrs, a)
		j = a.end()
	}
}

func (s *scanState) endTag(i int) (int, error) {
	ne := s.name(i + 2)
	k := s.spaces(ne)
	if k >= len(s.s) || s.s[k] != '>' {
		return 0, s.fail(i, "the end tag </%s is not closed", s.s[i+2:ne])
	}
	name := s.s[i+2 : ne]
	if len(s.stack) == 0 {
		return 0, s.fail(i, "end tag </%s> without a start tag", name)
	}
	open := s.stack[len(s.stack)-1]
	if open.name != name {
		return 0, s.fail(i, "end tag </%s> does not close <%s> (line %d)", name, open.name, s.d.line(open.start))
	}
	open.closeStart, open.end = i, k+1
	s.stack = s.stack[:len(s.stack)-1]
	return k + 1, nil
}

const xmlSpaces = " \t\r\n"

// maxSrcDepth bounds the nesting of elements the editor reads, as the
// loader bounds it (the editor's reading is recursive).
const maxSrcDepth = 10000

// unescapeXML replaces the predefined entities and character references
// and reads "\r\n" and "\r" as "\n", as encoding/xml does.
func unescapeXML(s string) (string, error) {
	if !strings.ContainsAny(s, "&\r") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\r':
			b.WriteByte('\n')
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			continue
		case '&':
		default:
			b.WriteByte(c)
			continue
		}
		semi := strings.IndexByte(s[i:], ';')
		if semi < 0 {
			return "", fmt.Errorf("'&' that starts no entity (write &amp;)")
		}
		ent := s[i+1 : i+semi]
		switch ent {
		case "lt":
			b.WriteByte('<')
		case "gt":
			b.WriteByte('>')
		case "amp":
			b.WriteByte('&')
		case "apos":
			b.WriteByte('\'')
		case "quot":
			b.WriteByte('"')
		default:
			if !strings.HasPrefix(ent, "#") {
				return "", fmt.Errorf("unknown entity &%s; (tree files know &lt; &gt; &amp; &apos; &quot; and &#N;)", ent)
			}
			var n uint64
			var err error
			if strings.HasPrefix(ent, "#x") {
				n, err = strconv.ParseUint(ent[2:], 16, 32)
			} else {
				n, err = strconv.ParseUint(ent[1:], 10, 32)
			}
			if err != nil || n == 0 || n > utf8.MaxRune || !utf8.ValidRune(rune(n)) {
				return "", fmt.Errorf("bad character reference &%s;", ent)
			}
			b.WriteRune(rune(n))
		}
		i += semi
	}
	return b.String(), nil
}

// line is the line (from 1) of a byte offset.
func (d *srcDoc) line(off int) int {
	lo, hi := 0, len(d.lines)
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if d.lines[m] <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return lo + 1
}

// pos is the line and column (in characters, as the loader counts them) of
// a byte offset. Offsets asked in document order on one line are counted
// from the last one: a file on one long line is read in linear time.
func (d *srcDoc) pos(off int) (line, col int) {
	line = d.line(off)
	start, col := d.lines[line-1], 1
	if line == 1 {
		start = d.bom
	}
	if last := &d.lastPos; last.line == line && last.off <= off && last.off >= start {
		start, col = last.off, last.col
	}
	col += utf8.RuneCountInString(d.text[start:off])
	d.lastPos.off, d.lastPos.line, d.lastPos.col = off, line, col
	return line, col
}

// attr returns an element's attribute by name.
func (n *srcNode) attr(name string) (*srcAttr, bool) {
	for i := range n.attrs {
		if n.attrs[i].name == name {
			return &n.attrs[i], true
		}
	}
	return nil, false
}

// attrValue returns an attribute's value, entities replaced.
func (d *srcDoc) attrValue(a *srcAttr) string {
	v, _ := unescapeXML(d.text[a.valStart:a.valEnd]) // checked when scanned
	return v
}

// textOf is an element's text as the loader reads it: its text and CDATA
// children, entities replaced, trimmed.
func (d *srcDoc) textOf(n *srcNode) string {
	var b strings.Builder
	for _, c := range n.children {
		switch c.kind {
		case srcText:
			v, _ := unescapeXML(d.text[c.start:c.end])
			b.WriteString(v)
		case srcCData:
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(d.text[c.start+9:c.end-3], "\r\n", "\n"), "\r", "\n"))
		}
	}
	return strings.Trim(b.String(), xmlSpaces)
}

// elements returns an element's element children.
func (n *srcNode) elements() []*srcNode {
	var out []*srcNode
	for _, c := range n.children {
		if c.kind == srcElem {
			out = append(out, c)
		}
	}
	return out
}
