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
// and the restore prunes its stale parts.
func TestCheckpoint_shardsWriteParts(t *testing.T) {
	for _, fx := range []struct {
		name             string
		steps, ckpt, cut int
	}{{"signals", 80, 30, 50}, {"gates", 60, 20, 45}, {"slots", 60, 25, 40}} {
		for _, shards := range []int{3, 1} {
			t.Run(fmt.Sprintf("%s/%d", fx.name, shards), func(t *testing.T) {
				run := t.Name()
				store := cluster.SharedMemStore(run)
				wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, fx.name, 0), Options{}, fx.steps, true)

				a := startCluster(t, fx.name, 2)
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
				b := startCluster(t, fx.name, shards)
				if err := b.conductor().RestoreCheckpoint(store, run, cp); err != nil {
					t.Fatal(err)
				}
				if _, err := store.Part(2, parts[0].Name); err == nil {
					t.Errorf("the restore left the stale part %s of checkpoint 2", parts[0].Name)
				}
				// What starting and restoring wrote is written already.
				b.trace.Reset()
				b.out.Reset()
				b.trace.Write(a.trace.Bytes()[:traceAt])
				b.out.Write(a.out.Bytes()[:outAt])
				b.steps(fx.ckpt+1, fx.steps)
				b.wantSolo("", wantTrace, wantOut, wantSave)
			})
		}
	}
}
