package runtime

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// This file turns a tree file's raw bytes into UTF-8 text before any XML is
// parsed. Decoding first (instead of handing encoding/xml a CharsetReader)
// lets every later step count columns in characters of one known encoding,
// and lets a bad byte be reported with its line and column.

// encoding is one character encoding the loader reads.
type encoding int

const (
	encUTF8 encoding = iota
	encLatin1
	encASCII
	encWindows1252
)

// supportedEncodings is the list an "unsupported encoding" error shows.
const supportedEncodings = "UTF-8, ISO-8859-1 (latin1), US-ASCII and windows-1252"

// encodingNames maps the lower-cased names and aliases a file may declare
// (the IANA names and the aliases editors write) to an encoding.
var encodingNames = map[string]encoding{
	"utf-8": encUTF8, "utf8": encUTF8,

	"iso-8859-1": encLatin1, "iso8859-1": encLatin1, "iso_8859-1": encLatin1,
	"iso88591": encLatin1, "iso_8859-1:1987": encLatin1, "iso-ir-100": encLatin1,
	"latin1": encLatin1, "latin-1": encLatin1, "l1": encLatin1,
	"cp819": encLatin1, "ibm819": encLatin1, "csisolatin1": encLatin1,

	"us-ascii": encASCII, "ascii": encASCII, "iso646-us": encASCII, "us": encASCII,
	"ansi_x3.4-1968": encASCII, "iso-ir-6": encASCII, "cp367": encASCII,
	"ibm367": encASCII, "csascii": encASCII,

	"windows-1252": encWindows1252, "cp1252": encWindows1252,
	"x-cp1252": encWindows1252, "cswindows1252": encWindows1252,
}

// windows1252 holds the characters of bytes 0x80..0x9F in windows-1252; the
// other bytes mean the same as in ISO-8859-1. A zero entry is a byte the
// encoding leaves undefined.
var windows1252 = [32]rune{
	0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, // 80-87
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0, // 88-8F
	0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, // 90-97
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178, // 98-9F
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// xmlDeclEncoding finds the encoding pseudo-attribute of an XML declaration.
var xmlDeclEncoding = regexp.MustCompile(`\sencoding\s*=\s*(?:"([^"]*)"|'([^']*)')`)

// decodeError is a problem found while decoding, at a line and column
// (both from 1, the column in characters).
type decodeError struct {
	line, col int
	msg       string
}

// decodeErrorAt builds a decodeError for the byte at raw[off]; the bytes
// before it are valid in the file's encoding (UTF-8 when utf8Text is set,
// one byte per character otherwise).
func decodeErrorAt(raw []byte, off int, utf8Text bool, msg string) *decodeError {
	line, col := 1, 1
	for i := 0; i < off; i++ {
		c := raw[i]
		switch {
		case c == '\n' || c == '\r' && (i+1 >= len(raw) || raw[i+1] != '\n'):
			line, col = line+1, 1
		case utf8Text && c&0xC0 == 0x80:
			// a continuation byte: part of the character already counted
		default:
			col++
		}
	}
	return &decodeError{line, col, msg}
}

// decodeText returns the file's text as UTF-8, without a byte order mark.
// The encoding is the one the XML declaration names, else UTF-8. Text that
// is UTF-8 already is returned in place, not copied: the loader only reads
// it, and keeps none of it (every string it keeps is a copy).
func decodeText(raw []byte) ([]byte, *decodeError) {
	hasBOM := bytes.HasPrefix(raw, utf8BOM)
	if hasBOM {
		raw = raw[len(utf8BOM):]
	} else if bytes.HasPrefix(raw, []byte{0xFE, 0xFF}) || bytes.HasPrefix(raw, []byte{0xFF, 0xFE}) {
		return nil, &decodeError{1, 1, "the file is UTF-16 (it starts with a UTF-16 byte order mark); supported encodings are " +
			supportedEncodings + ": save it as UTF-8"}
	}

	enc, declared := encUTF8, ""
	if name, ok := declaredEncoding(raw); ok {
		declared = name
		e, known := encodingNames[strings.ToLower(name)]
		if !known {
			return nil, &decodeError{1, 1, fmt.Sprintf("unsupported encoding %q; supported encodings are %s",
				name, supportedEncodings)}
		}
		enc = e
	}
	if hasBOM && enc != encUTF8 {
		return nil, &decodeError{1, 1, fmt.Sprintf("the file starts with a UTF-8 byte order mark but declares encoding %q; "+
			"remove the mark or declare encoding=\"UTF-8\"", declared)}
	}

	switch enc {
	case encLatin1, encWindows1252:
		return decodeSingleByte(raw, enc)
	case encASCII:
		for i, b := range raw {
			if b >= 0x80 {
				return nil, decodeErrorAt(raw, i, false, fmt.Sprintf("byte 0x%02X is not US-ASCII (the file declares encoding %q); "+
					"declare the encoding the file was saved in, e.g. UTF-8 or ISO-8859-1", b, declared))
			}
		}
		return raw, nil
	}
	if i := invalidUTF8(raw); i >= 0 {
		how := "the file declares no encoding, so it is read as UTF-8; if it was saved as latin1, " +
			"start it with <?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"
		if declared != "" {
			how = fmt.Sprintf("the file declares encoding %q", declared)
		}
		return nil, decodeErrorAt(raw, i, true, fmt.Sprintf("invalid UTF-8 byte 0x%02X (%s)", raw[i], how))
	}
	return raw, nil
}

// declaredEncoding returns the encoding named in the XML declaration that
// starts raw, if there is one.
func declaredEncoding(raw []byte) (string, bool) {
	if !bytes.HasPrefix(raw, []byte("<?xml")) || len(raw) < 6 || !isXMLSpace(raw[5]) {
		return "", false
	}
	end := bytes.Index(raw, []byte("?>"))
	if end < 0 {
		return "", false // the XML parser reports the unfinished declaration
	}
	m := xmlDeclEncoding.FindSubmatch(raw[:end])
	if m == nil {
		return "", false
	}
	if m[1] != nil {
		return string(m[1]), true
	}
	return string(m[2]), true
}

// invalidUTF8 returns the offset of the first byte that is not valid UTF-8,
// or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// decodeSingleByte decodes ISO-8859-1 or windows-1252.
func decodeSingleByte(raw []byte, enc encoding) ([]byte, *decodeError) {
	b := make([]byte, 0, len(raw)+len(raw)/8)
	for i, c := range raw {
		switch {
		case c < 0x80:
			b = append(b, c)
		case enc == encWindows1252 && c < 0xA0:
			r := windows1252[c-0x80]
			if r == 0 {
				return nil, decodeErrorAt(raw, i, false, fmt.Sprintf("byte 0x%02X is not defined in windows-1252; "+
					"declare the encoding the file was saved in", c))
			}
			b = utf8.AppendRune(b, r)
		default:
			b = utf8.AppendRune(b, rune(c))
		}
	}
	return b, nil
}

// isXMLSpace reports whether c is XML white space.
func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// xmlSpace is the set of XML white-space characters, for trimming text.
const xmlSpace = " \t\r\n"
