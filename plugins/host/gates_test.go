package host

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// gatedTree mixes gate takes with plugin calls: a plugin condition decides
// who wants the gate, plugin actions run while it is held and read its
// state, and the gate's cooldown keeps others out for a while.
const gatedTree = `<behaviorTree>
<gates><gate name="g" users="2" cooldown="0.3"/></gates>
<choice id="root">
  <sequence id="work">
    <condition>test.flag</condition>
    <sequence id=".use" gate="g">
      <action id=".see" name="test.gates"/>
      <action id=".count" name="test.count"><parameter name="count.n">3</parameter></action>
    </sequence>
  </sequence>
  <action id="rest" name="test.count"><parameter name="count.n">2</parameter></action>
</choice>
</behaviorTree>`

// runGated steps 24 agents sharing gates 16 times in rounds with their
// plugin calls, and returns the trace (with each step's gate events) and
// the agents' fields.
func runGated(t *testing.T, unbatched bool) (string, Stats) {
	data := make([]fields, 24)
	w := newWorld(t, gatedTree, []Spec{helperSpec("test", "plugin")}, Options{Unbatched: unbatched}, 0, nil)
	gates := runtime.NewGates()
	if err := gates.Add(w.tree); err != nil {
		t.Fatal(err)
	}
	w.env.Gates = gates
	for i := range data {
		data[i] = fields{"flag": i%3 != 2}
		a := w.tree.NewAgent(fmt.Sprintf("a%d", i+1), w.env)
		a.SetUserData(data[i])
		w.agents = append(w.agents, a)
	}
	rounds := runtime.Rounds{Resolvers: []runtime.Resolver{gates, w.set}}
	for s := 1; s <= 16; s++ {
		out, err := rounds.StepAt(w.agents, float64(s)*0.1)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range w.agents {
			if out[i].Err != nil {
				t.Fatal(out[i].Err)
			}
			if ev := a.GateEvents(); len(ev) > 0 {
				w.trace = append(w.trace, fmt.Sprintf("t=%.1f %s gates %v", a.Time(), a.ID(), ev))
			}
		}
	}
	var b strings.Builder
	b.WriteString(strings.Join(w.trace, "\n"))
	for i, d := range data {
		keys := make([]string, 0, len(d))
		for k := range d {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "\na%d:", i+1)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%v", k, d[k])
		}
	}
	return b.String(), w.set.Stats()
}

// TestBatching_gatesAndCallsShareTheRounds: in a game with gates and
// plugins, takes and plugin calls pause agents in the same rounds, and the
// run is the same whether calls travel batched or one by one; a plugin sees
// the agent's slot and the gate's state through its reserved read fields.
func TestBatching_gatesAndCallsShareTheRounds(t *testing.T) {
	batched, bs := runGated(t, false)
	unbatched, us := runGated(t, true)
	if batched != unbatched {
		bl, ul := strings.Split(batched, "\n"), strings.Split(unbatched, "\n")
		for i := range min(len(bl), len(ul)) {
			if bl[i] != ul[i] {
				t.Fatalf("traces differ at line %d:\nbatched:   %s\nunbatched: %s", i+1, bl[i], ul[i])
			}
		}
		t.Fatalf("traces differ in length: %d and %d lines", len(bl), len(ul))
	}
	if bs.Calls != us.Calls || us.RoundTrips != us.Calls {
		t.Errorf("batched %+v, unbatched %+v: the same calls should travel", bs, us)
	}
	for _, want := range []string{"work.use.see=success", "gates [{0 true}]", "gates [{0 false}]",
		"gate=slot=1(true) open=false holders=2", "gate=slot=2(true) open=false holders=2", "rest=running"} {
		if !strings.Contains(batched, want) {
			t.Errorf("the run never shows %q:\n%s", want, batched)
		}
	}
}

// TestRegister_gateFieldsAreCheckedWhenBound: a plugin that reads a gate
// field of a gate the tree does not declare, or a malformed one, is a bind
// error at the rule.
func TestRegister_gateFieldsAreCheckedWhenBound(t *testing.T) {
	site := &runtime.Site{Name: "x.act"}
	tree, err := runtime.LoadBytes("t.xml", []byte(`<behaviorTree><gates><gate name="g"/></gates><success id="root"/></behaviorTree>`), runtime.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	site.Tree = tree
	for _, c := range []struct {
		reads, writes []string
		want          string
	}{
		{[]string{"x", "bt.gate.h.slot"}, nil, `reads field "bt.gate.h.slot", and tree t.xml declares no gate "h"`},
		{[]string{"bt.gate.g.count"}, nil, `fields starting with "bt.gate." are reserved for gates`},
		{[]string{"bt.gate.slot"}, nil, `fields starting with "bt.gate." are reserved for gates`},
		{nil, []string{"bt.gate.g.slot"}, `a plugin cannot change gates`},
	} {
		_, err := bindGateReads(site, "action", c.reads, c.writes)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("reads %v writes %v: %v, want %q", c.reads, c.writes, err, c.want)
		}
	}
	if r, err := bindGateReads(site, "action", []string{"x", "bt.gate.g.open"}, []string{"x"}); err != nil || len(r) != 1 || r[0].pos != 1 {
		t.Errorf("a good read: %v %v", r, err)
	}
}

// TestResume_freesAnAgentPausedAtAGateTake: Resume of an agent that waits
// for the take of a gate, not for a call of the set, says what it waits
// for and frees it: its step ends with that error, it holds nothing, and
// it steps again; an agent paused at a call of no plugin is failed the
// same way, and one that is not paused is left as it is.
func TestResume_freesAnAgentPausedAtAGateTake(t *testing.T) {
	w := newWorld(t, `<behaviorTree><gates><gate name="g"/></gates>
<sequence id="root" gate="g"><action id="work" name="test.count"><parameter name="count.n">3</parameter></action></sequence>
</behaviorTree>`, []Spec{helperSpec("test", "plugin")}, Options{}, 0, nil)
	gates := runtime.NewGates()
	if err := gates.Add(w.tree); err != nil {
		t.Fatal(err)
	}
	w.env.Gates = gates
	a := w.tree.NewAgent("a1", w.env)
	a.SetUserData(fields{})
	if st, err := a.Step(0.1); st != runtime.Paused || a.PausedAt() != runtime.PauseGate {
		t.Fatalf("step: %v %v, paused at %v; want paused at the take of g", st, err, a.PausedAt())
	}
	st, err := w.set.Resume(a)
	if st != runtime.Errored || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "paused at the take of a gate") {
		t.Fatalf("Resume: %v %v; want an error saying the agent waits for the take of a gate", st, err)
	}
	if a.Paused() || a.CursorLabel() != "root" {
		t.Fatalf("after Resume the agent is paused at %v, cursor %s", a.PausedAt(), a.CursorLabel())
	}
	if err := gates.EndRound([]*runtime.Agent{a}); err != nil {
		t.Fatal(err)
	}
	if n := a.GateHoldersAt(0); n != 0 {
		t.Errorf("gate g has %d holders after the take was given up", n)
	}
	if st, err := w.set.Resume(a); st != runtime.Errored || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "not waiting") {
		t.Errorf("Resume of an agent not paused: %v %v", st, err)
	}
	if st, _ := a.Step(0.1); st != runtime.Paused || a.PausedAt() != runtime.PauseGate {
		t.Errorf("the freed agent's next step: %v, paused at %v; want the take asked again", st, a.PausedAt())
	}
}
