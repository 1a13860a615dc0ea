package game

import (
	"errors"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// TestConductor_pageInputsRefusedDuringTheReplay: a conductor that goes
// back to a checkpoint with the page's and Go's inputs journaled ahead
// (pageInputs after steps 21 and 26) refuses the live view's signal, jump
// and variable edit until the replay's end, with a *ReplayingError naming
// that step, and neither applies nor journals them: applied at once they
// would come in the journal before the inputs of later steps it holds.
// The replay's end is the journal's last input after -resume (the step
// the lost link reached not known), or the lost link's step after a lost
// shard. After it the page's commands are taken again (pageInputs after
// step 33), and the run is one process's.
func TestConductor_pageInputsRefusedDuringTheReplay(t *testing.T) {
	const steps, ckpt, lost = 40, 16, 30
	config := pageGame(t)
	wantTrace, wantOut, wantSave := soloWithPage(t, config, steps)

	j := &cluster.MemJournal{}
	a := openCluster(t, clusterSetup{name: config, shards: 2, copies: true})
	ca := a.conductor()
	ca.SetJournal(j)
	ha := attachPage(ca)
	runWithPage(t, ca, ha, ckpt)
	cp, err := ca.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	traceAt, outAt := a.trace.Len(), a.out.Len()
	if err := j.Prune(ckpt); err != nil {
		t.Fatal(err)
	}
	runWithPage(t, ca, ha, lost)
	a.stop()
	ins, err := j.From(ckpt)
	if err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name  string
		to    uint64 // the lost link's step, as Recovered is told (0: -resume)
		until uint64
	}{
		{"-resume", 0, 26},
		{"a lost shard", lost, lost},
	} {
		b := openCluster(t, clusterSetup{name: config, shards: 3, copies: true})
		b.load(cp)
		b.trace.Reset()
		b.out.Reset()
		b.trace.Write(a.trace.Bytes()[:traceAt])
		b.out.Write(a.out.Bytes()[:outAt])
		cb := b.conductor()
		cb.SetJournal(j) // shared by the cases: each adds the inputs after step 33
		journaled, _ := j.From(ckpt)
		if err := cb.Replay(ins); err != nil {
			t.Fatal(err)
		}
		cb.Recovered(nil, nil, tt.to)
		hb := attachPage(cb)
		for cb.Step() < lost {
			if s := cb.Step(); s < tt.until {
				refused := map[string]error{
					"signal":        hb.SendSignal("t-1", "Poke", runtime.String("during the replay")),
					"jump":          hb.JumpAgent("t-2", "root.rest"),
					"variable edit": hb.SetAgentVar("t-3", "Flag", runtime.VarValue{Type: runtime.VarBoolean, Bool: true}),
				}
				for what, err := range refused {
					var r *ReplayingError
					if !errors.As(err, &r) || r.What != what || r.Until != tt.until {
						t.Fatalf("%s: the page's %s after step %d of the replay: %v, want a *ReplayingError until step %d", tt.name, what, s, err, tt.until)
					}
				}
			}
			if err := cb.Run(1); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := j.From(ckpt); len(got) != len(journaled) {
			t.Errorf("%s: %d inputs journaled after the checkpoint once the replay is over, want the %d it had", tt.name, len(got), len(journaled))
		}
		runWithPage(t, cb, hb, steps) // the page's commands after step 33 are taken
		b.wantSolo(tt.name, wantTrace, wantOut, wantSave)
		b.stop()
	}
}
