package game

import (
	"fmt"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestCheckpoint_shardsWriteParts: a checkpoint the shards write (a part
// each, besides the conductor's) restores on a cluster of another number
// of shards, which goes on to one process's trace, output and final save,
// byte for byte; a later checkpoint whose parts were written and never
// committed (its conductor died first) leaves the earlier one the run's,
// and the restore prunes its stale parts. The conductor holds no agents,
// or a copy of each (a live view).
func TestCheckpoint_shardsWriteParts(t *testing.T) {
	for _, fx := range []struct {
		name             string
		steps, ckpt, cut int
	}{{"signals", 80, 30, 50}, {"gates", 60, 20, 45}, {"slots", 60, 25, 40}} {
		for _, shards := range []int{3, 1} {
			for _, copies := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%d/copies=%v", fx.name, shards, copies), func(t *testing.T) {
					run := t.Name()
					store := cluster.SharedMemStore(run)
					wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, fx.name, 0), Options{}, fx.steps, true)

					a := openCluster(t, clusterSetup{name: fx.name, shards: 2, copies: copies})
					ca := a.conductor()
					a.steps(1, fx.ckpt)
					if _, err := ca.WriteCheckpoint(store, run, cluster.Checkpoint{Seq: 1, Until: uint64(fx.steps)}); err != nil {
						t.Fatal(err)
					}
					traceAt, outAt := a.trace.Len(), a.out.Len()
					a.steps(fx.ckpt+1, fx.cut)
					// Checkpoint 2's parts are written; its conductor dies
					// before its commit.
					parts, err := a.c.WriteParts(uint64(fx.cut), 2, run)
					if err != nil || len(parts) != 2 {
						t.Fatalf("checkpoint 2: parts %+v, %v", parts, err)
					}
					a.stop()

					cp, ok, err := store.Latest()
					if err != nil || !ok || cp.Seq != 1 || cp.Step != uint64(fx.ckpt) || len(cp.Parts) != 3 {
						t.Fatalf("the run's checkpoint: %+v, %v, %v; want checkpoint 1 of step %d in 3 parts", cp, ok, err, fx.ckpt)
					}
					b := openCluster(t, clusterSetup{name: fx.name, shards: shards, copies: copies})
					if err := b.conductor().RestoreCheckpoint(store, run, cp); err != nil {
						t.Fatal(err)
					}
					if _, err := store.Part(2, parts[0].Name); err == nil {
						t.Errorf("the restore left the stale part %s of checkpoint 2", parts[0].Name)
					}
					// What starting and restoring wrote is written already.
					b.wroteAs(a, traceAt, outAt)
					b.steps(fx.ckpt+1, fx.steps)
					b.wantSolo("", wantTrace, wantOut, wantSave)
				})
			}
		}
	}
}

// TestCheckpoint_agentsAddedAndRemoved: a checkpoint the shards write
// after agents were added and removed (7 agents, 6 in the config) restores
// on clusters of 3 and 1 shards that list the config's agents: the
// conductor takes the checkpoint's directory and gives it the shards
// before they read their ranges' parts; with the journal's inputs
// replayed, the run ends with one process's trace, output and save. The
// conductor holds no agents (it takes the directory only), or a copy of
// each (a live view: it makes the agents it lacks).
func TestCheckpoint_agentsAddedAndRemoved(t *testing.T) {
	for _, copies := range []bool{false, true} {
		t.Run(fmt.Sprintf("copies=%v", copies), func(t *testing.T) { checkpointAgentsAddedAndRemoved(t, copies) })
	}
}

func checkpointAgentsAddedAndRemoved(t *testing.T, copies bool) {
	const steps, ckpt, lost = 12, 3, 8
	config := agentsGame(t)
	wantTrace, wantOut, wantSave := singleWithAgents(t, config, steps)
	j := &cluster.MemJournal{}
	run := t.Name()
	store := cluster.SharedMemStore(run)

	a := openCluster(t, clusterSetup{name: config, shards: 2, fromSaves: true, copies: copies})
	ca := a.conductor()
	ca.SetJournal(j)
	runWithAgents(t, ca, ckpt)
	if _, err := ca.WriteCheckpoint(store, run, cluster.Checkpoint{Seq: 1, Until: steps}); err != nil {
		t.Fatal(err)
	}
	traceAt, outAt := a.trace.Len(), a.out.Len()
	if err := j.Prune(ckpt); err != nil {
		t.Fatal(err)
	}
	runWithAgents(t, ca, lost)
	a.stop()
	cp, _, err := store.Latest()
	if err != nil {
		t.Fatal(err)
	}

	for _, shards := range []int{3, 1} {
		b := openCluster(t, clusterSetup{name: config, shards: shards, fromSaves: true, copies: copies})
		cb := b.conductor()
		if err := cb.RestoreCheckpoint(store, run, cp); err != nil {
			t.Fatal(err)
		}
		if len(cb.g.agents) != 7 {
			t.Fatalf("%d shards: the conductor lists %d agents after the restore, want the checkpoint's 7", shards, len(cb.g.agents))
		}
		heldOnly(t, b, "after the restore")
		b.wroteAs(a, traceAt, outAt)
		ins, err := j.From(ckpt)
		if err != nil {
			t.Fatal(err)
		}
		if err := cb.Replay(ins); err != nil {
			t.Fatal(err)
		}
		if err := cb.Run(lost - ckpt); err != nil {
			t.Fatal(err)
		}
		runWithAgents(t, cb, steps)
		b.wantSolo(fmt.Sprintf("%d shards", shards), wantTrace, wantOut, wantSave)
		b.stop()
	}
}
