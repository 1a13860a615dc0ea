package liveview

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/btrun/btrun/runtime"
)

// Text-level helpers of the editor: byte-range edits, lines and
// indentation, and escaping values for the file's encoding.

// textEdit replaces text[start:end] with repl. Edits of one operation do
// not overlap; inserts at one offset keep the order they were made in.
type textEdit struct {
	start, end int
	repl       string
}

// applyEdits returns text with the edits made.
func applyEdits(text string, edits []textEdit) string {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	b.Grow(len(text) + 256)
	at := 0
	for _, e := range edits {
		if e.start > at {
			b.WriteString(text[at:e.start])
		}
		b.WriteString(e.repl)
		at = max(at, e.end)
	}
	b.WriteString(text[at:])
	return b.String()
}

// lineStart is the offset where the line holding off starts.
func (d *srcDoc) lineStart(off int) int {
	ls := d.lines[d.line(off)-1]
	if ls == 0 {
		return d.bom
	}
	return ls
}

// startsLine reports whether only spaces and tabs come before off on its
// line.
func (d *srcDoc) startsLine(off int) bool {
	return strings.Trim(d.text[d.lineStart(off):off], " \t") == ""
}

// endsLine returns, when only spaces and tabs follow off on its line, the
// offset after that line's end (the text's end on the last line).
func (d *srcDoc) endsLine(off int) (int, bool) {
	i := off
	for i < len(d.text) && (d.text[i] == ' ' || d.text[i] == '\t') {
		i++
	}
	switch {
	case i == len(d.text):
		return i, true
	case strings.HasPrefix(d.text[i:], "\r\n"):
		return i + 2, true
	case d.text[i] == '\n' || d.text[i] == '\r':
		return i + 1, true
	}
	return off, false
}

// indentOf is the white space before n on its line ("" when n does not
// start its line).
func (d *srcDoc) indentOf(n *srcNode) string {
	if !d.startsLine(n.start) {
		return ""
	}
	return d.text[d.lineStart(n.start):n.start]
}

// newline is the text's line end: "\r\n" when its first line ends so.
func (d *srcDoc) newline() string {
	if i := strings.IndexAny(d.text, "\r\n"); i >= 0 && strings.HasPrefix(d.text[i:], "\r\n") {
		return "\r\n"
	} else if i >= 0 && d.text[i] == '\r' {
		return "\r"
	}
	return "\n"
}

// indentUnit is what the text indents a child by more than its parent: the
// most common difference between an element starting a line and its parent
// starting one; two spaces when the text shows none.
func (d *srcDoc) indentUnit() string {
	count := map[string]int{}
	var walk func(n *srcNode)
	walk = func(n *srcNode) {
		pi, pok := d.indentOf(n), d.startsLine(n.start)
		for _, c := range n.children {
			if c.kind != srcElem {
				continue
			}
			if ci := d.indentOf(c); pok && d.startsLine(c.start) && len(ci) > len(pi) && strings.HasPrefix(ci, pi) {
				count[ci[len(pi):]]++
			}
			walk(c)
		}
	}
	walk(d.root)
	best, n := "  ", 0
	for u, c := range count {
		if c > n || c == n && u < best {
			best, n = u, c
		}
	}
	return best
}

// escaper writes values into a file's text: markup characters as entities,
// and characters the file's encoding cannot hold as character references.
type escaper struct{ enc runtime.TextEncoding }

// checkChars refuses characters XML 1.0 cannot hold at all.
func checkChars(v string) error {
	for _, r := range v {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF || r == utf8.RuneError {
			return fmt.Errorf("the value holds %q, a character an XML file cannot hold", r)
		}
	}
	return nil
}

// attr escapes an attribute value for quotes quote.
func (e escaper) attr(v string, quote byte) (string, error) {
	if err := checkChars(v); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, r := range v {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '"' && quote == '"':
			b.WriteString("&quot;")
		case r == '\'' && quote == '\'':
			b.WriteString("&apos;")
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteString("&#" + strconv.Itoa(int(r)) + ";")
		default:
			e.char(&b, r)
		}
	}
	return b.String(), nil
}

// text escapes character data.
func (e escaper) text(v string) (string, error) {
	if err := checkChars(v); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, r := range v {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\r':
			b.WriteString("&#13;")
		default:
			e.char(&b, r)
		}
	}
	return b.String(), nil
}

func (e escaper) char(b *strings.Builder, r rune) {
	if e.enc.CanHold(r) {
		b.WriteRune(r)
	} else {
		b.WriteString("&#" + strconv.Itoa(int(r)) + ";")
	}
}
