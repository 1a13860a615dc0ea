package game

import (
	"bytes"
	"sync"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// A decoded message's bytes (cluster.Decode's Shared and items' Data) are
// parts of the buffer it was decoded from, which the transports give each
// message for good. So a receiver may keep them as long as it likes (the
// conductor keeps a removed agent's gate releases across the next
// exchange, the signals an input's handlers sent until the next step, the
// journal and the shards their inputs and saves), and must never write
// into them: the rest of the message, and whatever else kept a part of it,
// would change under their holders. These links decode every message from
// a buffer of their own and check, at the end, that nobody wrote into one.

// ownedBytes keeps the buffers a link decoded messages from, with copies.
type ownedBytes struct {
	mu     sync.Mutex
	bufs   [][]byte
	copies [][]byte
}

// decode re-encodes m into a buffer of its own and decodes it from there.
func (o *ownedBytes) decode(m *cluster.Message) (cluster.Message, error) {
	b := m.Append(nil)
	o.mu.Lock()
	o.bufs, o.copies = append(o.bufs, b), append(o.copies, bytes.Clone(b))
	o.mu.Unlock()
	return cluster.Decode(b)
}

// check fails the test for each buffer written into since it was decoded.
func (o *ownedBytes) check(t *testing.T, end string) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, b := range o.bufs {
		if !bytes.Equal(b, o.copies[i]) {
			m, _ := cluster.Decode(o.copies[i])
			t.Errorf("%s: message %d (a %s of step %d) was written into after it was decoded", end, i, m.Kind, m.Step)
		}
	}
}

// ownedShardEnd is a shard's end whose messages are decoded by o.
type ownedShardEnd struct {
	cluster.ShardLink
	o *ownedBytes
}

func (l *ownedShardEnd) Recv() (cluster.Message, error) {
	m, err := l.ShardLink.Recv()
	if err != nil {
		return m, err
	}
	return l.o.decode(&m)
}

// ownedConductorEnd is the conductor's end whose replies are decoded by o.
type ownedConductorEnd struct {
	cluster.ConductorLink
	o    *ownedBytes
	sent []bool
}

func (l *ownedConductorEnd) Send(k int, m *cluster.Message) error {
	err := l.ConductorLink.Send(k, m)
	if err == nil {
		l.sent[k] = true
	}
	return err
}

func (l *ownedConductorEnd) Gather(replies []cluster.Message) error {
	if err := l.ConductorLink.Gather(replies); err != nil {
		return err
	}
	for k, sent := range l.sent {
		if sent {
			l.sent[k] = false
			r, err := l.o.decode(&replies[k])
			if err != nil {
				return err
			}
			replies[k] = r
		}
	}
	return nil
}

// TestCluster_receivedBytesAreNeverWritten: fuzzRun's run (every kind of
// message and item) with every message decoded from a buffer the test
// keeps: no receiver, on the conductor or a shard, writes into the bytes
// of a message it was given.
func TestCluster_receivedBytesAreNeverWritten(t *testing.T) {
	config := writeFuzzGame(t)
	var down, up ownedBytes
	tc := openCluster(t, clusterSetup{name: config, shards: fuzzShards, fromSaves: true, every: fuzzEvery,
		link: func(l cluster.ConductorLink) cluster.ConductorLink {
			return &ownedConductorEnd{ConductorLink: l, o: &up, sent: make([]bool, fuzzShards)}
		},
		shardLink: func(_ int, l cluster.ShardLink) cluster.ShardLink { return &ownedShardEnd{ShardLink: l, o: &down} }})
	c := tc.conductor()
	c.SetJournal(&cluster.MemJournal{})
	run := t.Name()
	save := func() ([]byte, error) { return tc.ch.save(tc.c) }
	load := func(b []byte) error { return tc.ch.load(tc.c, b) }
	if err := fuzzRun(c, cluster.SharedMemStore(run), run, save, load); err != nil {
		t.Fatal(err)
	}
	tc.stop()
	if len(down.bufs) < 100 || len(up.bufs) < 100 {
		t.Fatalf("%d messages to the shards, %d replies: the run is not fuzzRun's", len(down.bufs), len(up.bufs))
	}
	down.check(t, "a shard")
	up.check(t, "the conductor")
}
