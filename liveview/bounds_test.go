package liveview

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/btrun/btrun/runtime"
)

// shout is a game whose agents and world log a different megabyte-long
// line every step, and whose agents fail with an error as long.
const shout = "testdata/shout/config.toml"

// TestBounds_eventsKeepCutTexts: however long the lines an agent logs and
// the errors it raises, the events keep each text cut (with a marker that
// says how much is missing), the agents' events stay within their share of
// the budget, and an agent's view stays small.
func TestBounds_eventsKeepCutTexts(t *testing.T) {
	h := start(t, shout, 1000, Options{Paused: true})
	h.ok("POST", "/api/step", `{"steps":40}`)
	var kept, texts int64
	var counts []int
	h.onGame(func() {
		lim := h.d.eventCap
		for _, e := range append([]*events{&h.d.world}, eventLists(h.d)...) {
			var sum int64
			for _, ev := range e.list {
				if len(ev.text) > lim.text+len(fmt.Sprintf(eventCutMarker, 1<<20)) {
					t.Errorf("an event keeps %d bytes of text (limit %d): %.80q", len(ev.text), lim.text, ev.text)
				}
				if !utf8.ValidString(ev.text) {
					t.Errorf("a cut text is not UTF-8: ...%q", ev.text[max(0, len(ev.text)-40):])
				}
				sum += ev.size()
				texts += int64(len(ev.text))
			}
			if sum != e.bytes || e.bytes > lim.bytes {
				t.Errorf("events take %d bytes, counted %d, limit %d", sum, e.bytes, lim.bytes)
			}
			kept += e.bytes
			counts = append(counts, len(e.list))
		}
		for _, r := range h.d.agents {
			if len(r.err) > maxErrorText+40 {
				t.Errorf("%s keeps an error of %d bytes", r.a.ID(), len(r.err))
			}
		}
	})
	// 40 steps of 5 lines of 1 MB and 4 errors of 1 MB: 360 MB whole.
	if texts > 1<<20 || kept > eventBytes {
		t.Errorf("the events keep %d bytes of text, %d bytes in all; want at most 1 MB", texts, kept)
	}
	if counts[1] < 40 {
		t.Errorf("an agent keeps %d events of 40 steps", counts[1])
	}
	code, raw := h.raw("GET", "/api/agents/shout-2", "", nil)
	if code != 200 || len(raw) > 512<<10 {
		t.Errorf("the agent's view: %d, %d bytes", code, len(raw))
	}
	if !bytes.Contains(raw, []byte("more bytes]")) || !bytes.Contains(raw, []byte("shout shout-2 at 4")) {
		t.Errorf("the agent's view lacks its cut log lines: %.300s", raw)
	}
	if code, raw := h.raw("GET", "/api/status", "", nil); code != 200 || len(raw) > 512<<10 || !bytes.Contains(raw, []byte("world at 4")) {
		t.Errorf("the status: %d, %d bytes: %.200s", code, len(raw), raw)
	}
}

func eventLists(d *Debugger) []*events {
	out := make([]*events, len(d.agents))
	for i, r := range d.agents {
		out[i] = &r.events
	}
	return out
}

// TestBounds_manyAgentsShareTheBudget: the events of many agents together
// stay within the budget: each agent's share shrinks, and so does the text
// it keeps of an event, down to a floor.
func TestBounds_manyAgentsShareTheBudget(t *testing.T) {
	for _, n := range []int{1, 4, 1000, 20000, 100000} {
		lim := limitsFor(n, 0)
		var e events
		long := strings.Repeat("x", 1<<16)
		for i := range 3 * lim.count {
			e.add(lim, event{step: uint64(i), kind: evLog, label: "r.log", text: long})
			if e.bytes > lim.bytes {
				t.Fatalf("%d agents: one agent's events take %d bytes, its share is %d", n, e.bytes, lim.bytes)
			}
		}
		if len(e.list) == 0 || e.list[len(e.list)-1].step != uint64(3*lim.count-1) {
			t.Errorf("%d agents: the latest event is not kept", n)
		}
		if n <= 20000 && int64(n+1)*lim.bytes > eventBytes {
			t.Errorf("%d agents: %d bytes each, %d in all, over %d", n, lim.bytes, int64(n+1)*lim.bytes, int64(eventBytes))
		}
		if lim.text < minEventText || lim.text > maxEventText {
			t.Errorf("%d agents: texts cut at %d bytes", n, lim.text)
		}
	}
}

// TestBounds_cutTextKeepsWholeCharacters: a text is cut at a character's
// start, says how many bytes it dropped, and does not share the long
// text's memory.
func TestBounds_cutTextKeepsWholeCharacters(t *testing.T) {
	s := strings.Repeat("é", 10) // 2 bytes each
	for n := 0; n <= 20; n++ {
		got := cutText(s, n)
		if n >= len(s) {
			if got != s {
				t.Errorf("cut at %d: %q", n, got)
			}
			continue
		}
		kept := n &^ 1
		if want := s[:kept] + fmt.Sprintf(eventCutMarker, len(s)-kept); got != want {
			t.Errorf("cut at %d: %q, want %q", n, got, want)
		}
	}
}

// TestBounds_journalStaysWithinTheBudget: signals and jumps sent while the
// game is paused, hundreds of thousands of them at one step, keep the
// journal within its share of the budget (a snapshot takes over every
// thousand), and time travel still shows the same game.
func TestBounds_journalStaysWithinTheBudget(t *testing.T) {
	const budget = 1 << 20
	h := start(t, guards, 200, Options{Paused: true, Budget: budget})
	h.ok("POST", "/api/step", `{"steps":3}`)
	send := func(n int) {
		h.onGame(func() {
			for i := range n {
				if _, err := h.d.cmdSignal("guard-1", fmt.Sprintf("Ping%d", i%7), runtime.Value{}); err != nil {
					t.Fatalf("signal %d: %v", i, err)
				}
				if i%1000 == 0 {
					if _, err := h.d.cmdJump("guard-2", "guard.idle.rest"); err != nil {
						t.Fatalf("jump %d: %v", i, err)
					}
				}
				if tl := &h.d.tl; tl.bytes > budget || tl.jbytes > budget/2 || len(tl.journal) > 2*maxJournalAt {
					t.Fatalf("after %d signals: %d bytes (journal %d in %d entries), budget %d", i+1, tl.bytes, tl.jbytes, len(tl.journal), budget)
				}
			}
		})
	}
	send(30000)
	h.ok("POST", "/api/step", `{"steps":2}`)
	send(2500)
	var want []byte
	h.onGame(func() {
		var err error
		if want, err = h.g.SaveState(); err != nil {
			t.Fatal(err)
		}
	})
	h.ok("POST", "/api/travel", `{"step":1}`)
	h.ok("POST", "/api/travel", `{"step":4}`)
	h.ok("POST", "/api/travel", `{"step":5}`)
	h.onGame(func() {
		got, err := h.g.SaveState()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("step 5 shown again differs from step 5 as it was (%d and %d bytes)", len(got), len(want))
		}
	})
}
