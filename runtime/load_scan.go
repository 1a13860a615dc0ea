package runtime

import (
	"bytes"
	"encoding/xml"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is the fast reader of tree files: a scanner for the XML they
// are written in (elements, attributes, text, the five predefined entities
// and character references, comments, CDATA, the XML declaration, any
// line ends), with no allocation per token. It reads as encoding/xml's
// RawToken does in strict mode, token for token: the same names, the same
// attribute values and text (entities replaced, "\r\n" and "\r" read as
// "\n"), the same offsets. Wherever encoding/xml would report an error, and
// wherever this scanner is not sure to read as encoding/xml does (a
// DOCTYPE or other directive, a name with a character outside ASCII, a
// processing instruction it does not know, a character reference with more
// than seven digits), it gives up and the file is read by encoding/xml
// (load_xml.go), which reports the problems. FuzzScanXML holds the two
// readers to the same results.

// scanStatus is what reading one piece of markup came to.
type scanStatus uint8

const (
	scanOn     scanStatus = iota // read: go on after it
	scanStop                     // the builder met a problem that ends the reading
	scanGiveUp                   // not read: encoding/xml must read the file
)

// scanXML reads the builder's text. ok is false when the scanner gave up:
// the builder is then in an unknown state and must be dropped.
func scanXML(b *xmlBuilder) (root *elem, ok bool) {
	sc := scanner{b: b, s: b.text}
	s := sc.s
	for i := 0; i < len(s); {
		if s[i] != '<' {
			end := len(s)
			if j := bytes.IndexByte(s[i+1:], '<'); j >= 0 {
				end = i + 1 + j
			}
			data, ok := sc.chars(s[i:end], charText)
			if !ok {
				return nil, false
			}
			b.charData(data, i)
			i = end
			continue
		}
		var st scanStatus
		switch {
		case i+1 >= len(s):
			st = scanGiveUp
		case s[i+1] == '/':
			i, st = sc.endTag(i)
		case s[i+1] == '?':
			i, st = sc.procInst(i)
		case s[i+1] == '!':
			i, st = sc.bang(i)
		default:
			i, st = sc.startTag(i)
		}
		switch st {
		case scanStop:
			return nil, true
		case scanGiveUp:
			return nil, false
		}
	}
	return b.finish(), true
}

type scanner struct {
	b     *xmlBuilder
	s     []byte
	attrs []xml.Attr // the attributes of the start tag being read
	buf   []byte     // text whose entities or line ends were replaced
}

// startTag reads the start tag whose '<' is at s[i], and returns the
// offset after it.
func (sc *scanner) startTag(i int) (int, scanStatus) {
	s, b := sc.s, sc.b
	nameEnd, ok := scanName(s, i+1, true)
	if !ok {
		return 0, scanGiveUp
	}
	name := b.strs.intern(s[i+1 : nameEnd])
	sc.attrs = sc.attrs[:0]
	empty := false
	j := nameEnd
	for {
		j = skipSpaceAt(s, j)
		if j >= len(s) {
			return 0, scanGiveUp
		}
		if s[j] == '/' {
			if j+1 >= len(s) || s[j+1] != '>' {
				return 0, scanGiveUp
			}
			empty = true
			j += 2
			break
		}
		if s[j] == '>' {
			j++
			break
		}
		attrEnd, ok := scanName(s, j, true)
		if !ok {
			return 0, scanGiveUp
		}
		k := skipSpaceAt(s, attrEnd)
		if k >= len(s) || s[k] != '=' {
			return 0, scanGiveUp
		}
		k = skipSpaceAt(s, k+1)
		if k >= len(s) || s[k] != '"' && s[k] != '\'' {
			return 0, scanGiveUp
		}
		valEnd := bytes.IndexByte(s[k+1:], s[k])
		if valEnd < 0 {
			return 0, scanGiveUp
		}
		valEnd += k + 1
		val, ok := sc.chars(s[k+1:valEnd], charAttr)
		if !ok {
			return 0, scanGiveUp
		}
		sc.attrs = append(sc.attrs, xml.Attr{Name: splitName(b.strs.intern(s[j:attrEnd])), Value: b.strs.intern(val)})
		j = valEnd + 1
	}
	if !b.start(name, b.attrList(sc.attrs), i) {
		return 0, scanStop
	}
	if empty && !b.end(name, j) {
		return 0, scanStop
	}
	return j, scanOn
}

// endTag reads the end tag whose '<' is at s[i].
func (sc *scanner) endTag(i int) (int, scanStatus) {
	s, b := sc.s, sc.b
	nameEnd, ok := scanName(s, i+2, true)
	if !ok {
		return 0, scanGiveUp
	}
	j := skipSpaceAt(s, nameEnd)
	if j >= len(s) || s[j] != '>' {
		return 0, scanGiveUp
	}
	var name string
	if top := b.top(); top != nil && string(s[i+2:nameEnd]) == top.name {
		name = top.name
	} else {
		name = b.strs.intern(s[i+2 : nameEnd])
	}
	if !b.end(name, i) {
		return 0, scanStop
	}
	return j + 1, scanOn
}

// procInst reads the processing instruction whose '<' is at s[i]: an XML
// declaration, whose version encoding/xml checks. Other targets give up.
func (sc *scanner) procInst(i int) (int, scanStatus) {
	s := sc.s
	targetEnd, ok := scanName(s, i+2, false)
	if !ok || string(s[i+2:targetEnd]) != "xml" {
		return 0, scanGiveUp
	}
	j := skipSpaceAt(s, targetEnd)
	k := bytes.Index(s[j:], []byte("?>"))
	if k < 0 {
		return 0, scanGiveUp
	}
	if v := procInstParam("version", string(s[j:j+k])); v != "" && v != "1.0" {
		return 0, scanGiveUp
	}
	if !sc.b.xmlDecl(i) {
		return 0, scanStop
	}
	return j + k + 2, scanOn
}

// bang reads a comment or a CDATA section whose '<' is at s[i]. Other
// markup starting with "<!" (DOCTYPE, ENTITY) gives up.
func (sc *scanner) bang(i int) (int, scanStatus) {
	s := sc.s
	switch {
	case bytes.HasPrefix(s[i:], []byte("<!--")):
		// The comment ends at its first "--", which must be followed by '>'.
		k := bytes.Index(s[i+4:], []byte("--"))
		if k < 0 {
			return 0, scanGiveUp
		}
		end := i + 4 + k + 2
		if end >= len(s) || s[end] != '>' {
			return 0, scanGiveUp
		}
		return end + 1, scanOn
	case bytes.HasPrefix(s[i:], []byte("<![CDATA[")):
		body := i + len("<![CDATA[")
		k := bytes.Index(s[body:], []byte("]]>"))
		if k < 0 {
			return 0, scanGiveUp
		}
		data, ok := sc.chars(s[body:body+k], charCDATA)
		if !ok {
			return 0, scanGiveUp
		}
		sc.b.charData(data, i)
		return body + k + 3, scanOn
	}
	return 0, scanGiveUp
}

// charKind is where character data is read: text between tags, a quoted
// attribute value or a CDATA section.
type charKind uint8

const (
	charText charKind = iota
	charAttr
	charCDATA
)

// plainChar marks the bytes that character data takes as they are: every
// byte but the markup characters '&', '<' and ']', '\r', the control
// characters XML does not allow, and 0xEF, which starts U+FFFE and U+FFFF
// (not allowed either) among others.
var plainChar = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 || c == '\t' || c == '\n'
	}
	for _, c := range []byte{'&', '<', ']', '\r', 0xEF} {
		t[c] = false
	}
	return t
}()

