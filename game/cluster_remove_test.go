package game

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// gateRemoval is an agent removed after a step, and why it was chosen.
type gateRemoval struct {
	after uint64
	id    string
	kind  string
}

// removalKinds are the states the gates fixture's removed agents are in,
// in the order they are looked for: a grunt holding the grenade or a
// flank (others refused it and wait for it), a pair holding the
// rendezvous alone (waiting in bt.gate.wait for another, which waits to
// take it), a pair of two holding it (its partner waits on it), and an
// agent holding no gate.
var removalKinds = []string{"holds", "waits", "met", "neither"}

// removalKind reports whether agent id is in state kind, by gates (the
// game's gates as Gates.List reports them).
func removalKind(kind, id string, gates []runtime.GateInfo) bool {
	holds := func(gate string) (bool, int) {
		for _, gi := range gates {
			if gi.Name == gate {
				return slices.Contains(gi.Holders, id), len(gi.Holders)
			}
		}
		return false, 0
	}
	grenade, _ := holds("grenade")
	flank, _ := holds("flank")
	meet, n := holds("meet")
	switch kind {
	case "holds":
		return strings.HasPrefix(id, "grunt") && (grenade || flank)
	case "waits":
		return meet && n == 1
	case "met":
		return meet && n == 2
	}
	return !grenade && !flank && !meet
}

// soloRemovals runs the gates fixture in one process for steps steps,
// removing after step 3 on, one a step, an agent in each of
// removalKinds' states in turn as the run comes to them: the removals,
// and the run's trace, output and save.
func soloRemovals(t *testing.T, steps int) ([]gateRemoval, string, string, []byte) {
	t.Helper()
	cfg, err := LoadConfig(clusterConfig("gates"))
	if err != nil {
		t.Fatal(err)
	}
	var rms []gateRemoval
	before := func(g *Game, s StepInfo) error {
		if s.Step < 4 || len(rms) == len(removalKinds) {
			return nil
		}
		kind := removalKinds[len(rms)]
		gates := g.Gates().List()
		for _, id := range g.ids() {
			if removalKind(kind, id, gates) {
				rms = append(rms, gateRemoval{s.Step - 1, id, kind})
				if err := g.RemoveAgent(id); err != nil {
					return err
				}
				for _, gi := range g.Gates().List() { // one process releases what it held
					if slices.Contains(gi.Holders, id) {
						return fmt.Errorf("agent %s removed after step %d still holds gate %s", id, s.Step-1, gi.Name)
					}
				}
				break
			}
		}
		return nil
	}
	trace, out, save := soloRun(t, cfg, Options{BeforeStep: before}, steps, true)
	if len(rms) != len(removalKinds) {
		t.Fatalf("one process's run came to %d of the states %v: %v", len(rms), removalKinds, rms)
	}
	return rms, trace, out, save
}

// removeDue removes the agents of rms due after step s.
func removeDue(t *testing.T, c *Conductor, rms []gateRemoval) {
	t.Helper()
	for _, r := range rms {
		if r.after == c.Step() {
			if err := c.RemoveAgent(r.id); err != nil {
				t.Fatalf("after step %d, removing %s (%s): %v", r.after, r.id, r.kind, err)
			}
		}
	}
}

// runRemovals runs c to step to, removing rms' agents between the steps.
func runRemovals(t *testing.T, c *Conductor, rms []gateRemoval, to uint64) {
	t.Helper()
	runWithInputs(t, c, to, func(uint64) { removeDue(t, c, rms) })
}

// TestConductor_agentsRemovedFromAGameWithGates: agents removed between
// the steps of a game with gates, one holding a gate that others wait
// for, one waiting at a rendezvous, one whose partner waits on it, one
// holding none (and agents of other shards waiting for each), give one
// process's trace, output and save on 1, 2 and 3 shards and on 2 shards
// of 2 workers: every process's copy of the gates releases what the
// removed agent held, as one process does, and names the holders after it
// by their new places.
func TestConductor_agentsRemovedFromAGameWithGates(t *testing.T) {
	const steps = 60
	rms, wantTrace, wantOut, wantSave := soloRemovals(t, steps)
	t.Logf("removals: %v", rms)
	for _, shards := range []int{1, 2, 3, -2} {
		workers := 1
		if shards < 0 {
			shards, workers = -shards, 2
		}
		tc := startClusterWorkers(t, "gates", shards, workers)
		c := tc.conductor()
		c.SetJournal(&cluster.MemJournal{})
		runRemovals(t, c, rms, steps)
		tc.wantSolo(fmt.Sprintf("%d shards of %d workers", shards, workers), wantTrace, wantOut, wantSave)
		tc.stop()
	}
}

