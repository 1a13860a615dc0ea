package host

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

const mixedTree = `<behaviorTree>
<variables><variable name="Done" default="false"/></variables>
<signals><signal name="Counted" variable="Done" value="true"/></signals>
<choice id="root">
  <sequence id="work">
    <condition>test.flag</condition>
    <action id=".count" name="test.count"><parameter name="count.n">2</parameter><parameter name="count.signal">Counted</parameter></action>
    <action id=".move" name="test.move"><parameter name="move.dx">0.5</parameter></action>
    <action id=".wait" name="bt.wait"><parameter name="wait.seconds">0.2</parameter></action>
    <action id=".jump" name="test.jump"><parameter name="jump.to">root.rest</parameter><condition>Done</condition></action>
  </sequence>
  <action id=".rest" name="test.count"><parameter name="count.n">3</parameter></action>
</choice>
</behaviorTree>`

// runMixed steps 40 agents 15 times and returns the trace, the agents'
// final fields and the traffic.
func runMixed(t *testing.T, unbatched bool) (string, Stats) {
	data := make([]fields, 40)
	w := newWorld(t, mixedTree, []Spec{helperSpec("test", "plugin")}, Options{Unbatched: unbatched}, len(data),
		func(i int) fields {
			data[i] = fields{"x": float64(i), "flag": i%3 != 0}
			return data[i]
		})
	for s := range 15 {
		if s == 7 {
			data[4]["flag"] = false // conditions change mid-run
			data[3]["flag"] = true
		}
		for _, o := range w.step() {
			if o.Err != nil {
				t.Fatal(o.Err)
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

// TestBatching_sameTraceAsUnbatched runs the same agents with calls sent as
// one batch per round and with every call its own round trip: the traces and
// the agents' data are identical, and batching needs far fewer round trips.
func TestBatching_sameTraceAsUnbatched(t *testing.T) {
	batched, bs := runMixed(t, false)
	unbatched, us := runMixed(t, true)
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
	// 15 steps of at most 3 plugin rounds each (count, move, jump/rest).
	if bs.RoundTrips > 15*4 || bs.Calls < 10*bs.RoundTrips {
		t.Errorf("batched traffic %+v: expected a few round trips per step", bs)
	}
	t.Logf("batched: %d calls in %d round trips; unbatched: %d round trips", bs.Calls, bs.RoundTrips, us.RoundTrips)
	if !strings.Contains(batched, "work.jump=success root.rest=running") {
		t.Errorf("the run never jumped; the test does not exercise what it should:\n%s", batched)
	}
}
