package game

import (
	"fmt"
	"log/slog"
)

// Folding repeated errors: an agent whose action fails the same way every
// step would print the same line every step. The first occurrence is
// printed; repeats are counted (whatever the agent does in between, such as
// restarting the rule that fails) and reported in one line when its error
// changes or at the end of the run:
//
//	t=0.10 grunt-2 error (restarts): ...
//	t=8.60 grunt-2 same error x85 (t=0.20..8.60)

// repeat is the error last printed for one source (an agent, the world).
type repeat struct {
	text        string
	count       int     // repeats not printed
	first, last float64 // times of the first and last repeat
}

// repeatable prints text for source at time t unless it repeats the last
// error printed for that source.
func (p *printer) repeatable(t float64, source, text string) {
	if p.quiet {
		return
	}
	if r := p.repeats[source]; r != nil && r.text == text {
		if r.count == 0 {
			r.first = t
		}
		r.count++
		r.last = t
		return
	}
	p.flushRepeat(source)
	if p.repeats == nil {
		p.repeats = map[string]*repeat{}
	}
	p.repeats[source] = &repeat{text: text}
	p.lineAt(slog.LevelError, t, source, text)
}

// flushRepeat reports the repeats of source's last error, if any, and
// forgets it: the next error is printed in full.
func (p *printer) flushRepeat(source string) {
	r := p.repeats[source]
	if r == nil {
		return
	}
	delete(p.repeats, source)
	if r.count > 0 {
		p.lineAt(slog.LevelError, r.last, source, fmt.Sprintf("same error x%d (t=%.2f..%.2f)", r.count, r.first, r.last))
	}
}

// flushRepeats reports every source's repeats, in the order the sources
// are given (config order), then any other source's in name order.
func (p *printer) flushRepeats(order []string) {
	for _, s := range order {
		p.flushRepeat(s)
	}
	for len(p.repeats) > 0 {
		first := ""
		for s := range p.repeats {
			if first == "" || s < first {
				first = s
			}
		}
		p.flushRepeat(first)
	}
}
