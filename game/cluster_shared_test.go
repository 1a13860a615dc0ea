package game

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestClusterShared_aLoadAndARecoveryGiveTheShardsTheSavedShared: the
// world's game.shared is in a cluster's save and in its conductor's part
// of a checkpoint, and a load or a checkpoint's restore gives it to the
// world and to every shard before the next step: the handlers of the
// signals the world's tick sends before it publishes read on the shards
// what the saved run had, and the tick counts on from what it published
// last. A run saved (or checkpointed) on 2 shards and continued on 1, 2
// or 3 ends with one process's trace, output and save, byte for byte; the
// conductor holds no agents, or a copy of each (a live view).
func TestClusterShared_aLoadAndARecoveryGiveTheShardsTheSavedShared(t *testing.T) {
	files := sharedGame()
	files["config.toml"] = files["config.toml"] + "[[agents]]\ntree = \"t\"\nname = \"u\"\ncount = 3\n"
	config := writeGame(t, files)
	const steps, cut = 10, 4
	wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, config, 0), Options{}, steps, true)
	for _, how := range []string{"load", "checkpoint"} {
		for _, copies := range []bool{false, true} {
			for _, shards := range []int{1, 2, 3} {
				t.Run(fmt.Sprintf("%s/copies=%v/%d", how, copies, shards), func(t *testing.T) {
					run := t.Name()
					store := cluster.SharedMemStore(run)
					a := openCluster(t, clusterSetup{name: config, shards: 2, copies: copies})
					a.steps(1, cut)
					var data []byte
					if how == "load" {
						data = a.save()
					} else if _, err := a.conductor().WriteCheckpoint(store, run, cluster.Checkpoint{Seq: 1, Until: steps}); err != nil {
						t.Fatal(err)
					}
					traceAt, outAt := a.trace.Len(), a.out.Len()
					a.steps(cut+1, cut+2) // what the restore goes back from
					a.stop()

					b := openCluster(t, clusterSetup{name: config, shards: shards, copies: copies})
					b.steps(1, 1) // a step of its own first: the shards' bt.shared is not the saved one
					if how == "load" {
						b.load(data)
					} else {
						cp, ok, err := store.Latest()
						if err != nil || !ok {
							t.Fatalf("the run's checkpoint: %v, %v", ok, err)
						}
						if err := b.conductor().RestoreCheckpoint(store, run, cp); err != nil {
							t.Fatal(err)
						}
					}
					// What starting, stepping and restoring wrote is written already.
					b.trace.Reset()
					b.out.Reset()
					b.trace.Write(a.trace.Bytes()[:traceAt])
					b.out.Write(a.out.Bytes()[:outAt])
					b.steps(cut+1, steps)
					b.wantSolo("", wantTrace, wantOut, wantSave)
				})
			}
		}
	}
}

// TestClusterShared_aReloadGivesTheShardsTheCarriedShared: a cluster's
// reload runs the world's init again; the conductor carries game.shared
// over and the shards get it with the carried agents, so that the run
// goes on as one process's that reloads between the same steps.
func TestClusterShared_aReloadGivesTheShardsTheCarriedShared(t *testing.T) {
	files := sharedGame()
	files["config.toml"] = files["config.toml"] + "[[agents]]\ntree = \"t\"\nname = \"u\"\ncount = 3\n"
	for _, at := range []int{2, 4} {
		rc := reloadCase{name: "shared", files: files, at: at, steps: 8, edit: map[string]func(string) string{
			"ai/watch.lua": func(s string) string { return s + "-- v2\n" },
		}}
		config := writeGame(t, files)
		dir := filepath.Dir(config)
		wantTrace, wantOut, wantSave := soloReload(t, config, rc)
		for _, shards := range []int{1, 2, 3} {
			for _, copies := range []bool{false, true} {
				label := fmt.Sprintf("reload after step %d, %d shards, copies %v", at, shards, copies)
				tc := openCluster(t, clusterSetup{name: config, shards: shards, copies: copies})
				c := tc.conductor()
				var journal cluster.MemJournal
				var store cluster.MemFiles
				c.SetJournal(&journal)
				c.SetFiles(&store)
				if err := c.Run(rc.at); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Reload(ReloadOptions{Changed: rc.apply(t, dir)}); err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				if err := c.Run(rc.steps - rc.at); err != nil {
					t.Fatal(err)
				}
				tc.wantSolo(label, wantTrace, wantOut, wantSave)
				tc.stop()
				rc.undo(t, dir)
			}
		}
	}
}
