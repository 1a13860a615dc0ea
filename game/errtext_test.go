package game

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestErrorTexts_longTextsAreCutAndShownWholeOnce(t *testing.T) {
	var w bytes.Buffer
	et := errorTexts{w: &w}
	short := errors.New("short")
	if et.bounded(short) != short {
		t.Error("a short error was changed")
	}
	long := errors.New("a.lua:3: " + strings.Repeat("é", 3000)) // 2-byte characters
	for range 3 {
		err := et.bounded(long)
		text := err.Error()
		if !errors.Is(err, long) || len(text) > maxErrorText+100 || !utf8.ValidString(text) ||
			!strings.HasSuffix(text, " [... 4010 more bytes; the whole text is on standard error]") {
			t.Fatalf("cut text: %d bytes, ...%q", len(text), text[max(0, len(text)-80):])
		}
	}
	if n := strings.Count(w.String(), "the whole text of an error cut short"); n != 1 || !strings.Contains(w.String(), long.Error()) {
		t.Errorf("the whole text was written %d times", n)
	}
	huge := strings.Repeat("x", 3<<20)
	w.Reset()
	et.cut(huge)
	if w.Len() > maxFullErrorText+200 || !strings.Contains(w.String(), "[... 2097152 more bytes not shown]") {
		t.Errorf("the whole text of a 3 MB error: %d bytes written", w.Len())
	}
}
