package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

// TestGates_theGateIsTakenBeforeTheRulesConditions: the arrival checks are
// cooldown, gate, conditions: a gated rule whose own conditions fail takes
// the gate and gives it back in the same step (its cooldown starts), which
// is why a rule that decides whether an agent wants a gate belongs above
// the gated rule.
func TestGates_theGateIsTakenBeforeTheRulesConditions(t *testing.T) {
	const tree = `<behaviorTree>
  <gates><gate name="g" users="1" cooldown="5"/></gates>
  <choice id="root">
    <action id="use" name="run" gate="g"><condition>on</condition></action>
    <success id="shut"><condition>!g.open</condition></success>
  </choice>
</behaviorTree>`
	w := newGateWorld(t, tree, "a1", "a2")
	w.conds["on.a2"] = true
	expectLines(t, 1, w.stepAll(), []string{
		"a1 success root: use=failure shut=success [gates g+ g-]",
		"a2 success root: use=failure shut=success", // refused: a1 asked first
	})
}

// gateFixture is a small game of three agents with a one-at-a-time gate
// with a cooldown and a rendezvous gate, whose conditions switch on a
// schedule: every kind of gate state (held, cooling, met) comes and goes.
const gateFixture = `<behaviorTree>
  <gates>
    <gate name="grenade" users="1" cooldown="1.5"/>
    <gate name="meet" users="2"/>
  </gates>
  <choice id="root">
    <sequence id="throw">
      <condition>on</condition>
      <condition>grenade.open</condition>
      <action id=".aim" name="bt.wait" gate="grenade"><parameter name="wait.seconds">1</parameter></action>
    </sequence>
    <sequence id="pair" gate="meet">
      <action id=".wait" name="bt.gate.wait" timeout="1"><parameter name="gate.name">meet</parameter></action>
      <action id=".hand" name="bt.wait"><parameter name="wait.seconds">0.5</parameter></action>
    </sequence>
    <yield id="idle"/>
  </choice>
</behaviorTree>`

// runGateFixture steps w from step from to to, switching each agent's
// "on" by the step, and appends the lines to b.
func runGateFixture(w *gateWorld, b *strings.Builder, from, to int) {
	for s := from; s <= to; s++ {
		for i, a := range w.agents {
			w.conds["on."+a.ID()] = (s+i)%4 != 0
		}
		for _, l := range w.stepAll() {
			fmt.Fprintf(b, "%d %s\n", s, l)
		}
	}
}

func newGateFixture(t testing.TB) *gateWorld {
	w := newGateWorld(t, gateFixture, "a1", "a2", "a3")
	w.dt = 0.5
	return w
}

// TestGates_restoredRunContinuesExactly: the fixture run whole gives the
// same lines as the run saved after any step and continued in new agents
// with a new Gates (mid-hold, mid-cooldown, mid-rendezvous included).
func TestGates_restoredRunContinuesExactly(t *testing.T) {
	const n = 40
	var whole strings.Builder
	w := newGateFixture(t)
	runGateFixture(w, &whole, 1, n)
	for _, want := range []string{"grenade+", "grenade-", "meet+", "meet-", "throw.aim=failure", "[timeout pair.wait]"} {
		if !strings.Contains(whole.String(), want) {
			t.Fatalf("the fixture never shows %q:\n%s", want, whole.String())
		}
	}
	for k := 1; k < n; k++ {
		var got strings.Builder
		first := newGateFixture(t)
		runGateFixture(first, &got, 1, k)
		data, err := SaveAgents(first.agents, nil)
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		second := newGateFixture(t)
		if _, err := RestoreAgents(data, second.agents, nil); err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if a, b := fmt.Sprint(first.gates.List()), fmt.Sprint(second.gates.List()); a != b {
			t.Fatalf("k=%d: gates %s, restored %s", k, a, b)
		}
		second.step = k
		runGateFixture(second, &got, k+1, n)
		if got.String() != whole.String() {
			t.Fatalf("k=%d: the restored run differs:\n%s", k, firstDiff(got.String(), whole.String()))
		}
	}
}

