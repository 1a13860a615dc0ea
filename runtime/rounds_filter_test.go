package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// pickyResolver records the agents each of its rounds gets; with want set,
// it is a round filter that wants the agents want names.
type pickyResolver struct {
	want   map[string]bool
	rounds []string
}

func (p *pickyResolver) EndRound(round []*Agent) error {
	var ids []string
	for _, a := range round {
		ids = append(ids, a.ID())
	}
	p.rounds = append(p.rounds, strings.Join(ids, " "))
	return nil
}

func (p *pickyResolver) Continue(a *Agent) (Status, error, bool) { return 0, nil, false }

// filteringResolver is a pickyResolver that is a round filter.
type filteringResolver struct{ pickyResolver }

func (f *filteringResolver) Wants(a *Agent) bool { return f.want[a.ID()] }

// TestRoundFilters_aFilterGetsTheAgentsItWantsInOrder steps the workers
// world (gates, paused calls) with a resolver that wants some agents and
// one that wants every agent, on Rounds and on 1, 2 and 3 workers and
// Serial: the filter gets, each round, exactly the agents of the round it
// wants, in config order, and the other gets the whole round.
func TestRoundFilters_aFilterGetsTheAgentsItWantsInOrder(t *testing.T) {
	const agents = 13
	want := map[string]bool{}
	for _, i := range []int{0, 3, 4, 7, 11, 12} {
		want[fmt.Sprintf("a%d", i)] = true
	}
	run := func(t *testing.T, n int, serial bool) (filtered, all []string) {
		w := newWorkersWorld(t, n, agents)
		f := &filteringResolver{pickyResolver{want: want}}
		p := &pickyResolver{}
		if w.w == nil {
			w.rounds.Resolvers = append(w.rounds.Resolvers, f, p)
		} else {
			defer w.w.Close()
			w.w.Serial = serial
			w.w.Resolvers = append(w.w.Resolvers, f, p)
		}
		for s := 1; s <= 20; s++ {
			w.step(t, float64(s)*0.1)
		}
		return f.rounds, p.rounds
	}
	wantFiltered, wantAll := run(t, 0, false)
	// What the filter got is the whole rounds, less the agents it does not want.
	if len(wantFiltered) != len(wantAll) || len(wantAll) < 30 {
		t.Fatalf("%d filtered rounds and %d rounds, want the same number (at least 30: calls pause agents)", len(wantFiltered), len(wantAll))
	}
	for r := range wantAll {
		var kept []string
		for _, id := range strings.Fields(wantAll[r]) {
			if want[id] {
				kept = append(kept, id)
			}
		}
		if got := strings.Join(kept, " "); wantFiltered[r] != got {
			t.Fatalf("round %d: the filter got %q, want %q (of %q)", r+1, wantFiltered[r], got, wantAll[r])
		}
	}
	for _, c := range []struct {
		n      int
		serial bool
	}{{1, false}, {2, false}, {3, false}, {3, true}} {
		t.Run(fmt.Sprintf("workers=%d,serial=%v", c.n, c.serial), func(t *testing.T) {
			filtered, all := run(t, c.n, c.serial)
			if strings.Join(filtered, "|") != strings.Join(wantFiltered, "|") || strings.Join(all, "|") != strings.Join(wantAll, "|") {
				t.Fatalf("rounds differ from those of Rounds:\n got %q\n     %q\nwant %q\n     %q", filtered, all, wantFiltered, wantAll)
			}
		})
	}
}
