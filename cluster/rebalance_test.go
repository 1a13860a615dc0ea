package cluster_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/internal/model"
)

// TestPlan: the boundaries go half of the way to where the costs per agent
// would even out, by one agent at least, each shard keeping one; costs
// within the spread, or not all positive, move nothing.
func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		start []int32
		costs []float64
		want  []int32
	}{
		{[]int32{0, 50, 100}, []float64{1, 1}, []int32{0, 50, 100}},             // even
		{[]int32{0, 50, 100}, []float64{1, 0.85}, []int32{0, 50, 100}},          // within 20%
		{[]int32{0, 50, 100}, []float64{3, 1}, []int32{0, 42, 100}},             // even at 33: half way from 50
		{[]int32{0, 50, 100}, []float64{1, 3}, []int32{0, 58, 100}},             // even at 67
		{[]int32{0, 10, 11}, []float64{1, 100}, []int32{0, 10, 11}},             // shard 1 keeps its one agent
		{[]int32{0, 2, 4}, []float64{3, 1}, []int32{0, 1, 4}},                   // even at 1.33: half way is nothing, one agent at least
		{[]int32{0, 50, 100}, []float64{0, 1}, []int32{0, 50, 100}},             // a shard that measured nothing
		{[]int32{0, 34, 67, 100}, []float64{1, 3, 1}, []int32{0, 37, 64, 100}},  // the costly middle gives to both sides
		{[]int32{0, 34, 67, 100}, []float64{3, 1, 1}, []int32{0, 27, 56, 100}},  // both boundaries move down
		{[]int32{0, 34, 67, 100}, []float64{1, 1, 10}, []int32{0, 54, 77, 100}}, // and up
		{[]int32{0, 1, 2}, []float64{1, 10}, []int32{0, 1, 2}},                  // one agent each
	} {
		got := cluster.Plan(cluster.Layout{Start: tc.start}, tc.costs, cluster.DefaultSpread)
		if !slices.Equal(got.Start, tc.want) {
			t.Errorf("Plan(%v, %v) = %v, want %v", tc.start, tc.costs, got.Start, tc.want)
		}
	}
}

// movingModel is the model's cluster with moves: each shard's cost is its
// agents times 1, or 3 in every other window (shifted by its number), so
// the costliest shard changes every window; moves counts the boundaries
// that moved up and down.
func movingModel(t *testing.T, w *model.World, shards int, every uint64, mover bool) (*cluster.Conductor, []*model.Shard, *[2]int) {
	link, ends := cluster.NewLocal(shards)
	layout := cluster.Cut(int(w.N), shards)
	moves := new([2]int)
	c := &cluster.Conductor{Host: w, Link: link, Layout: layout, Balance: &cluster.Balancer{Every: every,
		Decide: func(_ uint64, _ []float64, from, to cluster.Layout) {
			for i := range from.Start {
				if to.Start[i] > from.Start[i] {
					moves[0]++
				} else if to.Start[i] < from.Start[i] {
					moves[1]++
				}
			}
		}}}
	var wg sync.WaitGroup
	errs := make([]error, shards)
	var hosts []*model.Shard
	for k := range shards {
		lo, hi := layout.Range(k)
		sh := &model.Shard{N: w.N, Agents: model.NewAgents(lo, hi), Lo: lo}
		hosts = append(hosts, sh)
		var host cluster.ShardHost = sh
		if !mover {
			host = struct{ cluster.ShardHost }{sh} // its Release and Adopt hidden
		}
		s := &cluster.Shard{Host: host, Link: ends[k]}
		s.Meter.Cost = func(step uint64, _ time.Duration) float64 {
			f := 1.0
			if ((step-1)/every+uint64(k))%2 == 0 {
				f = 3
			}
			return f * float64(len(sh.Agents))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = s.Run()
		}()
	}
	t.Cleanup(func() {
		err := c.Stop()
		wg.Wait()
		if err = errors.Join(append(errs, err)...); err != nil && mover {
			t.Errorf("stop: %v", err)
		}
	})
	return c, hosts, moves
}

