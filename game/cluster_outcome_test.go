package game

import (
	"errors"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// outcomeDirectory is a game with n agents in its directory only, as a
// conductor's.
func outcomeDirectory(n int) *Game {
	g := &Game{cl: &clusterRole{}}
	for i := range n {
		g.agents = append(g.agents, &gameAgent{idx: int32(i)})
	}
	return g
}

// What a shard notes, the conductor reads back: each changed agent's
// status and error text, none for the unchanged.
func TestOutcomes_roundTrip(t *testing.T) {
	shard, conductor := outcomeDirectory(300), outcomeDirectory(300)
	shard.agents[2].status = runtime.Failure
	shard.agents[200].status, shard.agents[200].err = runtime.Errored, errors.New("ai/t.xml:3:5: flip broke")
	shard.agents[201].status = runtime.Running
	for _, ga := range shard.agents {
		prev := runtime.Status(0)
		if ga.idx == 201 {
			prev = runtime.Running // unchanged: not sent
		}
		shard.noteOutcome(ga, prev)
	}
	var out cluster.Out
	shard.takeOutcomes(&out, 7)
	if len(out.Items) != 1 || out.Items[0].Text != outcomeStream || len(shard.cl.outcome) != 0 {
		t.Fatalf("items %+v", out.Items)
	}
	conductor.agents[201].status = runtime.Success
	if err := conductor.applyOutcomes(out.Items[0].Data); err != nil {
		t.Fatal(err)
	}
	if a := conductor.agents[2]; a.status != runtime.Failure || a.err != nil {
		t.Errorf("agent 2: %v %v", a.status, a.err)
	}
	if a := conductor.agents[200]; a.status != runtime.Errored || a.err == nil || a.err.Error() != "ai/t.xml:3:5: flip broke" {
		t.Errorf("agent 200: %v %v", a.status, a.err)
	}
	if a := conductor.agents[201]; a.status != runtime.Success {
		t.Errorf("agent 201 (not sent): %v", a.status)
	}
}

// A damaged record is refused, naming what is wrong; never a panic.
func TestOutcomes_damagedRecords(t *testing.T) {
	for name, data := range map[string][]byte{
		"no agent":         {0x80},
		"agent beyond":     {9, 1, 0},
		"no status":        {1},
		"status zero":      {1, 0, 0},
		"status beyond":    {1, 6, 0},
		"text beyond":      {1, 5, 9, 'x'},
		"huge text length": {1, 5, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"no text length":   {1, 5},
	} {
		if err := outcomeDirectory(3).applyOutcomes(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzApplyOutcomes(f *testing.F) {
	f.Add([]byte{1, 2, 0, 2, 5, 3, 'a', 'b', 'c'})
	f.Fuzz(func(t *testing.T, data []byte) {
		outcomeDirectory(4).applyOutcomes(data)
	})
}