// TestRestore_gatesRejectStateThatDoesNotAgree: the gates' saved state
// must agree with the agents' saved holds; a restore that fails changes
// nothing.
func TestRestore_gatesRejectStateThatDoesNotAgree(t *testing.T) {
	w := newGateFixture(t)
	var b strings.Builder
	runGateFixture(w, &b, 1, 1) // a1 holds grenade, a2 and a3 meet
	good := mustSave(t, w.agents...)
	cases := []struct {
		name string
		edit func(set []GateSnapshot, snaps []Snapshot)
		want string
	}{
		{"a holder that holds nothing", func(set []GateSnapshot, snaps []Snapshot) {
			set[0].Holders = append(set[0].Holders, HolderSnapshot{Agent: "a3", Step: 1, Time: 0.5})
		}, `agent a3 is saved among the holders of gate "grenade", and none of its saved rules holds it`},
		{"an agent that holds but is not a holder", func(set []GateSnapshot, snaps []Snapshot) {
			set[0].Holders = nil
		}, `agent a1 holds gate "grenade" by its saved rules but is not among the gate's saved holders`},
		{"a holder of another game", func(set []GateSnapshot, snaps []Snapshot) {
			set[1].Holders[0].Agent = "zz"
		}, `gate "meet" is saved as held by agent "zz", which is not among the agents restored with it`},
		{"a holder twice", func(set []GateSnapshot, snaps []Snapshot) {
			set[1].Holders[1] = set[1].Holders[0]
		}, `gate "meet" is saved as held twice by agent "a2"`},
		{"a bad time", func(set []GateSnapshot, snaps []Snapshot) {
			set[0].Since = math.Inf(1)
		}, `gate "grenade" has a bad time`},
		{"a hold by a rule without that gate", func(set []GateSnapshot, snaps []Snapshot) {
			snaps[0].Holds[0].Gate = "meet"
		}, `the hold of gate "meet" by rule throw.aim has no rule with that gate to go to`},
		{"a hold by a rule that is not active", func(set []GateSnapshot, snaps []Snapshot) {
			snaps[0].Holds = append(snaps[0].Holds, RuleHold{Rule: "pair", Index: 3, Gate: "meet"})
		}, `rule pair holds gate "meet" but is not active`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			snaps, sets := decodeGateSave(t, good, w.agents)
			c.edit(sets[0], snaps)
			data := encodeGateSave(snaps, sets)
			fresh := newGateFixture(t)
			before := mustSave(t, fresh.agents...)
			_, err := RestoreAgents(data, fresh.agents, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnknownID) {
				t.Errorf("the error wraps neither ErrCorrupt nor ErrUnknownID: %v", err)
			}
			if after := mustSave(t, fresh.agents...); !bytes.Equal(before, after) {
				t.Errorf("a failed restore changed the agents")
			}
		})
	}
	// A restore of part of the agents sharing a Gates that someone else
	// holds is refused: the other holders would be lost.
	fresh := newGateFixture(t)
	runGateFixture(fresh, &b, 1, 3)
	one := mustSave(t, w.agents[0])
	if _, err := RestoreAgents(one, fresh.agents[:1], nil); err == nil || !strings.Contains(err.Error(), "which this restore does not cover") {
		t.Errorf("restoring part of the agents: %v", err)
	}
}

// decodeGateSave reads SaveAgents data into snapshots and gate sets.
func decodeGateSave(t testing.TB, data []byte, agents []*Agent) ([]Snapshot, [][]GateSnapshot) {
	t.Helper()
	_, d, err := savecodec.ReadContainer(AgentsMagic, data)
	if err != nil {
		t.Fatal(err)
	}
	n := d.Count(1)
	snaps := make([]Snapshot, n)
	for i := range snaps {
		decodeSnapshotHead(d, &snaps[i], nil)
		snaps[i].Host = DecodeValue(d)
	}
	sets := decodeGateSets(d)
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	return snaps, sets
}

// encodeGateSave writes snapshots and gate sets as SaveAgents would.
func encodeGateSave(snaps []Snapshot, sets [][]GateSnapshot) []byte {
	e := savecodec.NewEncoder()
	e.Uvarint(uint64(len(snaps)))
	for i := range snaps {
		EncodeSnapshot(e, &snaps[i])
	}
	e.Uvarint(uint64(len(sets)))
	for _, s := range sets {
		encodeGateSet(e, s)
	}
	return savecodec.WriteContainer(AgentsMagic, AgentsVersion, e)
}

// FuzzRestoreGates: no input makes a restore of agents sharing gates
// panic, a failed restore leaves them as they were, and a restore that
// worked leaves agents that step in rounds.
func FuzzRestoreGates(f *testing.F) {
	for _, k := range []int{1, 3, 6, 11, 17} {
		w := newGateFixture(f)
		var b strings.Builder
		runGateFixture(w, &b, 1, k)
		f.Add(mustSave(f, w.agents...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w := newGateFixture(t)
		var b strings.Builder
		runGateFixture(w, &b, 1, 2)
		before := mustSave(t, w.agents...)
		if _, err := RestoreAgents(data, w.agents, nil); err != nil {
			if after := mustSave(t, w.agents...); !bytes.Equal(before, after) {
				t.Fatalf("a failed restore changed the agents: %v", err)
			}
			return
		}
		runGateFixture(w, &b, 3, 8)
	})
}

// FuzzDecodeGateSets feeds arbitrary gate sets (behind valid snapshots and
// frame) to agents sharing gates.
func FuzzDecodeGateSets(f *testing.F) {
	w := newGateFixture(f)
	var b strings.Builder
	runGateFixture(w, &b, 1, 3)
	snaps, sets := decodeGateSave(f, mustSave(f, w.agents...), w.agents)
	e := savecodec.NewEncoder()
	encodeGateSet(e, sets[0])
	f.Add(e.Bytes(), strings.Join(e.Strings(), "\x00"))
	f.Fuzz(func(t *testing.T, body []byte, table string) {
		e := savecodec.NewEncoder()
		e.Uvarint(uint64(len(snaps)))
		for i := range snaps {
			EncodeSnapshot(e, &snaps[i])
		}
		e.Uvarint(1)
		// The gate set's strings index the whole table: the fuzzed table
		// follows the snapshots' strings.
		e.Raw(body)
		e.RawStrings(strings.Split(table, "\x00"))
		data := savecodec.WriteContainer(AgentsMagic, AgentsVersion, e)
		fresh := newGateFixture(t)
		if _, err := RestoreAgents(data, fresh.agents, nil); err == nil {
			var b strings.Builder
			runGateFixture(fresh, &b, 1, 5)
		}
	})
}
