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

// Check accepts r when it is a reply to the message sent last (the
// link's error names the shard: ShardsError).
func (a *Asked) Check(r *Message) error {
	if !r.Reply || r.Kind != a.kind || r.Step != a.step || r.Round != a.round {
		what := "message"
		if r.Reply {
			what = "reply"
		}
		return fmt.Errorf("%w: a %s to a %s of step %d (round %d), where the shard was asked a %s of step %d (round %d)",
			ErrReply, what, r.Kind, r.Step, r.Round, a.kind, a.step, a.round)
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

// savedRange checks shard k's reply to a Save of round: one save per
// agent of its range, in order (round 0), or one part naming its range
// (SavePart; none for an empty range).
func (c *Conductor) savedRange(k int, round uint32, items []Item) error {
	lo, hi := c.Layout.Range(k)
	if round == SavePart {
		if lo == hi && len(items) == 0 {
			return nil
		}
		if len(items) != 1 || items[0].Kind != AgentSave || items[0].Agent != lo || items[0].Peer != hi {
			return fmt.Errorf("cluster: shard %d replied to a save with %d items, where one part names its agents %d..%d", k, len(items), lo, hi-1)
		}
		return nil
	}
	if len(items) != int(hi-lo) {
		return fmt.Errorf("cluster: shard %d saved %d agents, and holds %d", k, len(items), hi-lo)
	}
	for i := range items {
		if items[i].Kind != AgentSave || items[i].Agent != lo+int32(i) {
			return fmt.Errorf("cluster: shard %d's save item %d is a %s of agent %d, where agent %d's is next", k, i, items[i].Kind, items[i].Agent, lo+int32(i))
		}
	}
	return nil
}

// changeReplied checks shard k's reply to an agent's change: only the
// shard that holds the agent closed or removed replies with its close
// (an AgentRemove item, one AgentClose item at most).
func (c *Conductor) changeReplied(k int, change *Item) error {
	closes := 0
	for _, it := range c.replies[k].Items {
		if it.Kind != AgentRemove && it.Kind != AgentClose {
			continue
		}
		if change.Kind != AgentRemove && change.Kind != AgentClose || c.Layout.Of(change.Agent) != k {
			return fmt.Errorf("cluster: shard %d replied with an %s item to a change of agent %d, which it does not hold", k, it.Kind, change.Agent)
		}
		if it.Kind == AgentClose {
			if closes++; closes > 1 {
				return fmt.Errorf("cluster: shard %d replied with two closes of agent %d", k, change.Agent)
			}
		}
	}
	return nil
}
