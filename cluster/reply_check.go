package cluster

import (
	"errors"
	"fmt"
)

// A reply answers the message its shard was sent last: Shard.Run replies
// with that message's kind, step and round. A reply of another (a shard
// that lost its place in the run, a transport that crossed two links'
// replies with the sequence numbers right) is refused by the link's
// Gather, naming the shard, before the conductor applies anything of it:
// its counts and items are of another question.

// ErrReply is a reply that does not answer the message its shard was sent.
var ErrReply = errors.New("cluster: a reply to another message")

// Asked is what a conductor's link last sent one shard, which the shard's
// reply must answer; a link keeps one per shard (Sent as it sends, Check
// as it gathers).
type Asked struct {
	kind  Kind
	step  uint64
	round uint32
}

// Sent notes m, sent to the shard.
func (a *Asked) Sent(m *Message) { a.kind, a.step, a.round = m.Kind, m.Step, m.Round }

// Check accepts r when it is a reply to the message sent last; from names
// the shard for the error.
func (a *Asked) Check(r *Message, from string) error {
	if !r.Reply || r.Kind != a.kind || r.Step != a.step || r.Round != a.round {
		what := "message"
		if r.Reply {
			what = "reply"
		}
		return fmt.Errorf("%w: %s sent a %s to a %s of step %d (round %d), where it was asked a %s of step %d (round %d)",
			ErrReply, from, what, r.Kind, r.Step, r.Round, a.kind, a.step, a.round)
	}
	return nil
}

// waiting is how many agents of every shard still wait after a round: a
// shard that says more than it holds is refused.
func (c *Conductor) waiting() (int, error) {
	waiting := 0
	for k := range c.replies {
		lo, hi := c.Layout.Range(k)
		if w := c.replies[k].Waiting; w > uint32(hi-lo) {
			return 0, fmt.Errorf("cluster: shard %d says %d of its %d agents wait", k, w, hi-lo)
		}
		waiting += int(c.replies[k].Waiting)
	}
	return waiting, nil
}

// releasedAll checks that shard k released as many agents (n, each its
// own, in order) as it gives up in the move from from to to.
func releasedAll(k, n int, from, to Layout) error {
	flo, fhi := from.Range(k)
	tlo, thi := to.Range(k)
	gives := max(0, min(fhi, tlo)-flo) + max(0, fhi-max(flo, thi))
	if int32(n) != gives {
		return fmt.Errorf("cluster: shard %d released %d agents, where it gives up %d", k, n, gives)
	}
	return nil
}
