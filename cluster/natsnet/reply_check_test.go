package natsnet

import (
	"errors"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestNATS_replyToAnotherStepIsRefused: a shard's reply, numbered right,
// to another step than the conductor asked is refused by Gather, naming
// the shard, and not put among the replies.
func TestNATS_replyToAnotherStepIsRefused(t *testing.T) {
	s := startServer(t)
	c, ends := joinAll(t, Options{URL: s.URL(), Run: "another-step", Version: "v1"}, 1)
	defer c.Close()
	if err := c.Send(0, &cluster.Message{Kind: cluster.Report, Step: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := ends[0].Recv(); err != nil {
		t.Fatal(err)
	}
	if err := ends[0].Reply(&cluster.Message{Kind: cluster.Report, Step: 4, Items: []cluster.Item{{Kind: cluster.Record, Text: "trace", Data: []byte("stale\n")}}}); err != nil {
		t.Fatal(err)
	}
	replies := make([]cluster.Message, 1)
	err := c.Gather(replies)
	if !errors.Is(err, cluster.ErrReply) || !strings.Contains(err.Error(), "shard 0 (shard-test-a): cluster: a reply to another message: a reply to a report of step 4") {
		t.Fatalf("got %v, want an ErrReply naming shard 0", err)
	}
	if len(replies[0].Items) != 0 {
		t.Errorf("the refused reply was put among the replies")
	}
}
