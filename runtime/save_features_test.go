package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

// featuresTree uses every feature of interruption and choice orders: abort
// lower, both and self, timeouts on sequences and leaves, cooldowns, log
// parameters, and random, weighted and score orders with a scorer.
const featuresTree = `<behaviorTree>
<choice id="root">
  <sequence id="flee" abort="lower" cooldown="1.5">
    <condition>hurt</condition>
    <parameter name="log.start">fleeing</parameter>
    <action id=".run" name="work" timeout="0.7"/>
  </sequence>
  <sequence id="fight" abort="both" timeout="2">
    <condition>alarm</condition>
    <parameter name="log.failure">fight lost</parameter>
    <choice id=".how" order="weighted" loop="true">
      <action id=".shoot" name="work" cooldown="0.5"><parameter name="choice.weight">3</parameter></action>
      <action id=".punch" name="work"><parameter name="choice.weight">1</parameter></action>
      <action id=".wait" name="work"><parameter name="choice.weight">0</parameter></action>
    </choice>
  </sequence>
  <choice id="idle" order="score" abort="self">
    <condition>calm</condition>
    <parameter name="log.success">idled</parameter>
    <choice id=".look" order="random">
      <parameter name="choice.score">urge</parameter>
      <action id=".left" name="work"/>
      <action id=".right" name="work"/>
      <action id=".up" name="work"/>
    </choice>
    <action id=".nap" name="work" timeout="0.5"><parameter name="choice.score">0.5</parameter></action>
  </choice>
</choice>
</behaviorTree>`

// featuresRun is a group of agents on featuresTree whose actions, conditions
// and scorer draw from the agents' generators, with a trace of every step,
// interrupt and log line.
type featuresRun struct {
	agents []*Agent
	trace  *strings.Builder
}

