package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// TestInspect_featuresAreWhatTheSaveHolds: after every step of a run that
// uses every feature, Features and CursorActive say what a snapshot says
// (timeout clocks, cooldowns, choice orders, the cursor's active bit), and
// the orders Features returns are the caller's own.
func TestInspect_featuresAreWhatTheSaveHolds(t *testing.T) {
	var trace strings.Builder
	r := newFeaturesRun(t, &trace)
	var seen [3]int
	for s := 1; s <= 150; s++ {
		r.steps(s, s)
		for _, a := range r.agents {
			snap, err := a.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			f := a.Features()
			if got, want := fmt.Sprint(f.Clocks, f.Cooldowns, f.Orders), fmt.Sprint(snap.Clocks, snap.Cooldowns, snap.Orders); got != want {
				t.Fatalf("step %d %s: Features %s; the snapshot holds %s", s, a.ID(), got, want)
			}
			if a.CursorActive() != snap.Active {
				t.Fatalf("step %d %s: CursorActive %v, the snapshot %v", s, a.ID(), a.CursorActive(), snap.Active)
			}
			seen[0] += len(f.Clocks)
			seen[1] += len(f.Cooldowns)
			seen[2] += len(f.Orders)
			for _, o := range f.Orders {
				for i := range o.Order {
					o.Order[i] = -1 // the agent's state must not change
				}
			}
			if again := a.Features(); fmt.Sprint(again.Orders) != fmt.Sprint(snap.Orders) {
				t.Fatalf("step %d %s: changing what Features returned changed the agent", s, a.ID())
			}
		}
	}
	if seen[0] == 0 || seen[1] == 0 || seen[2] == 0 {
		t.Errorf("the run never had clocks, cooldowns and orders together: %v", seen)
	}
}
