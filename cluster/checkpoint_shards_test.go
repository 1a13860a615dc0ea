package cluster_test

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/internal/model"
)

// TestCheckpointParts_restoreOnAnotherLayout: 30 steps on 2 shards, whose
// agents each shard writes as a part of a checkpoint; 3 shards (and 1)
// restore from the parts that hold their ranges and run 30 more steps:
// what one process has after 60.
func TestCheckpointParts_restoreOnAnotherLayout(t *testing.T) {
	run := t.Name()
	want, states, err := model.Run(agents, 60)
	if err != nil {
		t.Fatal(err)
	}
	first := &model.World{N: agents}
	a, _ := startLocal(t, first, 2)
	if err := a.Steps(1, 30); err != nil {
		t.Fatal(err)
	}
	parts, err := a.C.WriteParts(30, 1, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0].Lo != 0 || parts[0].Hi != parts[1].Lo || parts[1].Hi != agents {
		t.Fatalf("parts %+v: want one per shard, covering the %d agents", parts, agents)
	}
	for _, shards := range []int{3, 1} {
		w := &model.World{N: agents, Calls: first.Calls, Shared: first.Shared, Loaded: true}
		w.Lines.WriteString(first.Lines.String())
		b, _ := startLocal(t, w, shards)
		if err := b.C.RestoreParts(30, 1, run, parts, nil); err != nil {
			t.Fatal(err)
		}
		if err := b.Steps(31, 60); err != nil {
			t.Fatal(err)
		}
		if got := w.Lines.String(); got != want {
			t.Errorf("%d shards after a 2-shard checkpoint: lines differ:\n%s", shards, model.FirstDiff(got, want))
		}
		if got := b.States(); got != states {
			t.Errorf("%d shards after a 2-shard checkpoint: states differ", shards)
		}
	}
}

// TestCheckpointParts_checked: a part whose bytes are not those its shard
// reported (another part's, or none) fails the restore naming it; parts
// that do not cover every agent are refused before any shard loads.
func TestCheckpointParts_checked(t *testing.T) {
	run := t.Name()
	store := cluster.SharedMemStore(run)
	a, _ := startLocal(t, &model.World{N: agents}, 2)
	if err := a.Steps(1, 5); err != nil {
		t.Fatal(err)
	}
	parts, err := a.C.WriteParts(5, 1, run)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.C.RestoreParts(5, 1, run, parts[:1], nil); err == nil || !strings.Contains(err.Error(), "holds 12 agents, the run 23") {
		t.Errorf("a restore from parts missing agents: %v", err)
	}
	other, err := store.Part(1, parts[1].Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.PutPart(1, parts[0].Name, other); err != nil {
		t.Fatal(err)
	}
	link, ends := cluster.NewLocal(2)
	b := model.Start(&model.World{N: agents}, link, ends)
	err = b.C.RestoreParts(5, 1, run, parts, nil)
	b.Stop() // the shard that refused its part ended with its error
	if err == nil || !strings.Contains(err.Error(), "part "+parts[0].Name+" of checkpoint 1") {
		t.Errorf("a restore from another part's bytes: %v", err)
	}
}
