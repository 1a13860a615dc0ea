package runtime

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A tree file as text for an editor (the live view's): DecodeSource turns
// the file's bytes into text and EncodeSource turns text back into bytes,
// in the encoding the text's XML declaration names, so that text decoded
// from a file and encoded unchanged gives the file back byte for byte. The
// loader reads the same encodings (load_decode.go); unlike the loader's
// decoding, a UTF-8 byte order mark is kept, as the character U+FEFF at the
// start of the text.

// DecodeSource returns a tree file's bytes as text: the encoding the XML
// declaration names (UTF-8 without one), a UTF-8 byte order mark kept as
// U+FEFF. A byte the encoding does not allow is an error with its line and
// column.
func DecodeSource(file string, raw []byte) (string, error) {
	text, derr := decodeText(raw)
	if derr != nil {
		return "", &Error{Pos: Pos{File: file, Line: derr.line, Col: derr.col}, Msg: derr.msg, Err: ErrInvalidTree}
	}
	if len(raw) >= len(utf8BOM) && string(raw[:len(utf8BOM)]) == string(utf8BOM) {
		return "\uFEFF" + string(text), nil
	}
	return string(text), nil
}

// EncodeSource returns text as the bytes of a tree file, in the encoding its
// XML declaration names (UTF-8 without one). A character that encoding
// cannot hold is an error with its line and column: an editor that puts
// such a character into a value writes a character reference (&#N;)
// instead (SourceEncoding says which characters need one).
func EncodeSource(file, text string) ([]byte, error) {
	enc, err := SourceEncoding(file, text)
	if err != nil {
		return nil, err
	}
	if enc.enc == encUTF8 {
		if !utf8.ValidString(text) {
			return nil, &Error{Pos: Pos{File: file, Line: 1, Col: 1}, Msg: "the text is not valid UTF-8", Err: ErrInvalidTree}
		}
		return []byte(text), nil
	}
	out := make([]byte, 0, len(text))
	line, col := 1, 1
	for _, r := range text {
		b, ok := enc.byteOf(r)
		if !ok {
			return nil, &Error{Pos: Pos{File: file, Line: line, Col: col}, Err: ErrInvalidTree,
				Msg: fmt.Sprintf("character %q (U+%04X) cannot be written in %s, the encoding the file declares; write it as &#%d; or declare encoding=\"UTF-8\"", r, r, enc.name, r)}
		}
		out = append(out, b)
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return out, nil
}

// TextEncoding is the encoding a tree file's text declares.
type TextEncoding struct {
	enc  encoding
	name string // as declared, or "UTF-8"
}

// Name is the encoding's name as the file declares it ("UTF-8" when it
// declares none).
func (e TextEncoding) Name() string { return e.name }

// CanHold reports whether the encoding can hold the character r as it is
// (else a file in it needs a character reference).
func (e TextEncoding) CanHold(r rune) bool {
	if e.enc == encUTF8 {
		return r != utf8.RuneError
	}
	_, ok := e.byteOf(r)
	return ok
}

// byteOf is the byte of r in a one-byte encoding.
func (e TextEncoding) byteOf(r rune) (byte, bool) {
	switch {
	case r < 0x80:
		return byte(r), true
	case e.enc == encASCII || r > 0xFF && e.enc == encLatin1:
		return 0, false
	case e.enc == encLatin1:
		return byte(r), true
	}
	// windows-1252: 0x80..0x9F hold other characters; the rest is latin1.
	if r >= 0xA0 && r <= 0xFF {
		return byte(r), true
	}
	for i, w := range windows1252 {
		if w != 0 && w == r {
			return byte(0x80 + i), true
		}
	}
	return 0, false
}

// SourceEncoding returns the encoding text declares in its XML declaration,
// UTF-8 without one; an encoding the loader does not read is an error.
func SourceEncoding(file, text string) (TextEncoding, error) {
	bom := strings.HasPrefix(text, "\uFEFF")
	name, declared := declaredEncoding([]byte(strings.TrimPrefix(text, "\uFEFF")))
	if !declared {
		return TextEncoding{enc: encUTF8, name: "UTF-8"}, nil
	}
	e, known := encodingNames[strings.ToLower(name)]
	if !known {
		return TextEncoding{}, &Error{Pos: Pos{File: file, Line: 1, Col: 1}, Err: ErrInvalidTree,
			Msg: fmt.Sprintf("unsupported encoding %q; supported encodings are %s", name, supportedEncodings)}
	}
	if bom && e != encUTF8 {
		return TextEncoding{}, &Error{Pos: Pos{File: file, Line: 1, Col: 1}, Err: ErrInvalidTree,
			Msg: fmt.Sprintf("the text starts with a UTF-8 byte order mark but declares encoding %q; remove the mark or declare encoding=\"UTF-8\"", name)}
	}
	return TextEncoding{enc: e, name: name}, nil
}
