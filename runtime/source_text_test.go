package runtime

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSourceText_roundTrip: a tree file decoded to text and encoded again
// is the same bytes, in every encoding the loader reads (a UTF-8 byte
// order mark included).
func TestSourceText_roundTrip(t *testing.T) {
	files, err := filepath.Glob("testdata/valid/encodings/*.xml")
	if err != nil || len(files) < 3 {
		t.Fatalf("%v %v", files, err)
	}
	files = append(files, "testdata/valid/cryengine-guard.xml")
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text, err := DecodeSource(f, raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		back, err := EncodeSource(f, text)
		if err != nil || !bytes.Equal(back, raw) {
			t.Errorf("%s: %v\n%q\nwant\n%q", f, err, back, raw)
		}
	}
	raw, _ := os.ReadFile("testdata/valid/encodings/utf8-bom.xml")
	if text, _ := DecodeSource("b.xml", raw); !strings.HasPrefix(text, "\uFEFF<?xml") {
		t.Errorf("the byte order mark is not kept: %q", text[:10])
	}
}

func TestSourceText_encode(t *testing.T) {
	latin := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<behaviorTree>é"
	tests := []struct {
		text, want, err string
	}{
		{latin, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<behaviorTree>\xe9", ""},
		{latin + "\n€", "", "t.xml:3:1: character '€' (U+20AC) cannot be written in ISO-8859-1, the encoding the file declares; write it as &#8364; or declare encoding=\"UTF-8\""},
		{"<?xml version='1.0' encoding='windows-1252'?><b>€é</b>", "<?xml version='1.0' encoding='windows-1252'?><b>\x80\xe9</b>", ""},
		{"<?xml version='1.0' encoding='windows-1252'?><b>\u0081</b>", "", "cannot be written in windows-1252"},
		{"<?xml version='1.0' encoding='US-ASCII'?><b>é</b>", "", "t.xml:1:45: character 'é' (U+00E9) cannot be written in US-ASCII"},
		{"<b>€</b>", "<b>€</b>", ""},
		{"<?xml version='1.0' encoding='UTF-8'?><b>€</b>", "<?xml version='1.0' encoding='UTF-8'?><b>€</b>", ""},
		{"<?xml version='1.0' encoding='EBCDIC'?><b/>", "", `unsupported encoding "EBCDIC"`},
		{"\uFEFF<?xml version='1.0' encoding='latin1'?><b/>", "", "starts with a UTF-8 byte order mark but declares encoding \"latin1\""},
	}
	for _, tt := range tests {
		got, err := EncodeSource("t.xml", tt.text)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: %v, want an error with %q", tt.text, err, tt.err)
		case tt.err == "" && (err != nil || string(got) != tt.want):
			t.Errorf("%q: %q %v, want %q", tt.text, got, err, tt.want)
		}
	}
	enc, _ := SourceEncoding("t.xml", latin)
	if enc.Name() != "ISO-8859-1" || !enc.CanHold('é') || enc.CanHold('€') {
		t.Errorf("%+v", enc)
	}
	if _, err := DecodeSource("t.xml", []byte("<b>\xe9</b>")); err == nil || !strings.Contains(err.Error(), "t.xml:1:4: invalid UTF-8 byte 0xE9") {
		t.Errorf("bad UTF-8: %v", err)
	}
}
