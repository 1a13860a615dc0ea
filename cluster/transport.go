package cluster

import (
	"errors"
	"fmt"
	"strings"
)

// ConductorLink is the conductor's end of a transport. The protocol is a
// barrier: the conductor sends each shard at most one message, then
// gathers exactly one reply from every shard it sent to.
type ConductorLink interface {
	// Shards is the number of shards.
	Shards() int
	// Send sends m to shard k, numbering it (m.Seq).
	Send(k int, m *Message) error
	// Gather waits for the reply of every shard sent to since the last
	// Gather and puts shard k's in replies[k] (len(replies) is Shards()):
	// replies are taken by shard, never by arrival. A reply out of
	// sequence, one that does not answer what its shard was sent (Asked),
	// or a shard gone, is an error naming it.
	Gather(replies []Message) error
	// Close ends the link: the shards' Recv return ErrClosed.
	Close() error
}

// ShardLink is a shard's end of a transport.
type ShardLink interface {
	// Recv waits for the conductor's next message (ErrClosed once the
	// conductor closed the link).
	Recv() (Message, error)
	// Reply answers the message received last, numbering m (m.Seq).
	Reply(m *Message) error
	// Close ends the shard's end: the conductor's Gather then names it as
	// gone.
	Close() error
}

// Traffic is what a transport carried, for the cost of a cluster: the
// messages and their bytes in each direction.
type Traffic struct {
	Sent, Received           uint64 // messages from and to the conductor
	SentBytes, ReceivedBytes uint64
}

// ErrClosed is a link closed by the other end, or by its own.
var ErrClosed = errors.New("cluster: link closed")

// ShardsError is a shard that did not answer: gone, or in error. It names
// every such shard.
type ShardsError struct {
	Shards []int
	Errs   []error
}

func (e *ShardsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster: %d shard(s) failed:", len(e.Shards))
	for i, k := range e.Shards {
		fmt.Fprintf(&b, " shard %d: %v;", k, e.Errs[i])
	}
	return strings.TrimSuffix(b.String(), ";")
}

func (e *ShardsError) Unwrap() []error { return e.Errs }
