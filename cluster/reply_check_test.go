package cluster_test

import (
	"errors"
	"fmt"
	"reflect"
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
		}, "reply to a step start of step 2 (round 0), where the shard was asked a step start of step 1 (round 0)"},
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
			if !strings.Contains(err.Error(), "shard 1: cluster: a reply to another message: a "+tc.wants) {
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

// lyingEnd is a shard's end that changes its shard's replies (lie) before
// they cross.
type lyingEnd struct {
	cluster.ShardLink
	lie func(r *cluster.Message)
}

func (l *lyingEnd) Reply(r *cluster.Message) error {
	l.lie(r)
	return l.ShardLink.Reply(r)
}

// TestCluster_wrongCountsAreRefused: a shard's reply whose counts or
// ranges are not what it was asked (more agents waiting than it holds, a
// checkpoint's part that cannot be read or overlaps another shard's
// range, a move that releases an agent fewer or one twice) ends the
// exchange with an error naming the shard, and nothing of it is applied:
// no part is returned, the layout does not change.
func TestCluster_wrongCountsAreRefused(t *testing.T) {
	const n = 6
	for _, tc := range []struct {
		name string
		lie  func(r *cluster.Message)
		run  func(c *cluster.Conductor) error
		want string
	}{
		{"waiting", func(r *cluster.Message) {
			if r.Kind == cluster.StepStart {
				r.Waiting = 9
			}
		}, func(c *cluster.Conductor) error { return c.Step(1) }, "shard 1 says 9 of its 3 agents wait"},
		{"part unreadable", func(r *cluster.Message) {
			if r.Kind == cluster.CheckpointParts && len(r.Items) == 1 {
				r.Items[0].Data = r.Items[0].Data[:2]
			}
		}, writeParts, "checkpoint 1: shard 1: cluster: a checkpoint's part"},
		{"part overlaps", func(r *cluster.Message) {
			if r.Kind == cluster.CheckpointParts && len(r.Items) == 1 {
				r.Items[0].Agent--
			}
		}, writeParts, "shard 1 wrote agents 2..5, and holds 3..5"},
		{"released one fewer", func(r *cluster.Message) {
			if r.Kind == cluster.Move && r.Round == 1 && len(r.Items) > 0 {
				r.Items = r.Items[:len(r.Items)-1]
			}
		}, move, "shard 1 released 1 agents, where it gives up 2"},
		{"saved one fewer", func(r *cluster.Message) {
			if r.Kind == cluster.Save {
				r.Items = r.Items[1:]
			}
		}, save, "shard 1 saved 2 agents, and holds 3"},
		{"saved another's", func(r *cluster.Message) {
			if r.Kind == cluster.Save {
				r.Items[0].Agent = 2
			}
		}, save, "shard 1's save item 0 is a agent save of agent 2, where agent 3's is next"},
		{"released one twice", func(r *cluster.Message) {
			if r.Kind == cluster.Move && r.Round == 1 && len(r.Items) > 1 {
				r.Items[1].Agent, r.Items[1].Sub = r.Items[0].Agent, 1
			}
		}, move, "shard 1 released a agent save of agent 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			link, ends := cluster.NewLocal(2)
			ends[1] = &lyingEnd{ShardLink: ends[1], lie: tc.lie}
			mc := model.Start(&model.World{N: n}, link, ends)
			defer mc.Stop()
			layout := mc.C.Layout
			err := tc.run(mc.C)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if !reflect.DeepEqual(mc.C.Layout, layout) {
				t.Errorf("the layout changed to %v", mc.C.Layout)
			}
		})
	}
}

func writeParts(c *cluster.Conductor) error {
	parts, err := c.WriteParts(0, 1, "TestCluster_wrongCountsAreRefused")
	if parts != nil {
		return fmt.Errorf("parts %v returned with %w", parts, err)
	}
	return err
}

// move moves shard 1's first two agents to shard 0.
func move(c *cluster.Conductor) error {
	return c.MoveTo(0, cluster.Layout{Start: []int32{0, 5, 6}})
}

func save(c *cluster.Conductor) error {
	saves, err := c.Save(0)
	if saves != nil {
		return fmt.Errorf("saves %v returned with %w", saves, err)
	}
	return err
}

// TestCluster_closeFromAnotherShardIsRefused: an agent's close (its
// releases, its error) replied by a shard that does not hold the agent,
// or twice, is refused naming the shard, and not returned.
func TestCluster_closeFromAnotherShardIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replies [2][]cluster.Item
		want    string
	}{
		{"another shard", [2][]cluster.Item{nil, {{Kind: cluster.AgentClose, Agent: 1, Data: []byte("releases")}}},
			"shard 1 replied with an agent close item to a change of agent 1, which it does not hold"},
		{"twice", [2][]cluster.Item{{{Kind: cluster.AgentClose, Agent: 1, Data: []byte("a")}, {Order: 1, Kind: cluster.AgentClose, Agent: 1, Data: []byte("b")}}, nil},
			"shard 0 replied with two closes of agent 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			link, ends := cluster.NewLocal(2)
			c := &cluster.Conductor{Host: &model.World{N: 4}, Link: link, Layout: cluster.Cut(4, 2)}
			done := make(chan error, 2)
			for k := range 2 {
				go func() { // each shard replies its items to the close
					m, err := ends[k].Recv()
					if err == nil {
						err = ends[k].Reply(&cluster.Message{Kind: m.Kind, Step: m.Step, Round: m.Round, Items: tc.replies[k]})
					}
					done <- err
				}()
			}
			_, releases, err := c.CloseAgent(3, 1, "a1")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if releases != nil {
				t.Errorf("releases %q returned", releases)
			}
			link.Close()
			<-done
			<-done
		})
	}
}
