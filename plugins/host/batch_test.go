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
	return runMixedN(t, 40, unbatched)
}

// runMixedN is runMixed with n agents.
func runMixedN(t *testing.T, n int, unbatched bool) (string, Stats) {
	data := make([]fields, n)
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

// watchedTree watches a plugin condition from the start of each step
// (abort="lower" and "both") and orders a choice by a plugin scorer.
const watchedTree = `<behaviorTree>
<choice id="root">
  <sequence id="work" abort="both"><condition>!test.flag</condition>
    <choice id=".pick" order="score">
      <action id=".a" name="test.count"><parameter name="choice.score">test.urge</parameter><parameter name="count.n">3</parameter></action>
      <action id=".b" name="test.count"><parameter name="choice.score">1</parameter><parameter name="count.n">2</parameter></action>
      <action id=".c" name="test.count"><parameter name="choice.score">test.urge</parameter><parameter name="urge.times">-1</parameter></action>
    </choice>
  </sequence>
  <action id="alert" name="test.count"><condition>test.flag</condition><parameter name="count.n">4</parameter></action>
</choice>
</behaviorTree>`

// runWatched steps 30 agents of watchedTree 12 times, their flags and urges
// changing mid-run, and returns the trace and the traffic.
func runWatched(t *testing.T, unbatched bool) (string, Stats) {
	data := make([]fields, 30)
	w := newWorld(t, watchedTree, []Spec{helperSpec("test", "plugin")}, Options{Unbatched: unbatched}, len(data),
		func(i int) fields {
			data[i] = fields{"flag": false, "urge": float64(i%4) - 1}
			return data[i]
		})
	for s := range 12 {
		for i, d := range data {
			switch {
			case s == 2 && i%3 == 0, s == 6 && i%3 == 1:
				d["flag"] = true
			case s == 4, s == 8 && i%2 == 0:
				d["flag"] = false
			}
		}
		for _, o := range w.step() {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
		}
	}
	return strings.Join(w.trace, "\n"), w.set.Stats()
}

// TestBatching_watchedConditionsAndScorersBatch: the conditions that the
// start-of-step checks call (a watched rule's), and scorers, are plugin
// calls like any other: they pause the agent's step and travel in the
// round's batch; batched or not, the run is the same.
func TestBatching_watchedConditionsAndScorersBatch(t *testing.T) {
	batched, bs := runWatched(t, false)
	unbatched, us := runWatched(t, true)
	if batched != unbatched {
		bl, ul := strings.Split(batched, "\n"), strings.Split(unbatched, "\n")
		for i := range min(len(bl), len(ul)) {
			if bl[i] != ul[i] {
				t.Fatalf("traces differ at line %d:\nbatched:   %s\nunbatched: %s", i+1, bl[i], ul[i])
			}
		}
		t.Fatalf("traces differ in length")
	}
	for _, want := range []string{"[preempt work]", "[abort work]", "work.pick.a=running", "work.pick.b=running"} {
		if !strings.Contains(batched, want) {
			t.Errorf("the run never shows %q; the test does not exercise what it should:\n%s", want, batched)
		}
	}
	if strings.Contains(batched, "work.pick.c=") {
		t.Errorf("a child scoring <= 0 was tried:\n%s", batched)
	}
	// 30 agents, 12 steps: every call of a round travels in one batch.
	if bs.Calls != us.Calls || bs.RoundTrips > 12*8 || bs.Calls < 10*bs.RoundTrips {
		t.Errorf("batched %+v, unbatched %+v: the checks' and scorers' calls should travel in the rounds' batches", bs, us)
	}
	t.Logf("batched: %d calls in %d round trips", bs.Calls, bs.RoundTrips)
}
