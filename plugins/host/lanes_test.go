package host

import (
	"strings"
	"testing"
)

// lanesTree runs plugin calls in two lanes of a parallel, each with its own
// count in its state bytes, beside a built-in lane.
const lanesTree = `<behaviorTree>
<sequence id="root" loop="true">
  <parallel id="both">
    <action id=".slow" name="test.count"><parameter name="count.n">4</parameter></action>
    <action id=".quick" name="test.count"><parameter name="count.n">2</parameter></action>
    <action id=".wait" name="bt.wait"><parameter name="wait.seconds">0.3</parameter></action>
  </parallel>
  <action id="rest" name="test.count"><parameter name="count.n">1</parameter></action>
</sequence>
</behaviorTree>`

// TestBatching_callsInLanesJoinTheRound: a plugin call in a lane pauses the
// agent's whole step and travels in the round's batch with every other
// agent's calls; the agent resumes in that lane, then runs the lanes after
// it, whose call goes in the next round. Each lane's state bytes are its
// own, and the run is the same batched or not.
func TestBatching_callsInLanesJoinTheRound(t *testing.T) {
	run := func(unbatched bool) (string, Stats) {
		w := newWorld(t, lanesTree, []Spec{helperSpec("test", "plugin")}, Options{Unbatched: unbatched}, 5, func(int) fields { return fields{} })
		first := w.set.Stats()
		w.step()
		if !unbatched {
			// Round 1: every agent's .slow call; round 2: every .quick call.
			if st := w.set.Stats(); st.RoundTrips-first.RoundTrips != 2 || st.Calls-first.Calls != 10 {
				t.Errorf("first step: %d round trips for %d calls, want 2 for 10", st.RoundTrips-first.RoundTrips, st.Calls-first.Calls)
			}
		}
		for range 7 {
			for _, o := range w.step() {
				if o.Err != nil {
					t.Fatal(o.Err)
				}
			}
		}
		return strings.Join(w.trace, "\n"), w.set.Stats()
	}
	batched, bs := run(false)
	unbatched, us := run(true)
	if batched != unbatched {
		t.Fatalf("batched and unbatched runs differ:\n%s\n---\n%s", batched, unbatched)
	}
	// A parallel's run is recorded once, when it begins, before its
	// lanes' runs, with its result.
	want := []string{
		"t=0.1 a1: root=moved both=running both.slow=running both.quick=running both.wait=running -> running",
		"t=0.2 a1: both=running both.slow=running both.quick=success both.wait=running -> running",
		"t=0.3 a1: both=running both.slow=running both.wait=running -> running",
		"t=0.4 a1: both=success both.slow=success both.wait=success root=moved rest=success root=moved both=running both.slow=running both.quick=running both.wait=running -> running",
	}
	var a1 []string
	for _, l := range strings.Split(batched, "\n") {
		if strings.Contains(l, " a1:") && len(a1) < len(want) {
			a1 = append(a1, l)
		}
	}
	if strings.Join(a1, "\n") != strings.Join(want, "\n") {
		t.Errorf("a1's steps:\n%s\nwant:\n%s", strings.Join(a1, "\n"), strings.Join(want, "\n"))
	}
	if bs.Calls != us.Calls || bs.RoundTrips >= us.RoundTrips {
		t.Errorf("batched %+v, unbatched %+v", bs, us)
	}
}
