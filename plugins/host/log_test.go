package host

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/runtime"
)

// TestLogger_stepModeCallsItOnTheSteppingGoroutineOnly: with restarts
// counted in steps, what plugins log (read by go-plugin's goroutines from
// their pipes) reaches Options.Logger on the goroutine that steps, at Start,
// Advance, Flush and Close: a game's logger writes its output without a
// lock and reads the game's step. The logger here keeps its lines without
// one, and the stepping goroutine writes the same slice between steps: run
// with -race, a call from any other goroutine is a data race.
func TestLogger_stepModeCallsItOnTheSteppingGoroutineOnly(t *testing.T) {
	var lines []string // no lock: the point of the test
	logger := func(level, msg string) { lines = append(lines, level+": "+msg) }
	w := newWorld(t, `<behaviorTree><action id="root" name="test.log"/></behaviorTree>`,
		[]Spec{helperSpec("test", "plugin")}, Options{Logger: logger, RestartMinSteps: 1}, 3, nil)
	for s := uint64(1); s <= 4; s++ {
		lines = append(lines, fmt.Sprintf("game: step %d", s))
		w.set.Advance(s)
		if out := w.step(); out[0].Status != runtime.Success {
			t.Fatal(out[0])
		}
	}
	// A raw line on stderr crosses go-plugin's stdio stream, which may
	// still be connecting: the test waits for it (handed over by Advance,
	// on this goroutine) rather than hoping it came within four steps.
	const raw = "info: plugin test stderr: a raw line on stderr"
	deadline := time.Now().Add(time.Minute) // a hang guard: the line comes as it is written
	for !strings.Contains(strings.Join(lines, "\n"), raw) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		w.set.Advance(4)
	}
	w.set.Close() // its lines come in by the time it returns
	text := strings.Join(lines, "\n")
	for _, want := range []string{"info: plugin test: hello from a3", raw} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
}