func newFeaturesRun(t testing.TB, trace *strings.Builder) *featuresRun {
	t.Helper()
	reg := NewRegistry()
	reg.RegisterAction("work", ActionFunc(func(a *Agent, p Params) (Status, error) {
		switch u := a.Rand().Float64(); {
		case u < 0.7:
			return Running, nil
		case u < 0.9:
			return Success, nil
		}
		return Failure, nil
	}))
	reg.RegisterCondition("hurt", ConditionFunc(func(a *Agent, p Params) (bool, error) { return a.Rand().Float64() < 0.08, nil }))
	reg.RegisterCondition("alarm", ConditionFunc(func(a *Agent, p Params) (bool, error) {
		return (a.StepCount()/7+uint64(len(a.ID())))%3 == 0, nil
	}))
	reg.RegisterCondition("calm", ConditionFunc(func(a *Agent, p Params) (bool, error) { return a.Rand().Float64() < 0.85, nil }))
	reg.RegisterScorer("urge", ScorerFunc(func(a *Agent, p Params) (float64, error) { return a.Rand().Float64() - 0.3, nil }))
	tree, err := LoadBytes("features.xml", []byte(featuresTree), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := &featuresRun{trace: trace}
	env := &Env{Seed: 11, Observer: r, Logger: r}
	for _, id := range []string{"g-1", "g-22", "g-333"} {
		r.agents = append(r.agents, b.NewAgent(id, env))
	}
	return r
}

func (r *featuresRun) StepDone(a *Agent, runs []RuleRun, st Status, err error) {
	rules := a.bound.Tree.Rules
	fmt.Fprintf(r.trace, "%d %s", a.StepCount(), a.ID())
	if in, ok := a.LastInterrupt(); ok {
		fmt.Fprintf(r.trace, " [%s %s]", in.Kind, rules[in.Rule].Label)
	}
	for _, run := range runs {
		fmt.Fprintf(r.trace, " %s=%s", rules[run.Rule].Label, run.Status)
	}
	fmt.Fprintf(r.trace, " -> %s @%s", st, a.CursorLabel())
	if err != nil {
		fmt.Fprintf(r.trace, " (%v)", err)
	}
	r.trace.WriteByte('\n')
}

func (r *featuresRun) Log(a *Agent, label, msg string) {
	fmt.Fprintf(r.trace, "log %s %s: %s\n", a.ID(), label, msg)
}

func (r *featuresRun) steps(from, to int) {
	for s := from; s <= to; s++ {
		for _, a := range r.agents {
			a.StepAt(float64(s) * 0.1)
		}
	}
}

// TestSave_featuresContinueExactly: a run of N steps gives the same trace
// (steps, interrupts, logs) as k steps, a save, a restore into new agents and
// N-k steps, for every k: timeout clocks, cooldowns, choice orders and the
// agents' generators are saved, mid-timeout and mid-cooldown included.
func TestSave_featuresContinueExactly(t *testing.T) {
	const n = 150
	var whole strings.Builder
	newFeaturesRun(t, &whole).steps(1, n)
	for _, want := range []string{"[preempt flee]", "[abort fight]", "[timeout ", "[abort idle]", "flee: fleeing", "fight lost", "idled"} {
		if !strings.Contains(whole.String(), want) {
			t.Fatalf("the run never shows %q; the test does not exercise what it should:\n%s", want, whole.String())
		}
	}
	var clocks, cooldowns, orders int
	for k := 1; k < n; k++ {
		var first, second strings.Builder
		r := newFeaturesRun(t, &first)
		r.steps(1, k)
		for _, a := range r.agents {
			s, err := a.Snapshot()
			if err != nil {
				t.Fatalf("k=%d: %v", k, err)
			}
			clocks += len(s.Clocks)
			cooldowns += len(s.Cooldowns)
			orders += len(s.Orders)
		}
		data, err := SaveAgents(r.agents, nil)
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		fresh := newFeaturesRun(t, &second)
		if warnings, err := RestoreAgents(data, fresh.agents, nil); err != nil || len(warnings) > 0 {
			t.Fatalf("k=%d: %v %v", k, warnings, err)
		}
		fresh.steps(k+1, n)
		if got := first.String() + second.String(); got != whole.String() {
			t.Fatalf("k=%d: the restored run differs:\n%s", k, firstDiff(got, whole.String()))
		}
	}
	if clocks == 0 || cooldowns == 0 || orders == 0 {
		t.Errorf("saves held %d clocks, %d cooldowns, %d orders: the cuts must fall mid-timeout, mid-cooldown and inside ordered choices", clocks, cooldowns, orders)
	}
}

// TestSave_generatorAndActiveFlagRoundTrip: the agent's generator state and
// whether the cursor is active come back exactly.
func TestSave_generatorAndActiveFlagRoundTrip(t *testing.T) {
	var trace strings.Builder
	r := newFeaturesRun(t, &trace)
	r.steps(1, 17)
	a := r.agents[1]
	data, err := SaveAgents(r.agents, nil)
	if err != nil {
		t.Fatal(err)
	}
	fresh := newFeaturesRun(t, &trace)
	if _, err := RestoreAgents(data, fresh.agents, nil); err != nil {
		t.Fatal(err)
	}
	b := fresh.agents[1]
	if a.Rand().State() != b.Rand().State() || a.flags != b.flags {
		t.Errorf("restored: rand %x flags %b; saved: rand %x flags %b", b.Rand().State(), b.flags, a.Rand().State(), a.flags)
	}
	// The slab matches but for the order regions of choices that are not
	// active, which nothing reads before they are entered again.
	sa, _ := a.Snapshot()
	sb, _ := b.Snapshot()
	ea, eb := savecodec.NewEncoder(), savecodec.NewEncoder()
	EncodeSnapshot(ea, &sa)
	EncodeSnapshot(eb, &sb)
	if !bytes.Equal(ea.Bytes(), eb.Bytes()) || len(sa.Clocks)+len(sa.Orders) == 0 {
		t.Errorf("snapshots differ after a round trip:\n%+v\n%+v", sa, sb)
	}
}

func equalWords(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRestore_featuresRejectBadData: in the tree a save was made from, an
// order that is not a set of child positions, a clock of a rule that is not
// active and a clock that is not a time are corrupt data; nothing changes.
func TestRestore_featuresRejectBadData(t *testing.T) {
	var trace strings.Builder
	r := newFeaturesRun(t, &trace)
	var s Snapshot
	for k := 1; ; k++ {
		r.steps(k, k)
		var err error
		if s, err = r.agents[0].Snapshot(); err != nil {
			t.Fatal(err)
		}
		if len(s.Orders) > 0 && len(s.Clocks) > 0 && len(s.Orders[0].Order) > 1 {
			break
		}
		if k > 500 {
			t.Fatal("no cut with an order and a clock")
		}
	}
	cases := []struct {
		name   string
		change func(s *Snapshot)
		want   string
	}{
		{"an order repeating a child", func(s *Snapshot) { s.Orders[0].Order[1] = s.Orders[0].Order[0] }, "does not fit its children"},
		{"an order past the children", func(s *Snapshot) { s.Orders[0].Order[0] = 99 }, "does not fit its children"},
		{"a clock of a rule that is not active", func(s *Snapshot) {
			s.Clocks = append(s.Clocks, RuleTime{Rule: "flee.run", Index: 2, Time: 1})
		}, "rule flee.run has a timeout clock but is not active"},
		{"a clock that is not a time", func(s *Snapshot) { s.Clocks[0].Time = posInf() }, "bad clock"},
		{"a cooldown of a rule without one", func(s *Snapshot) {
			s.Cooldowns = append(s.Cooldowns, RuleTime{Rule: "idle", Index: 11, Time: 1})
		}, "no rule with a cooldown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := s
			bad.Orders = append([]RuleOrder(nil), s.Orders...)
			bad.Orders[0].Order = append([]int32(nil), s.Orders[0].Order...)
			bad.Clocks = append([]RuleTime(nil), s.Clocks...)
			c.change(&bad)
			e := savecodec.NewEncoder()
			e.Uvarint(1)
			EncodeSnapshot(e, &bad)
			data := savecodec.WriteContainer(AgentsMagic, AgentsVersion, e)
			fresh := newFeaturesRun(t, &trace)
			a := fresh.agents[:1]
			before, _ := SaveAgents(a, nil)
			_, err := RestoreAgents(data, a, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got %v, want a corrupt-data error containing %q", err, c.want)
			}
			if after, _ := SaveAgents(a, nil); !bytes.Equal(before, after) {
				t.Error("the agent changed although the restore failed")
			}
		})
	}
}

// TestRestore_version1DataLoads: agents data of format version 1 (before
// per-agent generators and interruption) still restores: the generator starts
// fresh, a cursor that ran is active.
func TestRestore_version1DataLoads(t *testing.T) {
	agents := waitsAgents(t, nil)
	runWaits(agents, 1, 9)
	e := savecodec.NewEncoder()
	e.Uvarint(uint64(len(agents)))
	for _, a := range agents {
		s, err := a.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		encodeSnapshotV1(e, &s)
	}
	data := savecodec.WriteContainer(AgentsMagic, 1, e)
	fresh := waitsAgents(t, nil)
	if _, err := RestoreAgents(data, fresh, nil); err != nil {
		t.Fatal(err)
	}
	for i, a := range fresh {
		if a.CursorLabel() != agents[i].CursorLabel() || a.time != agents[i].time || !equalWords(a.slab, agents[i].slab) {
			t.Errorf("agent %s restored from version 1 at %s t=%v", a.id, a.CursorLabel(), a.time)
		}
		if a.Rand().State() != AgentRandState(0, a.id) {
			t.Errorf("agent %s: the generator does not start fresh", a.id)
		}
	}
	// And it continues as the original does.
	var want, got strings.Builder
	for _, a := range agents {
		a.env.Observer = &traceObserver{}
	}
	obsA, obsB := &traceObserver{}, &traceObserver{}
	agents[0].env.Observer, fresh[0].env.Observer = obsA, obsB
	runWaits(agents, 10, 30)
	runWaits(fresh, 10, 30)
	want.WriteString(obsA.b.String())
	got.WriteString(obsB.b.String())
	if got.String() != want.String() {
		t.Errorf("the run restored from version 1 differs:\n%s", firstDiff(got.String(), want.String()))
	}
}

// encodeSnapshotV1 writes a snapshot as format version 1 did.
func encodeSnapshotV1(e *savecodec.Encoder, s *Snapshot) {
	e.String(s.ID)
	e.String(s.Tree)
	e.String(s.Fingerprint)
	e.String(s.Cursor)
	var flags byte
	if s.FirstRun {
		flags |= 1
	}
	if s.Running {
		flags |= 2
	}
	e.Byte(flags)
	e.Byte(byte(s.Last))
	e.Float(s.Time)
	e.Float(s.Dt)
	e.Uvarint(s.Step)
	e.Uvarint(uint64(len(s.Vars)))
	for _, v := range s.Vars {
		e.String(v.Name)
		e.Bool(v.Value)
	}
	e.Uvarint(uint64(len(s.Stamps)))
	for _, st := range s.Stamps {
		e.String(st.Name)
		e.Bool(st.Set)
		if st.Set {
			e.Float(st.Time)
		}
	}
	e.Uvarint(s.SignalSeq)
	e.Uvarint(uint64(len(s.Signals)))
	for _, m := range s.Signals {
		e.String(m.Name)
		e.Uvarint(m.Mark)
	}
	e.Uvarint(s.RuleWord)
	e.Blob(s.RuleBytes)
	EncodeValue(e, s.Host)
}