// TestConductor_agentsRemovedFromAGameWithGatesReplayed: a cluster that
// loses a shard after agents were removed from a game with gates goes
// back to its checkpoint (holding fewer agents than the config) and
// replays the journal's removals after it: one process's trace, output and
// save.
func TestConductor_agentsRemovedFromAGameWithGatesReplayed(t *testing.T) {
	const steps = 60
	rms, wantTrace, wantOut, wantSave := soloRemovals(t, steps)
	ckpt := rms[1].after // after the first removal, before the others
	lost := rms[len(rms)-1].after + 2
	j := &cluster.MemJournal{}

	a := startClusterFromSaves(t, "gates", 2)
	ca := a.conductor()
	ca.SetJournal(j)
	runRemovals(t, ca, rms, ckpt)
	cp, err := ca.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	traceAt, outAt := a.trace.Len(), a.out.Len()
	if err := j.Prune(ckpt); err != nil {
		t.Fatal(err)
	}
	runRemovals(t, ca, rms, lost) // then a shard is lost
	a.stop()

	for _, shards := range []int{3, 1} {
		b := startClusterFromSaves(t, "gates", shards)
		cb := b.conductor()
		cb.SetJournal(j)
		if err := cb.Load(cp); err != nil {
			t.Fatal(err)
		}
		b.wroteAs(a, traceAt, outAt)
		ins, err := j.From(ckpt)
		if err != nil {
			t.Fatal(err)
		}
		if len(ins) != len(rms)-1 {
			t.Fatalf("%d inputs journaled after the checkpoint, want %d", len(ins), len(rms)-1)
		}
		if err := cb.Replay(ins); err != nil {
			t.Fatal(err)
		}
		if err := cb.Run(int(lost - ckpt)); err != nil {
			t.Fatal(err)
		}
		runRemovals(t, cb, rms, steps)
		b.wantSolo(fmt.Sprintf("%d shards", shards), wantTrace, wantOut, wantSave)
		b.stop()
	}
}

// TestGame_removedAgentsFoldedErrorsAreReportedAtRemoval: in one process,
// an agent removed while its repeated error is folded has its repeats
// reported as it is removed (it will not err again), not at the end of
// the Run call in progress, after the other agents' lines of later steps;
// a cluster's shard, which folds its agents' errors, does the same
// (TestCluster_inputsComposeWithSlotsLanesAndMoves removes such agents).
func TestGame_removedAgentsFoldedErrorsAreReportedAtRemoval(t *testing.T) {
	config := writeGame(t, map[string]string{
		"config.toml": "[run]\nsteps = 8\ndt = 1\n[scripts]\npaths = [\"ai\"]\n[[trees]]\nname = \"t\"\nfile = \"ai/t.xml\"\n[[agents]]\ntree = \"t\"\ncount = 2\n",
		"ai/t.xml":    `<behaviorTree><action id="bad" name="bad"/></behaviorTree>`,
		"ai/t.lua":    "local bt = require(\"bt\")\nbt.action(\"bad\", function(ctx) error(\"boom\") end)\n",
	})
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	before := func(g *Game, s StepInfo) error {
		if s.Step == 6 {
			return g.RemoveAgent("t-2")
		}
		return nil
	}
	_, out, _ := soloRun(t, cfg, Options{BeforeStep: before}, 8, false)
	// t-2's line comes first: written as it was removed after step 5, the
	// other's at the end of the run.
	removed, other := strings.Index(out, "t=5.00 t-2 same error x4 (t=2.00..5.00)"), strings.Index(out, "t=8.00 t-1 same error x7")
	if removed < 0 || other < 0 || removed > other {
		t.Fatalf("t-2's folded errors are not reported as it is removed, before the end's:\n%s", out)
	}
}
