package game

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fixedClock is a clock that moves only when the test moves it.
type fixedClock struct{ t time.Time }

func (c *fixedClock) now() time.Time { return c.t }

func TestPrinter_progressLineIsErasedBeforeOtherLines(t *testing.T) {
	var b bytes.Buffer
	clk := &fixedClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := printer{w: &b, progress: true, started: clk.t.Add(-2 * time.Second), clock: clk.now}
	p.tick(300, 600)
	p.line(1.5, "grunt-1", "idle -> attack")
	clk.t = clk.t.Add(progressEvery - time.Millisecond)
	p.tick(301, 600) // too soon after the last drawing: nothing
	p.clearProgress()
	clk.t = clk.t.Add(time.Millisecond)
	p.tick(302, 600) // due again
	want := "\r\033[K  step 300/600 (50%)\r\033[Kt=1.50 grunt-1 idle -> attack\n\r\033[K  step 302/600 (50%)"
	if got := b.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestPrinter_noProgressForShortRunsOrPipes(t *testing.T) {
	var b bytes.Buffer
	clk := &fixedClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := printer{w: &b, progress: true, clock: clk.now}
	p.tick(1, 600) // the run has just started
	clk.t = clk.t.Add(progressAfter - time.Millisecond)
	p.tick(2, 600) // still under progressAfter
	q := printer{w: &b, clock: clk.now}
	q.started = clk.t.Add(-time.Minute)
	q.tick(1, 600) // not a terminal
	if strings.Contains(b.String(), "step") {
		t.Errorf("progress drawn: %q", b.String())
	}
}

// TestPrinter_signalNamesCannotDriveTheTerminal: a signal's name (from a
// script, the schedule or the live view) is printed with its control
// characters escaped: a carriage return cannot overwrite the line, an
// escape cannot clear the screen or fake a line.
func TestPrinter_signalNamesCannotDriveTheTerminal(t *testing.T) {
	var b bytes.Buffer
	p := printer{w: &b}
	p.signal(1, "guard-1", "Alarm\rbtrun: all clear\x1b[2J\nt=9.00 fake\u009b")
	want := "t=1.00 guard-1 <- signal Alarm\\rbtrun: all clear\\x1b[2J\\nt=9.00 fake\\u009b\n"
	if got := b.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	b.Reset()
	p.signal(1, "guard-1", "Alarm \"é\" \\")
	if got := b.String(); got != "t=1.00 guard-1 <- signal Alarm \"é\" \\\n" {
		t.Errorf("a printable name changed: %q", got)
	}
}