// TestRebalance_modelSameAsSingleRun: the model's agents moved between 2,
// 3 and 5 shards every few steps, both ways: the lines (the resolvers'
// batches, signals, owed handlers) and every agent's state after 60 steps
// are one process's.
func TestRebalance_modelSameAsSingleRun(t *testing.T) {
	want, states, err := model.Run(agents, 60)
	if err != nil {
		t.Fatal(err)
	}
	for _, shards := range []int{2, 3, 5} {
		t.Run(fmt.Sprint(shards), func(t *testing.T) {
			w := &model.World{N: agents}
			c, hosts, moves := movingModel(t, w, shards, 2, true)
			for s := uint64(1); s <= 60; s++ {
				if err := c.Step(s); err != nil {
					t.Fatal(err)
				}
			}
			if moves[0] == 0 || moves[1] == 0 {
				t.Fatalf("boundaries moved up %d times and down %d", moves[0], moves[1])
			}
			if got := w.Lines.String(); got != want {
				t.Errorf("lines differ from the single run's:\n%s", model.FirstDiff(got, want))
			}
			var all []*model.Agent
			for _, h := range hosts {
				all = append(all, h.Agents...)
			}
			if got := model.States(all); got != states {
				t.Errorf("states differ:\n got %s\nwant %s", got, states)
			}
			st := c.Balance.Stats()
			if st.Moves == 0 || st.Agents < st.Moves || st.Bytes == 0 {
				t.Errorf("stats %+v", st)
			}
			for k, h := range hosts {
				if lo, hi := c.Layout.Range(k); len(h.Agents) != int(hi-lo) || h.Lo != lo {
					t.Errorf("shard %d holds %d agents from %d; the layout says %d..%d", k, len(h.Agents), h.Lo, lo, hi-1)
				}
			}
		})
	}
}

// TestRebalance_aShardThatCannotMove: a shard whose host is no Mover
// answers a move with an error, which ends the step naming the move.
func TestRebalance_aShardThatCannotMove(t *testing.T) {
	w := &model.World{N: agents}
	c, _, _ := movingModel(t, w, 2, 2, false)
	err := c.Step(1)
	if err == nil {
		err = c.Step(2)
	}
	if err == nil || !strings.Contains(err.Error(), "moving agents at the end of step 2") || !strings.Contains(err.Error(), "cannot move agents") {
		t.Errorf("got %v", err)
	}
}

// TestMoveTo_refusesAnotherLayout: a move to a layout of other shards or
// agents, or with a range that ends before it starts, is refused before
// anything crosses.
func TestMoveTo_refusesAnotherLayout(t *testing.T) {
	w := &model.World{N: agents}
	c, _, _ := movingModel(t, w, 2, 100, true)
	for _, start := range [][]int32{{0, 5, 10, agents}, {0, 5, agents + 1}, {0, 30, agents}, {1, 5, agents}} {
		if err := c.MoveTo(0, cluster.Layout{Start: start}); !errors.Is(err, cluster.ErrLayout) {
			t.Errorf("MoveTo(%v): %v", start, err)
		}
	}
}

// TestMeter_reportsMeasuredTime: without a cost passed in, a shard reports
// the time it spent serving (positive), which the balancer sums.
func TestMeter_reportsMeasuredTime(t *testing.T) {
	w := &model.World{N: agents}
	link, ends := cluster.NewLocal(2)
	var got []float64
	c := &cluster.Conductor{Host: w, Link: link, Layout: cluster.Cut(agents, 2), Balance: &cluster.Balancer{Every: 3, Spread: 1e9,
		Decide: func(_ uint64, costs []float64, _, _ cluster.Layout) { got = costs }}}
	var wg sync.WaitGroup
	for k := range 2 {
		lo, hi := c.Layout.Range(k)
		s := &cluster.Shard{Host: &model.Shard{N: w.N, Agents: model.NewAgents(lo, hi), Lo: lo}, Link: ends[k]}
		tick := time.Duration(0)
		s.Meter.Clock = func() time.Duration { tick += time.Millisecond; return tick } // each read a millisecond on
		wg.Add(1)
		go func() { defer wg.Done(); s.Run() }()
	}
	defer wg.Wait()
	defer c.Stop()
	for s := uint64(1); s <= 3; s++ {
		if err := c.Step(s); err != nil {
			t.Fatal(err)
		}
	}
	// Every message served costs one millisecond: at least a step start
	// and a report a step, 3 steps.
	for k, v := range got {
		if v < 0.006 || v > 0.1 {
			t.Errorf("shard %d's cost of 3 steps: %v s", k, v)
		}
	}
	if len(got) != 2 {
		t.Errorf("costs %v", got)
	}
}

// Plan moves the boundary between two shards half of the way to where
// their measured costs would be even: shard 1's agents cost three times
// shard 0's, so it gives 8 of its 50 agents.
func ExamplePlan() {
	l := cluster.Cut(100, 2)
	l = cluster.Plan(l, []float64{3.0, 9.0}, cluster.DefaultSpread) // seconds of a window
	fmt.Println(l.Range(0))
	fmt.Println(l.Range(1))
	// Output:
	// 0 58
	// 58 100
}
