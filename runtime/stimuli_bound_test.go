package runtime

import (
	"errors"
	"strings"
	"testing"
)

// blob is data of n bytes: one string.
func blob(n int) Value { return str(strings.Repeat("x", n)) }

// TestStimuli_boundRefusesWhatWouldGoPastIt: an agent's stimuli are counted
// (80 bytes a stimulus, its name's and strings' bytes, 112 a table entry);
// a signal that would take them past Env.StimulusMemory is an error that
// wraps ErrStimuli, at the sender for a send to itself, and nothing of it
// is delivered. Replacing a stimulus with a smaller one, forgetting one and
// an expired one make room.
func TestStimuli_boundRefusesWhatWouldGoPastIt(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	a := h.agent
	h.env.StimulusMemory = 4000
	h.stepAt(0.25)
	if got := stimulusCost("A", &Value{}); got != 81 {
		t.Errorf("a signal without data costs %d, want 81", got)
	}
	entries := table(Field{numv(1), str("ab")}, Field{str("k"), table()})
	if got, want := stimulusCost("Sig", &entries), 80+3+2*112+2+1; got != want {
		t.Errorf("cost of a two-entry table: %d, want %d", got, want)
	}

	h.must(a.SignalData("A", blob(1500))) // 80+1+1500 = 1581
	h.must(a.SignalData("B", blob(1500))) // 3162
	if got := a.StimulusBytes(); got != 3162 {
		t.Fatalf("StimulusBytes = %d, want 3162", got)
	}
	err := a.Send("self", "C", blob(1000)) // 4243 > 4000
	if !errors.Is(err, ErrStimuli) || !strings.Contains(err.Error(), `cannot hold signal "C"`) || !strings.Contains(err.Error(), "more than the 4000") {
		t.Fatalf("Send past the bound: %v", err)
	}
	if a.Held("C") || a.StimulusBytes() != 3162 {
		t.Errorf("a refused signal was delivered: C held %v, %d bytes", a.Held("C"), a.StimulusBytes())
	}
	// The same from a host (a game delivering another agent's signal).
	if err := a.SignalDataAt("Seen", blob(1000), 0.25); !errors.Is(err, ErrStimuli) || a.Held("Seen") {
		t.Errorf("SignalDataAt past the bound: %v, Seen held %v", err, a.Held("Seen"))
	}
	// Replacing A with less data fits, and frees what it no longer takes.
	h.must(a.SignalData("A", blob(500)))
	if got := a.StimulusBytes(); got != 2162 {
		t.Errorf("after replacing A: %d bytes, want 2162", got)
	}
	h.must(a.Send("self", "C", blob(1000)))
	if !a.Forget("B") || a.StimulusBytes() != 1081+581 {
		t.Errorf("after forgetting B: %d bytes, want %d", a.StimulusBytes(), 1081+581)
	}
	// Hurt expires 0.5 s after it arrives; past that it makes room.
	h.must(a.SignalData("Hurt", blob(2000))) // 3746
	if err := a.SignalData("Seen", blob(500)); !errors.Is(err, ErrStimuli) {
		t.Fatalf("Seen while Hurt is held: %v", err)
	}
	h.stepAt(0.75)
	h.must(a.SignalData("Seen", blob(500)))
	if got := a.StimulusBytes(); got != 1662+584 {
		t.Errorf("after Hurt expired and Seen arrived: %d bytes, want %d", got, 1662+584)
	}
	// A signal whose stimulus alone is over the bound is refused however
	// empty the agent is.
	h.env.StimulusMemory = 500
	if err := a.SignalData("Big", blob(600)); !errors.Is(err, ErrStimuli) {
		t.Errorf("a stimulus larger than the bound: %v", err)
	}
	// An agent over a bound lowered since keeps what it holds, takes what
	// replaces something larger, and nothing that adds.
	h.must(a.SignalData("Seen", blob(10)))
	if err := a.Signal("New"); !errors.Is(err, ErrStimuli) {
		t.Errorf("a new stimulus over a lowered bound: %v", err)
	}
}

// TestStimuli_boundCountedAgainAfterRestore: a restore counts what it puts
// back, so the restored agent refuses exactly what the saved one refuses.
func TestStimuli_boundCountedAgainAfterRestore(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	a := h.agent
	h.env.StimulusMemory = 3000
	h.must(a.SignalData("Seen", table(Field{str("who"), blob(900)})))
	h.must(a.SignalData("Other", blob(1000)))
	s, err := a.Snapshot()
	h.must(err)
	fresh := h.tree.NewAgent("a1", &Env{StimulusMemory: 3000})
	if err := fresh.CanHold("Asked", blob(10)); err != nil { // asked, never delivered: it costs nothing
		t.Fatal(err)
	}
	if _, err := fresh.Restore(&s); err != nil {
		t.Fatal(err)
	}
	if fresh.StimulusBytes() != a.StimulusBytes() || a.StimulusBytes() != 80+4+112+3+900+80+5+1000 {
		t.Errorf("restored agent counts %d bytes, saved one %d", fresh.StimulusBytes(), a.StimulusBytes())
	}
	for _, x := range []*Agent{a, fresh} {
		if err := x.SignalData("More", blob(900)); !errors.Is(err, ErrStimuli) {
			t.Errorf("%p: %v", x, err)
		}
	}
}

// TestStimuli_boundCostsNothingOnARepeatedSignal: the count allocates
// nothing when a signal is received again.
func TestStimuli_boundCostsNothingOnARepeatedSignal(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	a := h.agent
	data := table(Field{str("by"), str("grunt-2")})
	h.must(a.SignalData("Hurt", data))
	h.must(a.SignalData("Elsewhere", data))
	before := a.StimulusBytes()
	if n := testing.AllocsPerRun(100, func() {
		a.SignalData("Hurt", data)
		a.SignalData("Elsewhere", data)
	}); n != 0 {
		t.Errorf("%v allocations per signal received again", n)
	}
	if a.StimulusBytes() != before {
		t.Errorf("a signal received again changed the count: %d, was %d", a.StimulusBytes(), before)
	}
}

// TestStimuli_boundCountsTheTreesOwnSends: bt.signal.send to the agent
// itself is counted and refused as any other signal: its stimulus's cost
// is what the agent holds, and past the bound it is the step's error.
func TestStimuli_boundCountsTheTreesOwnSends(t *testing.T) {
	h := newHarness(t, bt(hurtDecls+`<action id="root" name="bt.signal.send">`+
		param("signal.name", "Seen")+param("signal.data.who", strings.Repeat("w", 300))+`</action>`), nil)
	a := h.agent
	h.stepAt(1)
	want := Value{Kind: TableValue, Table: []Field{{str("who"), str(strings.Repeat("w", 300))}}}
	if got, w := a.StimulusBytes(), stimulusCost("Seen", &want); got != w || !a.Held("Seen") {
		t.Errorf("after the tree's own Seen: %d bytes, want %d (held %v)", got, w, a.Held("Seen"))
	}
	a.Forget("Seen")
	h.env.StimulusMemory = 300
	if _, err := a.StepAt(2); !errors.Is(err, ErrStimuli) || a.Held("Seen") {
		t.Errorf("the tree's own Seen past the bound: %v, held %v", err, a.Held("Seen"))
	}
}
