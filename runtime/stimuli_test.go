package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

const hurtDecls = `<signals><signal name="Hurt" expires="0.5"/><signal name="Seen"/></signals>`

// heldTree: each step the root picks flee while Hurt is held, else idle.
var heldTree = bt(hurtDecls + `<choice id="root">
  <action id="flee" name="ok"><condition>Hurt.held</condition></action>
  <action id="idle" name="ok"/>
</choice>`)

// stepAt steps the harness's agent to time t and returns the leaves run.
func (h *harness) stepAt(t float64) string {
	h.t.Helper()
	h.log = h.log[:0]
	if _, err := h.agent.StepAt(t); err != nil {
		h.t.Fatalf("step at %v: %v", t, err)
	}
	return strings.Join(h.leaves, " ")
}

func TestStimulus_recordsDataAndArrival(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	a := h.agent
	if _, _, ok := a.Stimulus("Hurt"); ok {
		t.Fatal("a new agent holds a stimulus")
	}
	h.stepAt(0.25)
	data := table(Field{str("by"), str("grunt-2")}, Field{str("hp"), numv(10)})
	h.must(a.SignalData("Hurt", data)) // at 0.25
	h.must(a.Signal("Undeclared"))     // every signal records one, declared or not
	h.stepAt(0.375)
	got, age, ok := a.Stimulus("Hurt")
	if !ok || age != 0.125 || DataText(got, 100) != `{by = "grunt-2", hp = 10}` {
		t.Errorf("Stimulus(Hurt) = %s, %v, %v", DataText(got, 100), age, ok)
	}
	if got, age, ok := a.Stimulus("Undeclared"); !ok || got.Kind != NilValue || age != 0.125 {
		t.Errorf("Stimulus(Undeclared) = %v, %v, %v; want no data, 0.125, held", got, age, ok)
	}
	// Received again: the new data and time replace the old.
	h.must(a.SignalDataAt("Hurt", numv(3), 0.5))
	if got, age, ok := a.Stimulus("Hurt"); !ok || got.Num != 3 || age != 0 {
		t.Errorf("after a delivery ahead of the agent's time: %v, %v, %v; want 3, age 0 (never below 0), held", DataText(got, 10), age, ok)
	}
	list := a.Stimuli(nil)
	if len(list) != 2 || list[0].Signal != "Hurt" || list[0].At != 0.5 || list[1].Signal != "Undeclared" || list[1].At != 0.25 {
		t.Errorf("Stimuli = %+v", list)
	}
}

// TestStimulus_expiresAtTheFirstStepAtArrivalPlusExpires: expires="0.5",
// dt = 0.25 (a binary fraction: times are exact). A signal delivered at the
// start of the step at 0.25 is held at 0.25 and 0.5 and gone at 0.75; one
// delivered after the step at 0.5 is held at 0.75 and gone at 1.0.
func TestStimulus_expiresAtTheFirstStepAtArrivalPlusExpires(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	a := h.agent
	h.must(a.SignalAt("Hurt", 0.25)) // the game delivers scheduled signals before the step
	want := []struct {
		t      float64
		leaves string
	}{
		{0.25, "flee=success"},
		{0.5, "flee=success"},
		{0.75, "flee=failure idle=success"},
	}
	for _, w := range want {
		if got := h.stepAt(w.t); got != w.leaves {
			t.Errorf("step at %v: %s, want %s", w.t, got, w.leaves)
		}
	}
	if a.Held("Hurt") || len(a.Stimuli(nil)) != 0 {
		t.Error("an expired stimulus is still listed")
	}
	h = newHarness(t, heldTree, nil)
	a = h.agent
	h.stepAt(0.25)
	h.stepAt(0.5)
	h.must(a.Signal("Hurt")) // after every agent stepped at 0.5
	for _, w := range []struct {
		t      float64
		leaves string
	}{{0.75, "flee=success"}, {1.0, "flee=failure idle=success"}} {
		if got := h.stepAt(w.t); got != w.leaves {
			t.Errorf("step at %v: %s, want %s", w.t, got, w.leaves)
		}
	}
	// A signal without expires is held until it is replaced or forgotten.
	h.must(a.Signal("Seen"))
	h.stepAt(1000)
	if !a.Held("Seen") {
		t.Error("Seen (no expires) expired")
	}
}

func TestStimulus_forgetFromTheTreeAndFromGo(t *testing.T) {
	h := newHarness(t, bt(hurtDecls+`<sequence id="root">
  <action id="check" name="ok"><condition>Seen.held</condition></action>
  <action id="forget" name="bt.stimulus.forget">`+param("signal.name", "Seen")+`</action>
</sequence>`), nil)
	a := h.agent
	h.must(a.Signal("Seen"))
	if got := h.stepAt(1); got != "check=success forget=success" {
		t.Errorf("step 1: %s", got)
	}
	if a.Held("Seen") {
		t.Error("bt.stimulus.forget left the stimulus")
	}
	if got := h.stepAt(2); got != "check=failure" {
		t.Errorf("step 2: %s", got)
	}
	h.must(a.Signal("Seen"))
	if !a.Forget("Seen") || a.Forget("Seen") || a.Held("Seen") {
		t.Error("Forget: true once, then false, and nothing held")
	}
}

