package cluster_test

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/internal/model"
)

const agents = 23

func startLocal(t *testing.T, w *model.World, shards int) (*model.Cluster, *cluster.LocalConductor) {
	link, ends := cluster.NewLocal(shards)
	mc := model.Start(w, link, ends)
	t.Cleanup(func() {
		if err := mc.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return mc, link
}

// The model's single run exercises what the protocol must carry: if it did
// not, the layouts' agreement below would prove little.
func TestModel_singleRunUsesEveryPart(t *testing.T) {
	lines, _, err := model.Run(agents, 60)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hears alarm from schedule", "world: step 5 sounds the alarm\na0 hears dawn from schedule", "hears dawn from schedule", "hears poke from a", "hears shout from a", "hears relay", "hears owed", "pays an owed handler", "round 3:"} {
		if !strings.Contains(lines, want) {
			t.Errorf("the single run has no %q", want)
		}
	}
}

// TestCluster_sameAsSingleRun: the lines (the resolvers' batches included)
// and every agent's state after 60 steps are those of one process, for 1,
// 2, 3 and 5 shards.
func TestCluster_sameAsSingleRun(t *testing.T) {
	want, states, err := model.Run(agents, 60)
	if err != nil {
		t.Fatal(err)
	}
	for _, shards := range []int{1, 2, 3, 5} {
		w := &model.World{N: agents}
		mc, link := startLocal(t, w, shards)
		if err := mc.Steps(1, 60); err != nil {
			t.Fatal(err)
		}
		if got := w.Lines.String(); got != want {
			t.Errorf("%d shards: lines differ from the single run's:\n%s", shards, model.FirstDiff(got, want))
		}
		if got := mc.States(); got != states {
			t.Errorf("%d shards: states differ:\n got %s\nwant %s", shards, got, states)
		}
		if tr := link.Traffic(); tr.Sent != tr.Received || tr.Sent == 0 {
			t.Errorf("%d shards: traffic %+v: every message gets one reply", shards, tr)
		}
	}
}

// TestCluster_saveMovesBetweenLayouts: 30 steps on 2 shards, saved, loaded
// into 3 shards (and into 1), 30 more steps: what one process has after 60.
func TestCluster_saveMovesBetweenLayouts(t *testing.T) {
	want, states, err := model.Run(agents, 60)
	if err != nil {
		t.Fatal(err)
	}
	first := &model.World{N: agents}
	a, _ := startLocal(t, first, 2)
	if err := a.Steps(1, 30); err != nil {
		t.Fatal(err)
	}
	saves, err := a.C.Save(30)
	if err != nil {
		t.Fatal(err)
	}
	for _, shards := range []int{3, 1} {
		w := &model.World{N: agents, Calls: first.Calls, Shared: first.Shared, Loaded: true}
		w.Lines.WriteString(first.Lines.String())
		b, _ := startLocal(t, w, shards)
		if err := b.C.Load(30, saves); err != nil {
			t.Fatal(err)
		}
		if err := b.Steps(31, 60); err != nil {
			t.Fatal(err)
		}
		if got := w.Lines.String(); got != want {
			t.Errorf("%d shards after a 2-shard save: lines differ:\n%s", shards, model.FirstDiff(got, want))
		}
		if got := b.States(); got != states {
			t.Errorf("%d shards after a 2-shard save: states differ", shards)
		}
	}
}

// Messages per step follow the shards, rounds and delivery batches, not
// the agents: 40 agents and 2,000 on 3 shards exchange within the same
// bound per step, and the most a step of the model needs.
func TestCluster_messagesDoNotGrowWithAgents(t *testing.T) {
	const shards, steps = 3, 20
	perStep := map[int32]float64{}
	for _, n := range []int32{40, 2000} {
		w := &model.World{N: n}
		mc, link := startLocal(t, w, shards)
		if err := mc.Steps(1, steps); err != nil {
			t.Fatal(err)
		}
		st, tr := mc.C.Stats(), link.Traffic()
		// Per shard at most: the step start, each later round, the report,
		// each delivery batch.
		if bound := uint64(shards) * (st.Rounds + st.Steps + st.Batches); tr.Sent > bound {
			t.Errorf("%d agents: %d messages, more than %d (%+v)", n, tr.Sent, bound, st)
		}
		// The model's rounds end by the fourth and its relays by the
		// fourth batch: at most shards × (4 + 1 + 4) a step.
		perStep[n] = float64(tr.Sent) / steps
		if perStep[n] > shards*9 {
			t.Errorf("%d agents: %.1f messages a step", n, perStep[n])
		}
	}
	t.Logf("messages per step: %v", perStep)
}

// TestCluster_statsCountItemsByKind: the conductor's stats count what its
// steps' messages carried, by kind, both ways, with their payloads' bytes.
func TestCluster_statsCountItemsByKind(t *testing.T) {
	w := &model.World{N: 40}
	mc, _ := startLocal(t, w, 2)
	if err := mc.Steps(1, 10); err != nil {
		t.Fatal(err)
	}
	st := mc.C.Stats()
	for _, k := range []cluster.ItemKind{cluster.Request, cluster.Answer, cluster.Signal, cluster.Delivery, cluster.Record} {
		if st.Items[k] == 0 || st.ItemBytes[k] == 0 {
			t.Errorf("%s: %d items, %d bytes", k, st.Items[k], st.ItemBytes[k])
		}
	}
	if st.Items[cluster.AgentSave] != 0 {
		t.Errorf("steps carried %d agent saves", st.Items[cluster.AgentSave])
	}
}
