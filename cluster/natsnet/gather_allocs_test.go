package natsnet

import (
	"errors"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
)

// TestNATS_gatherAllocatesOnlyTheReplies: with the shards' replies already
// arrived, the conductor's Gather allocates what decoding them does and
// nothing of its own: the label a shard's sequence check names it by and
// the down subject are made as it joins, the reply timer once per link, not
// per round. A later round whose shard stays silent is still named (the
// timer reset by each Gather fires).
func TestNATS_gatherAllocatesOnlyTheReplies(t *testing.T) {
	const shards, rounds = 2, 40
	s := startServer(t)
	c, ends := joinAll(t, Options{URL: s.URL(), Run: "gather-allocs", Version: "v1", ReplyTimeout: 500 * time.Millisecond}, shards)
	defer c.Close()
	reply := cluster.Message{Kind: cluster.Round, Reply: true, Step: 1}
	decode := testing.AllocsPerRun(20, func() {
		if _, err := cluster.Decode(reply.Append(nil)); err != nil {
			t.Fatal(err)
		}
	})
	encode := testing.AllocsPerRun(20, func() { _ = reply.Append(nil) })
	replies := make([]cluster.Message, shards)
	var mallocs uint64
	for r := range uint32(rounds) {
		for k, l := range ends {
			if err := c.Send(k, &cluster.Message{Kind: cluster.Round, Step: 1, Round: r}); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Recv(); err != nil {
				t.Fatal(err)
			}
			m := reply
			m.Round = r
			if err := l.Reply(&m); err != nil {
				t.Fatal(err)
			}
		}
		for len(c.up) < shards { // the replies have crossed: what Gather does is its own
			time.Sleep(time.Millisecond)
		}
		var m0, m1 goruntime.MemStats
		goruntime.ReadMemStats(&m0)
		err := c.Gather(replies)
		goruntime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		mallocs += m1.Mallocs - m0.Mallocs
	}
	per := float64(mallocs) / (shards * rounds)
	t.Logf("Gather: %.2f allocations a reply; decoding one %.0f", per, decode-encode)
	if per > decode-encode+0.25 { // a quarter: the client's own goroutines may allocate meanwhile, now and then
		t.Errorf("Gather allocates %.2f times a reply, decoding one %.0f: the rest is Gather's own", per, decode-encode)
	}
	for k := range shards {
		if err := c.Send(k, &cluster.Message{Kind: cluster.Report, Step: 1}); err != nil {
			t.Fatal(err)
		}
	}
	m, err := ends[0].Recv()
	if err != nil {
		t.Fatal(err)
	}
	if err := ends[0].Reply(&cluster.Message{Kind: m.Kind, Step: 1}); err != nil {
		t.Fatal(err)
	}
	err = c.Gather(replies)
	var se *cluster.ShardsError
	if !errors.As(err, &se) || len(se.Shards) != 1 || se.Shards[0] != 1 {
		t.Errorf("the silent shard: got %v, want shard 1 named", err)
	}
}
