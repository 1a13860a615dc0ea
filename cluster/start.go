package cluster

import "fmt"

// The start of a run whose conductor holds no agents: every process runs
// the world's init (a shard's spawns need what it leaves in the world's
// state), and each shard its agents' spawns, keeping what they write at
// their places (StartHost). The conductor then asks for those lines
// (StartLines) and writes them, with its own, in the single run's order.

// StartHost is a ShardHost that keeps what its part of the start wrote.
type StartHost interface {
	// StartLines adds the records its part of the start wrote (once; a
	// second call adds none).
	StartLines(out *Out) error
}

func (s *Shard) startLines() error {
	h, ok := s.Host.(StartHost)
	if !ok {
		return fmt.Errorf("cluster: shard: the host keeps no lines of its start")
	}
	return h.StartLines(&s.out)
}

// StartLines gathers what every shard's part of the start wrote and hands
// it, merged with own (the conductor's own records, at their places), to
// the host's Write. With drop, it is gathered and dropped: a conductor
// that ran the whole start on copies of the agents wrote it already.
func (c *Conductor) StartLines(own []Item, drop bool) error {
	if err := c.init(); err != nil {
		return err
	}
	c.begin(StartLines, 0)
	if drop {
		for k := range c.out {
			if err := c.Link.Send(k, &c.out[k]); err != nil {
				return fmt.Errorf("cluster: the start: %w", err)
			}
		}
		if err := c.Link.Gather(c.replies); err != nil {
			return fmt.Errorf("cluster: the start: %w", err)
		}
		return nil
	}
	c.own = append(c.own, own...)
	if err := c.exchange(true); err != nil {
		return fmt.Errorf("cluster: the start: %w", err)
	}
	return c.CarryIn(c.outbox) // what the spawns sent opens the first step's queue
}