func TestStimulus_heldNeedsADeclaredSignal(t *testing.T) {
	tree, err := LoadBytes("t.xml", []byte(bt(hurtDecls+`<action id="a" name="bt.log"><condition>Hurtt.held</condition>`+param("log.message", "")+`</action>`)), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Bind(tree, NewRegistry(), BindOptions{})
	if err == nil || !strings.Contains(err.Error(), `unknown condition "Hurtt.held"`) || !strings.Contains(err.Error(), `did you mean "Hurt.held"?`) {
		t.Errorf("bind: %v", err)
	}
}

func TestLoad_heldNamesThatCouldBeMisread(t *testing.T) {
	cases := []struct {
		name, xml, want string
	}{
		{"a timestamp of the same name", `<signals><signal name="Hit"/></signals><timestamps><timestamp name="Hit"/></timestamps>
<action id="a" name="x"><condition>Hit.held</condition></action>`,
			`t.xml:2:25: condition "Hit.held": Hit is also the timestamp "Hit" (declared at t.xml:1:66)`},
		{"a gate of the same name", `<signals><signal name="Door"/></signals><gates><gate name="Door"/></gates>
<action id="a" name="x"><condition>!Door.held</condition></action>`,
			`condition "Door.held": Door is also the gate "Door"`},
		{"a variable named S.held", `<variables><variable name="Hit.held"/></variables><signals><signal name="Hit"/></signals>
<action id="a" name="x"><condition>Hit.held</condition></action>`,
			`condition "Hit.held": Hit is also the variable "Hit.held"`},
	}
	for _, c := range cases {
		_, err := LoadBytes("t.xml", []byte(bt(c.xml)), LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInvalidTree) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	// A signal that sets a variable of its own name is the usual way.
	if _, err := LoadBytes("t.xml", []byte(bt(`<variables><variable name="Alarm"/></variables>
<signals><signal name="Alarm" variable="Alarm" value="true"/></signals>
<action id="a" name="x"><condition>Alarm.held</condition><condition>Alarm</condition></action>`)), LoadOptions{}); err != nil {
		t.Errorf("a signal named as its variable: %v", err)
	}
}

func TestLoad_signalExpires(t *testing.T) {
	for _, c := range []struct{ xml, want string }{
		{`<signal name="S" expires="0"/>`, `expires="0" on <signal> is not a number of seconds > 0`},
		{`<signal name="S" expires="-1"/>`, `expires="-1" on <signal> is not a number of seconds > 0`},
		{`<signal name="S" expires="soon"/>`, `expires="soon" on <signal>`},
		{`<signal name="S" expires="inf"/>`, `expires="inf" on <signal>`},
		{`<signal name="S" expires="2"/><signal name="S" expires="3"/>`, `signal "S" declared again with expires="3" (declared at t.xml:1:24 with expires="2")`},
	} {
		_, err := LoadBytes("t.xml", []byte(bt(`<signals>`+c.xml+`</signals>`)), LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.xml, err, c.want)
		}
	}
	tree, err := LoadBytes("t.xml", []byte(bt(`<variables><variable name="V"/></variables><signals><signal name="S" variable="V" value="true"/><signal name="S" expires="2.5"/><signal name="S" expires="2.5"/></signals>`)), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := tree.Signals[0]; s.Expires != 2.5 || len(s.Sets) != 1 {
		t.Errorf("signal S: %+v", s)
	}
	var out strings.Builder
	h := tree.Format(&out)
	if h != nil || !strings.Contains(out.String(), "S  sets V=true  expires 2.5s") {
		t.Errorf("btrun tree shows:\n%s", out.String())
	}
}

func TestStimuli_savedAndRestoredExactly(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	a := h.agent
	h.stepAt(0.25)
	h.must(a.SignalData("Seen", table(Field{str("who"), str("grunt-2")}, Field{str("pos"), table(Field{numv(1), numv(4)}, Field{numv(2), numv(-2.5)})})))
	h.must(a.SignalData("Hurt", numv(7)))
	h.must(a.Signal("Plain"))
	h.stepAt(0.5)
	s, err := a.Snapshot()
	h.must(err)
	e := savecodec.NewEncoder()
	EncodeSnapshot(e, &s)
	d := savecodec.NewDecoder(e.Bytes(), e.Strings())
	back := DecodeSnapshot(d)
	h.must(d.Done())

	fresh := h.tree.NewAgent("a1", &Env{Observer: h, Logger: h})
	if _, err := fresh.Restore(&back); err != nil {
		t.Fatal(err)
	}
	show := func(a *Agent) string {
		var b strings.Builder
		for _, x := range a.Stimuli(nil) {
			fmt.Fprintf(&b, "%s@%v=%s ", x.Signal, x.At, DataText(x.Data, 100))
		}
		return b.String()
	}
	if got, want := show(fresh), show(a); got != want || want != `Hurt@0.25=7 Plain@0.25=nil Seen@0.25={who = "grunt-2", pos = {[1] = 4, [2] = -2.5}} ` {
		t.Errorf("restored %q, saved %q", got, want)
	}
	// Both go on alike: Hurt (arrived at 0.25, expires 0.5) is gone at 0.75.
	var leaves [2]string
	for i, x := range []*Agent{a, fresh} {
		h.agent = x
		leaves[i] = h.stepAt(0.75)
	}
	if leaves[0] != "flee=failure idle=success" || leaves[1] != leaves[0] || show(a) != show(fresh) {
		t.Errorf("at 0.75: the saved agent ran %q and holds %q, the restored one ran %q and holds %q", leaves[0], show(a), leaves[1], show(fresh))
	}
	// An expired stimulus is saved until something drops it (-explain
	// reads it, the bound counts it), though it is no longer listed.
	s, err = fresh.Snapshot()
	h.must(err)
	saved := false
	for _, x := range s.Stimuli {
		saved = saved || x.Signal == "Hurt"
	}
	if !saved {
		t.Error("the expired Hurt was not saved")
	}
}

// TestStimuli_anExpiredOneReadsTheSameAfterARestore: -explain says a
// condition read an expired stimulus ("stimulus expired, age 1.5 s"); an
// agent restored from a save made after the expiry says the same, not "no
// stimulus" (the save once left expired stimuli out).
func TestStimuli_anExpiredOneReadsTheSameAfterARestore(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	h.env.Explain = true
	a := h.agent
	h.must(a.SignalAt("Hurt", 0.25))
	h.stepAt(0.25)
	h.stepAt(0.75) // Hurt (0.25 + 0.5) has expired
	s, err := a.Snapshot()
	h.must(err)
	e := savecodec.NewEncoder()
	EncodeSnapshot(e, &s)
	d := savecodec.NewDecoder(e.Bytes(), e.Strings())
	back := DecodeSnapshot(d)
	h.must(d.Done())
	fresh := h.tree.NewAgent("a1", h.env)
	if _, err := fresh.Restore(&back); err != nil {
		t.Fatal(err)
	}
	var whys [2][]string
	for i, x := range []*Agent{a, fresh} {
		h.agent = x
		h.stepAt(1)
		whys[i] = whyLines(x)
	}
	want := []string{"flee: Hurt.held=false (stimulus expired, age 0.75 s)"}
	expectWhys(t, 3, whys[0], want)
	expectWhys(t, 3, whys[1], want)
}

func TestStimuli_restoreRefusesBadOnes(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	base, err := h.agent.Snapshot()
	h.must(err)
	for name, list := range map[string][]Stimulus{
		"out of order": {{Signal: "b"}, {Signal: "a"}},
		"repeated":     {{Signal: "a"}, {Signal: "a"}},
		"bad time":     {{Signal: "a", At: nan()}},
		"bad data":     {{Signal: "a", Data: nested(MaxDataDepth + 1)}},
	} {
		s := base
		s.Stimuli = list
		if _, err := h.agent.PlanRestore(&s); err == nil || !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func nan() float64 { return Value{}.Num / Value{}.Num }

func TestStimuli_atMostMaxStimuli(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	a := h.agent
	for i := range MaxStimuli + 10 {
		a.time = float64(i)
		h.must(a.Signal(fmt.Sprintf("s%03d", i)))
	}
	list := a.Stimuli(nil)
	if len(list) != MaxStimuli || list[0].Signal != "s010" {
		t.Errorf("%d stimuli, first %s; want %d, the 10 oldest dropped", len(list), list[0].Signal, MaxStimuli)
	}
}

// TestStimulus_receivedAgainAllocatesNothing: recording a stimulus again
// overwrites it in place.
func TestStimulus_receivedAgainAllocatesNothing(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	a := h.agent
	h.must(a.Signal("Hurt"))
	h.must(a.Signal("Elsewhere"))
	data := table(Field{str("x"), numv(1)})
	if n := testing.AllocsPerRun(100, func() {
		a.Signal("Hurt")
		a.SignalData("Elsewhere", data)
	}); n != 0 {
		t.Errorf("%v allocations per signal received again", n)
	}
}

// TestStimuli_cost: an agent that never receives a signal has no stimulus
// state, and its steps allocate nothing.
func TestStimuli_noStateWithoutSignals(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	for i := range 10 {
		h.stepAt(float64(i))
	}
	if h.agent.ext != nil && h.agent.ext.stim != nil {
		t.Error("stimulus state allocated without a signal")
	}
}