// chars checks raw character data and returns it decoded: raw itself when
// it holds nothing to replace, else a decoded copy in sc.buf (valid until
// the next call). ok is false where encoding/xml reports an error or the
// scanner gives up.
func (sc *scanner) chars(raw []byte, kind charKind) (data []byte, ok bool) {
	for k := 0; k < len(raw); k++ {
		c := raw[k]
		if plainChar[c] {
			continue
		}
		switch {
		case c == '\r' || c == '&' && kind != charCDATA:
			return sc.decodeChars(raw, k, kind)
		case !sc.charAllowed(raw, k, kind):
			return nil, false
		}
	}
	return raw, true
}

// charAllowed reports whether the byte raw[k], which is not a plain one,
// may stand as it is.
func (sc *scanner) charAllowed(raw []byte, k int, kind charKind) bool {
	switch c := raw[k]; {
	case c == '&':
		return kind == charCDATA
	case c == '<':
		return kind != charAttr // text stops before it; a CDATA section takes it
	case c == ']':
		return kind != charText || !bytes.HasPrefix(raw[k:], []byte("]]>"))
	case c == 0xEF:
		// U+FFFE and U+FFFF are EF BF BE and EF BF BF.
		return k+2 < len(raw) && !(raw[k+1] == 0xBF && raw[k+2] >= 0xBE)
	}
	return false // a control character
}

