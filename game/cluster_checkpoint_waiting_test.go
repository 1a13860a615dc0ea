package game

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// waitingReload is a reload whose restarted agents' old cancel hook sends
// a signal to itself and one to a-1 (on the first shard, where a-5..a-7
// are on another): what the reload sent waits on the conductor for the
// next step's deliveries.
func waitingReload() reloadCase {
	files := withReplaced(aimGame, "config.toml", "count = 2", "count = 7")
	files["ai/aim.lua"] = strings.Replace(aimGame["ai/aim.lua"], `ctx:log("v1 cancel`,
		`ctx:send(ctx.id, "Self", {}); ctx:send("a-1", "Aborted", {by = ctx.id}); ctx:log("v1 cancel`, 1)
	return reloadCase{name: "cancel sends", files: files, at: 2, steps: 6, edit: map[string]func(string) string{
		"ai/a.xml": func(s string) string { return strings.Replace(s, `id=".aim"`, `id=".aim2"`, 1) },
	}}
}

// TestCheckpoint_holdsWhatWaitsForTheNextStep: a checkpoint taken between
// steps, right after a reload (as btrun run takes one), holds the signals
// the reload's cancel hooks sent for the next step, which one process
// delivers at the head of that step's queue: a run restored from it on 1,
// 2 or 3 shards (the journal pruned up to it, as btrun run prunes it)
// ends with one process's trace, output and save, byte for byte. The
// conductor holds no agents, or a copy of each (a live view).
func TestCheckpoint_holdsWhatWaitsForTheNextStep(t *testing.T) {
	t.Run("reload", func(t *testing.T) { checkpointAfterReload(t, waitingReload(), `"signal":"Aborted","from":"a-7"`) })
	// A reload that fails after the exits of rules edited out ran: what
	// the exits sent waits for the next step too.
	t.Run("failed reload", func(t *testing.T) { checkpointAfterReload(t, failedAfterExits(), `"signal":"Ping","from":"a-3"`) })
}

func checkpointAfterReload(t *testing.T, rc reloadCase, sent string) {
	config := writeGame(t, rc.files)
	dir := filepath.Dir(config)
	wantTrace, wantOut, wantSave := soloReload(t, config, rc)
	if !strings.Contains(wantTrace, sent) {
		t.Fatalf("one process's trace has no %s:\n%s", sent, wantTrace)
	}
	for _, copies := range []bool{false, true} {
		run := fmt.Sprintf("%s/copies=%v", t.Name(), copies)
		store := cluster.SharedMemStore(run)
		var journal cluster.MemJournal
		var files cluster.MemFiles
		a := openCluster(t, clusterSetup{name: config, shards: 2, copies: copies})
		ca := a.conductor()
		ca.SetJournal(&journal)
		ca.SetFiles(&files)
		if err := ca.Run(rc.at); err != nil {
			t.Fatal(err)
		}
		_, err := ca.Reload(ReloadOptions{Changed: rc.apply(t, dir)})
		if errors.Is(err, ErrReload) {
			rc.undo(t, dir) // nothing reloaded: the run's files are those before
		} else if err != nil {
			t.Fatal(err)
		}
		if _, err := ca.WriteCheckpoint(store, run, cluster.Checkpoint{Seq: 1, Until: uint64(rc.steps)}); err != nil {
			t.Fatal(err)
		}
		if err := journal.Prune(uint64(rc.at) + 1); err != nil { // the checkpoint holds the step's reload
			t.Fatal(err)
		}
		traceAt, outAt := a.trace.Len(), a.out.Len()
		if err := ca.Run(rc.steps - rc.at); err != nil { // the run lost a process after this
			t.Fatal(err)
		}
		a.stop()
		cp, _, err := store.Latest()
		if err != nil {
			t.Fatal(err)
		}
		for _, shards := range []int{1, 2, 3} {
			label := fmt.Sprintf("copies %v, %d shards", copies, shards)
			b := openCluster(t, clusterSetup{name: config, shards: shards, copies: copies})
			cb := b.conductor()
			cb.SetJournal(&journal)
			cb.SetFiles(&files)
			if err := cb.RestoreCheckpoint(store, run, cp); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			b.wroteAs(a, traceAt, outAt)
			ins, err := journal.From(uint64(rc.at))
			if err != nil || len(ins) != 0 {
				t.Fatalf("%s: the journal after the checkpoint: %d inputs, %v", label, len(ins), err)
			}
			if err := cb.Run(rc.steps - rc.at); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			b.wantSolo(label, wantTrace, wantOut, wantSave)
			b.stop()
		}
		rc.undo(t, dir)
	}
}

// TestCheckpoint_partOfBeforeReads: a conductor's part written before it
// held what waits for the next step (it ends at the parts' index) still
// restores, as a checkpoint with nothing waiting: the run goes on to one
// process's trace, output and save.
func TestCheckpoint_partOfBeforeReads(t *testing.T) {
	const steps, ckpt = 60, 20
	run := t.Name()
	store := cluster.SharedMemStore(run)
	wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, "signals", 0), Options{}, steps, true)
	a := openCluster(t, clusterSetup{name: "signals", shards: 2})
	a.steps(1, ckpt)
	parts, err := a.c.WriteParts(ckpt, 1, run)
	if err != nil {
		t.Fatal(err)
	}
	own, err := a.ch.encodePart(parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.PutPart(1, conductorPart, own); err != nil {
		t.Fatal(err)
	}
	cp := cluster.Checkpoint{Seq: 1, Step: ckpt, Until: steps, Parts: []string{conductorPart}}
	for _, p := range parts {
		cp.Parts = append(cp.Parts, p.Name)
	}
	if err := store.Commit(cp); err != nil {
		t.Fatal(err)
	}
	traceAt, outAt := a.trace.Len(), a.out.Len()
	a.stop()
	b := openCluster(t, clusterSetup{name: "signals", shards: 3})
	if err := b.conductor().RestoreCheckpoint(store, run, cp); err != nil {
		t.Fatal(err)
	}
	b.wroteAs(a, traceAt, outAt)
	b.steps(ckpt+1, steps)
	b.wantSolo("", wantTrace, wantOut, wantSave)
}
