package game

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// TestPrinter_repeatedErrorsAreFolded: an error repeated every step prints
// once, and its repeats are counted in one line when the error changes and
// at the end of the run; other lines in between do not break the count.
func TestPrinter_repeatedErrorsAreFolded(t *testing.T) {
	var b bytes.Buffer
	p := printer{w: &b}
	boom, bang := errors.New("boom"), errors.New("bang")
	want := ""
	for s := 1; s <= 58; s++ { // the 58 identical lines in 80 steps
		p.errored(float64(s)/10, "grunt-1", boom, "restarts")
		p.change(float64(s)/10, "grunt-1", "", "patrol") // restarted
		if s == 1 {
			want += "t=0.10 grunt-1 error (restarts): boom\n"
		}
		want += fmt.Sprintf("t=%.2f grunt-1 (start) -> patrol\n", float64(s)/10)
	}
	p.errored(6.0, "grunt-1", bang, "restarts") // the error changes
	p.errored(6.1, "grunt-1", bang, "restarts")
	p.errored(6.3, "grunt-2", boom, "restarts")
	p.errored(6.4, "grunt-2", boom, "restarts")
	p.errored(6.5, "grunt-2", boom, "restarts")
	p.flushRepeats([]string{"grunt-1", "grunt-2"}) // the end of the run
	want += "t=5.80 grunt-1 same error x57 (t=0.20..5.80)\n" +
		"t=6.00 grunt-1 error (restarts): bang\n" +
		"t=6.30 grunt-2 error (restarts): boom\n" +
		"t=6.10 grunt-1 same error x1 (t=6.10..6.10)\n" +
		"t=6.50 grunt-2 same error x2 (t=6.40..6.50)\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPrinter_quietFoldsNothing: -quiet prints no error lines at all.
func TestPrinter_quietFoldsNothing(t *testing.T) {
	var b bytes.Buffer
	p := printer{w: &b, quiet: true}
	p.errored(0.1, "a-1", errors.New("x"), "restarts")
	p.errored(0.2, "a-1", errors.New("x"), "restarts")
	p.flushRepeats([]string{"a-1"})
	if b.Len() != 0 {
		t.Errorf("quiet printed %q", b.String())
	}
}
