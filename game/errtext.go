package game

import (
	"fmt"
	"hash/maphash"
	"io"
	"unicode/utf8"
)

// Error texts in the output and the trace are bounded: a script can raise
// an error whose message is megabytes long (error(string.rep(...))), and an
// agent that raises it every step would write that much per step. A text
// longer than maxErrorText is cut, with a note of the bytes left out; the
// whole text (up to maxFullErrorText) is written once to the run's standard
// error, the first time that text is met.

const (
	maxErrorText     = 2000
	maxFullErrorText = 1 << 20
)

// errorTexts cuts error texts and shows each cut text in full once.
type errorTexts struct {
	w    io.Writer // where the full texts go
	seed maphash.Seed
	seen map[uint64]bool
}

// cut returns s, or s cut to about maxErrorText bytes with a note; the first
// time a given long text is met it writes it whole (up to
// maxFullErrorText) to the writer.
func (t *errorTexts) cut(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	if t.seen == nil {
		t.seed = maphash.MakeSeed()
		t.seen = map[uint64]bool{}
	}
	note := "; the whole text is on standard error"
	if _, ok := t.w.(slogWriter); ok {
		note = "; the whole text is in the log"
	}
	if h := maphash.String(t.seed, s); !t.seen[h] && t.w != nil {
		t.seen[h] = true
		full, more := cutAt(s, maxFullErrorText), ""
		if len(full) < len(s) {
			more = fmt.Sprintf("\n[... %d more bytes not shown]", len(s)-len(full))
		}
		fmt.Fprintf(t.w, "btrun: the whole text of an error cut short in the output and the trace (%d bytes):\n%s%s\n", len(s), full, more)
	} else if t.w == nil {
		note = ""
	}
	short := cutAt(s, maxErrorText)
	return fmt.Sprintf("%s [... %d more bytes%s]", short, len(s)-len(short), note)
}

// cutAt returns the longest prefix of s of at most n bytes that ends at a
// character boundary.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cutError is an error whose text was cut for the output and the trace; it
// unwraps to the original.
type cutError struct {
	err  error
	text string
}

func (e *cutError) Error() string { return e.text }
func (e *cutError) Unwrap() error { return e.err }

// bounded returns err, or err with its text cut (see cut).
func (t *errorTexts) bounded(err error) error {
	if err == nil {
		return nil
	}
	s := err.Error()
	if len(s) <= maxErrorText {
		return err
	}
	return &cutError{err: err, text: t.cut(s)}
}

// cutLine cuts a text to about maxErrorText bytes, with a note, and keeps
// no state (safe from any goroutine).
func cutLine(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	short := cutAt(s, maxErrorText)
	return fmt.Sprintf("%s [... %d more bytes]", short, len(s)-len(short))
}
