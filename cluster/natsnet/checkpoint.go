package natsnet

import (
	"context"
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/nats-io/nats.go/jetstream"
)

// A shard writes its agents' part of each checkpoint straight into the
// run's checkpoint store (cluster.StoreLink), on its own connection: the
// bytes of its agents never cross to the conductor. The store is the one
// the conductor made (its durability settings are the conductor's), found
// by the name the conductor gives: the run's, which the link of an
// embedded run's recovery does not share.

// CheckpointStore binds the checkpoint store of run, which its conductor
// made, on the shard's connection.
func (s *ShardLink) CheckpointStore(run string) (cluster.CheckpointStore, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	js, err := jetstream.New(s.nc)
	if err != nil {
		return nil, fmt.Errorf("natsnet: shard %d: the store of run %s: %w", s.k, run, err)
	}
	kv, err := js.KeyValue(ctx, runBucket(run))
	if err != nil {
		return nil, fmt.Errorf("natsnet: shard %d: the key-value store of run %s: %w", s.k, run, err)
	}
	obs, err := js.ObjectStore(ctx, ckptBucket(run))
	if err != nil {
		return nil, fmt.Errorf("natsnet: shard %d: the checkpoint store of run %s: %w", s.k, run, err)
	}
	return &Store{js: js, kv: kv, obs: obs, run: run}, nil
}

var _ cluster.StoreLink = (*ShardLink)(nil)

// WaitStore lengthens the reply deadline by what a shard's calls of the
// store may take (two of opTimeout: its part's write, or its reads) until
// restore: a shard that writes its part is not silent, and one that stops
// is still found out.
func (c *ConductorLink) WaitStore() (restore func()) {
	was := c.o.ReplyTimeout
	c.o.ReplyTimeout += 2 * opTimeout
	return func() { c.o.ReplyTimeout = was }
}

var _ cluster.StoreWaitLink = (*ConductorLink)(nil)
