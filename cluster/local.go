package cluster

import (
	"fmt"
	"sync"
)

// NewLocal makes the in-process transport between a conductor and n
// shards: channels, one pair per shard. Messages cross as bytes (Append,
// Decode) and their sequence numbers are checked, as on any transport: so
// nothing slips from a shard to the conductor through shared memory, and a
// cluster tested in one process is the cluster that runs on a network.
func NewLocal(n int) (*LocalConductor, []ShardLink) {
	c := &LocalConductor{links: make([]*localShard, n), sent: make([]bool, n)}
	shards := make([]ShardLink, n)
	for k := range n {
		l := &localShard{k: k, label: fmt.Sprintf("shard %d", k), down: make(chan []byte, 1), up: make(chan []byte, 1), done: make(chan struct{}), gone: make(chan struct{})}
		c.links[k], shards[k] = l, l
	}
	return c, shards
}

// LocalConductor is the conductor's end of NewLocal's transport.
type LocalConductor struct {
	links   []*localShard
	sent    []bool
	traffic Traffic
	closed  bool
}

// localShard is one shard's channels, both ends' sequences.
type localShard struct {
	k         int
	label     string // "shard k", for errors: made once, not per Gather
	down, up  chan []byte
	done      chan struct{} // closed by the conductor's Close
	gone      chan struct{} // closed by the shard's Close
	closeOnce sync.Once
	downSeq   Sequence // the conductor's numbering of what it sends
	downCheck Sequence // the shard's check of it
	upSeq     Sequence
	upCheck   Sequence
	asked     Asked // what the shard was sent last (reply_check.go)
}

func (c *LocalConductor) Shards() int { return len(c.links) }

// Traffic is what the link carried so far.
func (c *LocalConductor) Traffic() Traffic { return c.traffic }

func (c *LocalConductor) Send(k int, m *Message) error {
	if c.closed {
		return ErrClosed
	}
	if k < 0 || k >= len(c.links) {
		return fmt.Errorf("cluster: no shard %d of %d", k, len(c.links))
	}
	if c.sent[k] {
		return fmt.Errorf("cluster: a second message to shard %d before its reply (%s)", k, m.Kind)
	}
	l := c.links[k]
	m.Seq = l.downSeq.Next()
	l.asked.Sent(m)
	b := m.Append(nil)
	c.traffic.Sent++
	c.traffic.SentBytes += uint64(len(b))
	select {
	case l.down <- b:
	case <-l.gone:
		return &ShardsError{Shards: []int{k}, Errs: []error{fmt.Errorf("%w: the shard is gone", ErrClosed)}}
	}
	c.sent[k] = true
	return nil
}

func (c *LocalConductor) Gather(replies []Message) error {
	var failed ShardsError
	for k, l := range c.links {
		if !c.sent[k] {
			continue
		}
		c.sent[k] = false
		b, ok := l.await()
		if !ok {
			failed.Shards = append(failed.Shards, k)
			failed.Errs = append(failed.Errs, fmt.Errorf("%w: the shard is gone", ErrClosed))
			continue
		}
		c.traffic.Received++
		c.traffic.ReceivedBytes += uint64(len(b))
		m, err := Decode(b)
		if err == nil {
			err = l.upCheck.Check(&m, l.label)
		}
		if err == nil {
			err = l.asked.Check(&m)
		}
		if err == nil && m.Err != "" {
			err = fmt.Errorf("cluster: %s", m.Err)
		}
		if err != nil {
			failed.Shards = append(failed.Shards, k)
			failed.Errs = append(failed.Errs, err)
			continue
		}
		replies[k] = m
	}
	if len(failed.Shards) > 0 {
		return &ShardsError{Shards: failed.Shards, Errs: failed.Errs} // a copy: failed stays on the stack
	}
	return nil
}

// await waits for the shard's reply; false when the shard is gone without
// one (a shard that replies and then ends has replied).
func (l *localShard) await() ([]byte, bool) {
	select {
	case b := <-l.up:
		return b, true
	case <-l.gone:
		select {
		case b := <-l.up:
			return b, true
		default:
			return nil, false
		}
	}
}

func (c *LocalConductor) Close() error {
	if !c.closed {
		c.closed = true
		for _, l := range c.links {
			close(l.done)
		}
	}
	return nil
}

func (l *localShard) Recv() (Message, error) {
	select {
	case b := <-l.down:
		m, err := Decode(b)
		if err == nil {
			err = l.downCheck.Check(&m, "the conductor")
		}
		return m, err
	case <-l.done:
		return Message{}, ErrClosed
	case <-l.gone:
		return Message{}, ErrClosed
	}
}

func (l *localShard) Reply(m *Message) error {
	m.Reply = true
	m.Seq = l.upSeq.Next()
	select {
	case l.up <- m.Append(nil):
		return nil
	case <-l.done:
		return ErrClosed
	case <-l.gone:
		return ErrClosed
	}
}

func (l *localShard) Close() error {
	l.closeOnce.Do(func() { close(l.gone) })
	return nil
}
