package game

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestPrinter_progressLineIsErasedBeforeOtherLines(t *testing.T) {
	var b bytes.Buffer
	p := printer{w: &b, progress: true, started: time.Now().Add(-2 * time.Second)}
	p.tick(300, 600)
	p.line(1.5, "grunt-1", "idle -> attack")
	p.tick(301, 600) // too soon after the last drawing: nothing
	p.clearProgress()
	want := "\r\033[K  step 300/600 (50%)\r\033[Kt=1.50 grunt-1 idle -> attack\n"
	if got := b.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestPrinter_noProgressForShortRunsOrPipes(t *testing.T) {
	var b bytes.Buffer
	p := printer{w: &b, progress: true}
	p.tick(1, 600) // the run has just started
	q := printer{w: &b}
	q.started = time.Now().Add(-time.Minute)
	q.tick(1, 600) // not a terminal
	if strings.Contains(b.String(), "step") {
		t.Errorf("progress drawn: %q", b.String())
	}
}
