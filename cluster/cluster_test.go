package cluster

import (
	"bytes"
	"fmt"
	"testing"
)

const modelAgents = 23

func singleRun(t *testing.T, steps uint64) (*modelSingle, string) {
	t.Helper()
	m := &modelSingle{w: &modelWorld{n: modelAgents}, agents: newAgents(0, modelAgents)}
	for s := uint64(1); s <= steps; s++ {
		if err := m.step(s); err != nil {
			t.Fatal(err)
		}
	}
	return m, m.w.lines.String()
}

func agentStates(agents []*modelAgent) string {
	var b bytes.Buffer
	for _, a := range agents {
		fmt.Fprintf(&b, "%d:%x:%v ", a.place, a.v, a.owed)
	}
	return b.String()
}

func (mc *modelCluster) states() string {
	var all []*modelAgent
	for _, s := range mc.shards {
		all = append(all, s.agents...)
	}
	return agentStates(all)
}

// The model's single run exercises what the protocol must carry: if it did
// not, the layouts' agreement below would prove little.
func TestModel_singleRunUsesEveryPart(t *testing.T) {
	_, lines := singleRun(t, 60)
	for _, want := range []string{"hears alarm from schedule", "hears dawn from schedule", "hears poke from a", "hears shout from a", "hears relay", "hears owed", "pays an owed handler", "round 3:"} {
		if !bytes.Contains([]byte(lines), []byte(want)) {
			t.Errorf("the single run has no %q", want)
		}
	}
}

// TestCluster_sameAsSingleRun: the lines (the resolvers' batches included)
// and every agent's state after 60 steps are those of one process, for 1,
// 2, 3 and 5 shards.
func TestCluster_sameAsSingleRun(t *testing.T) {
	single, want := singleRun(t, 60)
	for _, shards := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprint(shards), func(t *testing.T) {
			w := &modelWorld{n: modelAgents}
			mc := startModel(t, w, shards)
			for s := uint64(1); s <= 60; s++ {
				if err := mc.c.Step(s); err != nil {
					t.Fatal(err)
				}
			}
			if got := w.lines.String(); got != want {
				t.Errorf("lines differ from the single run's:\n%s", firstDiff(got, want))
			}
			if got, want := mc.states(), agentStates(single.agents); got != want {
				t.Errorf("states differ:\n got %s\nwant %s", got, want)
			}
			tr := mc.link.Traffic()
			if tr.Sent != tr.Received || tr.Sent == 0 {
				t.Errorf("traffic %+v: every message gets one reply", tr)
			}
		})
	}
}

// TestCluster_saveMovesBetweenLayouts: 30 steps on 2 shards, saved, loaded
// into 3 shards (and into 1), 30 more steps: what one process has after 60.
func TestCluster_saveMovesBetweenLayouts(t *testing.T) {
	single, want := singleRun(t, 60)
	first := &modelWorld{n: modelAgents}
	a := startModel(t, first, 2)
	for s := uint64(1); s <= 30; s++ {
		if err := a.c.Step(s); err != nil {
			t.Fatal(err)
		}
	}
	saves, err := a.c.Save(30)
	if err != nil {
		t.Fatal(err)
	}
	a.stop(t)
	for _, shards := range []int{3, 1} {
		w := &modelWorld{n: modelAgents, calls: first.calls, shared: first.shared, loaded: true}
		w.lines.WriteString(first.lines.String())
		b := startModel(t, w, shards)
		if err := b.c.Load(30, saves); err != nil {
			t.Fatal(err)
		}
		for s := uint64(31); s <= 60; s++ {
			if err := b.c.Step(s); err != nil {
				t.Fatal(err)
			}
		}
		if got := w.lines.String(); got != want {
			t.Errorf("%d shards after a 2-shard save: lines differ:\n%s", shards, firstDiff(got, want))
		}
		if got, want := b.states(), agentStates(single.agents); got != want {
			t.Errorf("%d shards after a 2-shard save: states differ", shards)
		}
		b.stop(t)
	}
}

func firstDiff(got, want string) string {
	gl, wl := bytes.Split([]byte(got), []byte("\n")), bytes.Split([]byte(want), []byte("\n"))
	for i := range min(len(gl), len(wl)) {
		if !bytes.Equal(gl[i], wl[i]) {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
}
