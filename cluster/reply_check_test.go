package cluster_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/internal/model"
)

// TestCluster_replyToAnotherMessageIsRefused: a shard whose reply answers
// another step, kind or round than it was sent (its sequence numbers
// right) ends the step with an error naming it, and nothing of the reply
// is applied: its line is not written.
func TestCluster_replyToAnotherMessageIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lie   func(m *cluster.Message) cluster.Message
		wants string
	}{
		{"step", func(m *cluster.Message) cluster.Message {
			return cluster.Message{Kind: m.Kind, Step: m.Step + 1, Round: m.Round}
		}, "reply to a step start of step 2 (round 0), where it was asked a step start of step 1 (round 0)"},
		{"kind", func(m *cluster.Message) cluster.Message {
			return cluster.Message{Kind: cluster.Report, Step: m.Step, Round: m.Round}
		}, "reply to a report of step 1"},
		{"round", func(m *cluster.Message) cluster.Message {
			return cluster.Message{Kind: m.Kind, Step: m.Step, Round: m.Round + 3}
		}, "reply to a step start of step 1 (round 3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			link, ends := cluster.NewLocal(2)
			w := &model.World{N: 4}
			c := &cluster.Conductor{Host: w, Link: link, Layout: cluster.Cut(4, 2)}
			done := make(chan error, 2)
			go func() {
				done <- (&cluster.Shard{Host: &model.Shard{N: 4, Agents: model.NewAgents(0, 2)}, Link: ends[0]}).Run()
			}()
			go func() { // shard 1 answers another message, with a line and waiting agents
				m, err := ends[1].Recv()
				if err == nil {
					r := tc.lie(&m)
					r.Waiting = 7
					r.Items = []cluster.Item{{Order: cluster.Place(cluster.PhaseRound, 2), Kind: cluster.Record, Agent: 2, Peer: -1, Text: "trace", Data: []byte("bogus\n")}}
					err = ends[1].Reply(&r)
				}
				ends[1].Close()
				done <- err
			}()
			err := c.Step(1)
			var se *cluster.ShardsError
			if !errors.As(err, &se) || len(se.Shards) != 1 || se.Shards[0] != 1 || !errors.Is(err, cluster.ErrReply) {
				t.Fatalf("got %v, want an ErrReply of shard 1", err)
			}
			if !strings.Contains(err.Error(), "shard 1 sent a "+tc.wants) {
				t.Errorf("%v: want %q", err, tc.wants)
			}
			if strings.Contains(w.Lines.String(), "bogus") {
				t.Errorf("the refused reply's line was written")
			}
			link.Close()
			<-done
			<-done
		})
	}
}