// decodeChars decodes raw into sc.buf: its first k bytes are plain.
func (sc *scanner) decodeChars(raw []byte, k int, kind charKind) ([]byte, bool) {
	buf := append(sc.buf[:0], raw[:k]...)
	for k < len(raw) {
		c := raw[k]
		switch {
		case plainChar[c]:
			buf = append(buf, c)
			k++
		case c == '\r':
			buf = append(buf, '\n')
			k++
			if k < len(raw) && raw[k] == '\n' {
				k++
			}
		case c == '&' && kind != charCDATA:
			r, n := charRef(raw[k:])
			if n == 0 {
				return nil, false
			}
			buf = utf8.AppendRune(buf, r)
			k += n
		case sc.charAllowed(raw, k, kind):
			buf = append(buf, c)
			k++
		default:
			return nil, false
		}
	}
	sc.buf = buf
	return buf, true
}

// predefined are the entities XML defines, with their ';'.
var predefined = [...]struct {
	name string
	r    rune
}{{"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"apos;", '\''}, {"quot;", '"'}}

// charRef reads the entity or character reference at the start of p (which
// starts with '&') and returns its character and length; n is 0 for
// anything encoding/xml would not read as a character XML allows, and for
// references of more than seven digits (which it may read, with leading
// zeros).
func charRef(p []byte) (r rune, n int) {
	if len(p) < 2 || p[1] != '#' {
		for _, e := range predefined {
			if bytes.HasPrefix(p[1:], []byte(e.name)) {
				return e.r, 1 + len(e.name)
			}
		}
		return 0, 0
	}
	j, base := 2, rune(10)
	if j < len(p) && p[j] == 'x' {
		j, base = j+1, 16
	}
	digits := j
	var v rune
	for ; j < len(p) && j-digits < 8; j++ {
		d := rune(-1)
		switch c := p[j]; {
		case '0' <= c && c <= '9':
			d = rune(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			d = rune(c-'a') + 10
		case base == 16 && 'A' <= c && c <= 'F':
			d = rune(c-'A') + 10
		}
		if d < 0 {
			break
		}
		v = v*base + d
	}
	if j == digits || j-digits >= 8 || j >= len(p) || p[j] != ';' || v > unicode.MaxRune {
		return 0, 0
	}
	if !utf8.ValidRune(v) {
		v = utf8.RuneError // encoding/xml writes string(rune(v)): U+FFFD for a surrogate
	}
	if !isXMLChar(v) {
		return 0, 0
	}
	return v, j + 1
}

// isXMLChar reports whether XML allows the character r.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// nameByte marks the bytes of an ASCII XML name; nameStart those that may
// begin one.
var nameByte, nameStart = func() (by, st [256]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		st[c] = letter || c == '_' || c == ':'
		by[c] = st[c] || '0' <= c && c <= '9' || c == '.' || c == '-'
	}
	return
}()

// scanName returns the end of the name that starts at s[i]. ok is false
// when there is no name there, when it is not ASCII, when it ends the text,
// and (ns set, for element and attribute names) when it holds more than
// one ':'.
func scanName(s []byte, i int, ns bool) (end int, ok bool) {
	j := i
	for j < len(s) && nameByte[s[j]] {
		j++
	}
	if j == i || j >= len(s) || s[j] >= utf8.RuneSelf || !nameStart[s[i]] {
		return 0, false
	}
	if ns {
		if c := bytes.IndexByte(s[i:j], ':'); c >= 0 && bytes.IndexByte(s[i+c+1:j], ':') >= 0 {
			return 0, false
		}
	}
	return j, true
}

// splitName splits a name at its ':' as encoding/xml does: a prefix and a
// local part, both non-empty, else all of it is the local part.
func splitName(s string) xml.Name {
	if space, local, ok := strings.Cut(s, ":"); ok && space != "" && local != "" {
		return xml.Name{Space: space, Local: local}
	}
	return xml.Name{Local: s}
}

// skipSpaceAt returns the offset of the first byte at or after i that is
// not XML white space.
func skipSpaceAt(s []byte, i int) int {
	for i < len(s) && isXMLSpace(s[i]) {
		i++
	}
	return i
}

// procInstParam is encoding/xml's reading of a parameter of a processing
// instruction (its procInst): the quoted value after the first `param=`
// that is followed by a quote.
func procInstParam(param, s string) string {
	param += "="
	i := 0
	var sep byte
	for i < len(s) {
		sub := s[i:]
		k := strings.Index(sub, param)
		if k < 0 || len(param)+k >= len(sub) {
			return ""
		}
		i += len(param) + k + 1
		if c := sub[len(param)+k]; c == '\'' || c == '"' {
			sep = c
			break
		}
	}
	if sep == 0 {
		return ""
	}
	j := strings.IndexByte(s[i:], sep)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}
