package natsnet

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/nats-io/nats.go"
)

// staleLog collects what Options.Stale is told.
type staleLog struct {
	mu   sync.Mutex
	msgs []string
}

func (l *staleLog) add(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, msg)
}

func (l *staleLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

// waitFor waits until ok holds: for a message NATS delivers to one of
// this process's subscriptions (a hang guard, not a measure of time).
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within a minute", what)
		}
	}
}

// A shard of an ended link that wakes up and sends the reply it owed is
// ignored by the conductor of a new link of the same run, which says so:
// the new link's shard 0 is the one whose replies count, and the link
// goes on without a sequence error.
func TestNATS_staleShardReplyIsIgnored(t *testing.T) {
	s := startServer(t)
	var log staleLog
	o := Options{URL: s.URL(), Run: "stale", Version: "v1", Stale: log.add}
	a, oldEnds := joinAll(t, o, 1)
	if err := a.Send(0, &cluster.Message{Kind: cluster.Report, Step: 1}); err != nil {
		t.Fatal(err)
	}
	m, err := oldEnds[0].Recv()
	if err != nil {
		t.Fatal(err)
	}
	a.Close() // the link ends (a lost shard, say) while shard 0 owes its reply
	b, ends := joinAll(t, o, 1)
	defer b.Close()
	stale := oldEnds[0].(*ShardLink)
	defer stale.Close()
	// The old shard wakes up and replies; the new conductor hears it first.
	if err := stale.Reply(&cluster.Message{Kind: m.Kind, Step: 1}); err != nil {
		t.Fatal(err)
	}
	if err := stale.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the stale reply reaching the new conductor", func() bool { return len(b.up) > 0 })
	for step := uint64(7); step < 10; step++ {
		if err := b.Send(0, &cluster.Message{Kind: cluster.Report, Step: step}); err != nil {
			t.Fatal(err)
		}
		got, err := ends[0].Recv()
		if err != nil {
			t.Fatal(err)
		}
		if err := ends[0].Reply(&cluster.Message{Kind: got.Kind, Step: got.Step, Items: []cluster.Item{{Kind: cluster.Record, Text: "new"}}}); err != nil {
			t.Fatal(err)
		}
		replies := make([]cluster.Message, 1)
		if err := b.Gather(replies); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if r := replies[0]; r.Step != step || len(r.Items) != 1 || r.Items[0].Text != "new" {
			t.Fatalf("step %d: shard 0 replied for step %d with %d items: not the new link's shard", step, r.Step, len(r.Items))
		}
	}
	msgs := log.all()
	if len(msgs) != 1 || !strings.Contains(msgs[0], "ignored a reply") || !strings.Contains(msgs[0], "ended link") {
		t.Errorf("the conductor said %q; want one stale reply ignored", msgs)
	}
}

// A shard of a new link that hears the end of an old link of the same run
// (its bye, delivered late) ignores it and says so, and ends with its own
// link's end.
func TestNATS_staleByeIsIgnored(t *testing.T) {
	s := startServer(t)
	var log staleLog
	o := Options{URL: s.URL(), Run: "staleb", Version: "v1", Stale: log.add}
	a, oldEnds := joinAll(t, o, 1)
	oldLink := a.link
	a.Close()
	oldEnds[0].Close()
	b, ends := joinAll(t, o, 1)
	sh := ends[0].(*ShardLink)
	defer sh.Close()
	nc, err := nats.Connect(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := nc.Publish(o.subject("bye"), []byte(oldLink)); err != nil { // the old link's end, late
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the old bye reaching the shard", func() bool { return len(sh.bye) > 0 })
	got := make(chan error, 1)
	go func() {
		m, err := sh.Recv()
		if err == nil && m.Step != 3 {
			err = errors.New("another message than the conductor's")
		}
		got <- err
	}()
	// The conductor sends only once the shard took up the old bye: with
	// both waiting, Recv may take either first (the bye is then taken up
	// by the next Recv), and the test would judge the scheduler.
	waitFor(t, "the shard ignoring the old bye", func() bool { return len(log.all()) > 0 })
	if err := b.Send(0, &cluster.Message{Kind: cluster.Report, Step: 3}); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the shard of the new link: %v", err)
	}
	if msgs := log.all(); len(msgs) != 1 || !strings.Contains(msgs[0], "ignored the end of link") {
		t.Errorf("the shard said %q; want one stale end ignored", msgs)
	}
	go func() {
		_, err := sh.Recv()
		got <- err
	}()
	b.Close()
	if err := <-got; !errors.Is(err, cluster.ErrClosed) {
		t.Errorf("after its own link's end, the shard got %v", err)
	}
}
