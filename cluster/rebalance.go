package cluster

import (
	"fmt"
	"time"
)

// Moving agents between shards (docs/cluster.md, "Moving agents"). Each
// shard measures its cost of every step (Meter) and reports it in its
// Report reply; every Balancer.Every steps the conductor sums the window's
// costs and, when the shards' costs differ by more than Balancer.Spread,
// moves the boundaries of the ranges (Plan) at the step's end: the shards
// that lose agents release them as saves, the conductor hands each save to
// the shard whose new range holds it, and every shard and the conductor
// take the new layout. Ranges stay contiguous in config order, so every
// merge of the next steps is the one it was: where an agent runs changes,
// never the results. The move depends on measured costs; nothing that is
// written does.

// Mover is what a shard's host does for a move. A ShardHost that is not a
// Mover refuses moves (its conductor must not have a Balancer).
type Mover interface {
	// Release adds the saves of its agents outside [lo, hi) (AgentSave
	// items, PhaseSave by place) and no longer steps them.
	Release(lo, hi int32, out *Out) error
	// Adopt restores the agents of saves (those Release gave, in config
	// order) and then steps [lo, hi).
	Adopt(lo, hi int32, saves []Item) error
}

// Meter measures a shard's cost of each step: the time it spends serving
// the conductor's messages (not waiting for them) from one Report to the
// next, reported in the Report's reply (Message.Time). The zero Meter
// measures wall time.
type Meter struct {
	// Clock reads the time the cost is measured in (nil: the monotonic
	// wall clock). A shard process may read its CPU time.
	Clock func() time.Duration
	// Cost turns the step's measured time into its cost (nil: seconds):
	// tests pass costs in here, to force moves whatever the time.
	Cost func(step uint64, busy time.Duration) float64

	busy time.Duration
	t0   time.Time
}

func (m *Meter) now() time.Duration {
	if m.Clock != nil {
		return m.Clock()
	}
	if m.t0.IsZero() {
		m.t0 = time.Now()
	}
	return time.Since(m.t0)
}

// served adds the time since start to the step's; a Report's reply
// carries the step's cost, and the next step's counting begins.
func (m *Meter) served(msg, reply *Message, start time.Duration) {
	m.busy += m.now() - start
	if msg.Kind != Report {
		return
	}
	if m.Cost != nil {
		reply.Time = m.Cost(msg.Step, m.busy)
	} else {
		reply.Time = m.busy.Seconds()
	}
	m.busy = 0
}

// move serves a Move message: Round 1 releases, Round 2 adopts.
func (s *Shard) move(m *Message) error {
	mv, ok := s.Host.(Mover)
	if !ok {
		return fmt.Errorf("cluster: shard: a move, and its host cannot move agents")
	}
	if len(m.Items) == 0 || m.Items[0].Kind != MoveRange {
		return fmt.Errorf("cluster: shard: a move without its range")
	}
	lo, hi := m.Items[0].Agent, m.Items[0].Peer
	if lo < 0 || hi < lo {
		return fmt.Errorf("cluster: shard: a move to the range %d..%d", lo, hi-1)
	}
	saves := m.Items[1:]
	for i := range saves {
		if saves[i].Kind != AgentSave {
			return fmt.Errorf("cluster: shard: a %s item in a move", saves[i].Kind)
		}
	}
	switch m.Round {
	case 1:
		if len(saves) > 0 {
			return fmt.Errorf("cluster: shard: saves in a move's release")
		}
		return mv.Release(lo, hi, &s.out)
	case 2:
		return mv.Adopt(lo, hi, saves)
	}
	return fmt.Errorf("cluster: shard: a move of round %d", m.Round)
}

// Balancer is a conductor's policy of moves. The zero Balancer takes the
// defaults.
type Balancer struct {
	// Every is the window, in steps, whose costs a decision sums (default
	// DefaultEvery): moves happen at most once a window.
	Every uint64
	// Spread is how much the shards' costs of a window may differ before
	// agents move, as a fraction of the costliest's (default
	// DefaultSpread: 0.2, a shard 20% cheaper than the costliest).
	Spread float64
	// Decide, when set, is called with each window's costs and the
	// layout Plan made of them (the same when nothing moves): for tests
	// and reports.
	Decide func(step uint64, costs []float64, from, to Layout)

	costs []float64
	steps uint64
	stats MoveStats
}

// The Balancer's defaults.
const (
	DefaultEvery  = 10
	DefaultSpread = 0.2
)

// MoveStats count a balancer's moves.
type MoveStats struct {
	Moves  uint64 // moves made (each may move several boundaries)
	Agents uint64 // agents moved
	Bytes  uint64 // bytes of their saves
	// Took is the wall time the moves took, from the first release asked
	// to the last adoption done: what they cost the run (reports only).
	Took time.Duration
}

// Stats are the moves so far.
func (b *Balancer) Stats() MoveStats { return b.stats }

// note adds the shards' costs of a step (their Report replies).
func (b *Balancer) note(replies []Message) {
	if b == nil {
		return
	}
	if len(b.costs) != len(replies) {
		b.costs = make([]float64, len(replies))
	}
	for k := range replies {
		b.costs[k] += replies[k].Time
	}
	b.steps++
}

// rebalance ends a step: at the end of a window, the move Plan gives.
func (c *Conductor) rebalance(step uint64) error {
	b := c.Balance
	every := b.Every
	if every == 0 {
		every = DefaultEvery
	}
	if b.steps < every {
		return nil
	}
	spread := b.Spread
	if spread == 0 {
		spread = DefaultSpread
	}
	to := Plan(c.Layout, b.costs, spread)
	if b.Decide != nil {
		b.Decide(step, append([]float64(nil), b.costs...), c.Layout, to)
	}
	clear(b.costs)
	b.steps = 0
	if to.equal(c.Layout) {
		return nil
	}
	if err := c.MoveTo(step, to); err != nil {
		return fmt.Errorf("cluster: moving agents at the end of step %d: %w", step, err)
	}
	return nil
}

func (l Layout) equal(o Layout) bool {
	if len(l.Start) != len(o.Start) {
		return false
	}
	for i := range l.Start {
		if l.Start[i] != o.Start[i] {
			return false
		}
	}
	return true
}

// Plan is the layout that evens out the shards' costs: each agent is
// taken to cost its shard's cost divided by its shard's agents, and each
// boundary goes half of the way to where the costs would be even (at least
// one agent), every shard keeping one agent at least. The layout is l when
// the costs differ by at most spread of the costliest's, or are not all
// positive.
func Plan(l Layout, costs []float64, spread float64) Layout {
	n := l.Shards()
	if n < 2 || len(costs) != n || l.Agents() < n {
		return l
	}
	lo, hi := costs[0], costs[0]
	total := 0.0
	for _, c := range costs {
		if !(c > 0) { // also NaN
			return l
		}
		lo, hi = min(lo, c), max(hi, c)
		total += c
	}
	if hi-lo <= spread*hi {
		return l
	}
	to := Layout{Start: append([]int32(nil), l.Start...)}
	k, below := 0, 0.0 // the shard the boundary's even place is in, the cost of the shards before it
	for b := 1; b < n; b++ {
		want := total * float64(b) / float64(n)
		for k < n-1 && below+costs[k] < want {
			below += costs[k]
			k++
		}
		size := float64(l.Start[k+1] - l.Start[k])
		even := l.Start[k] + int32((want-below)/costs[k]*size+0.5)
		cur := l.Start[b]
		next := cur + (even-cur)/2
		if next == cur && even != cur {
			next = cur + sign(even-cur)
		}
		to.Start[b] = min(max(next, to.Start[b-1]+1), int32(l.Agents()-(n-b)))
	}
	return to
}

func sign(v int32) int32 {
	if v < 0 {
		return -1
	}
	return 1
}

// MoveTo moves the agents at a step's end so that the shards hold to's
// ranges: the shards whose ranges change release the agents they lose
// (their saves, merged in config order) and adopt those they gain.
func (c *Conductor) MoveTo(step uint64, to Layout) error {
	if err := c.init(); err != nil {
		return err
	}
	from := c.Layout
	if to.Shards() != from.Shards() || to.Agents() != from.Agents() || to.Start[0] != 0 {
		return fmt.Errorf("%w: a move from %d agents on %d shards to %d on %d", ErrLayout, from.Agents(), from.Shards(), to.Agents(), to.Shards())
	}
	for k := range to.Shards() {
		if to.Start[k+1] < to.Start[k] {
			return fmt.Errorf("%w: shard %d's range ends before it starts", ErrLayout, k)
		}
	}
	began := time.Now()
	changed := make([]bool, to.Shards())
	for k := range changed {
		flo, fhi := from.Range(k)
		tlo, thi := to.Range(k)
		changed[k] = flo != tlo || fhi != thi
	}
	send := func(round uint32, items func(k int)) error {
		c.begin(Move, step)
		for k := range c.out {
			c.replies[k] = Message{}
			if !changed[k] {
				continue
			}
			lo, hi := to.Range(k)
			c.out[k].Round = round
			c.out[k].Items = append(c.out[k].Items, Item{Kind: MoveRange, Agent: lo, Peer: hi})
			items(k)
			c.count(c.out[k].Items)
			if err := c.Link.Send(k, &c.out[k]); err != nil {
				return err
			}
		}
		return c.Link.Gather(c.replies)
	}
	if err := send(1, func(int) {}); err != nil {
		return err
	}
	lists := make([][]Item, len(c.replies))
	for k := range c.replies {
		c.count(c.replies[k].Items)
		lists[k] = c.replies[k].Items
		for i, s := range lists[k] {
			if s.Kind != AgentSave || from.Of(s.Agent) != k || to.Of(s.Agent) == k || i > 0 && s.Agent <= lists[k][i-1].Agent {
				return fmt.Errorf("cluster: shard %d released a %s of agent %d", k, s.Kind, s.Agent)
			}
		}
		if err := releasedAll(k, len(lists[k]), from, to); err != nil { // reply_check.go
			return err
		}
	}
	saves, err := Merge(nil, lists...)
	if err != nil {
		return err
	}
	moving := 0
	for k := range changed {
		flo, fhi := from.Range(k)
		tlo, thi := to.Range(k)
		moving += int(max(0, min(fhi, tlo)-flo) + max(0, fhi-max(flo, thi)))
	}
	if len(saves) != moving {
		return fmt.Errorf("cluster: the shards released %d agents of the %d that move", len(saves), moving)
	}
	if err := send(2, func(k int) {
		for _, s := range saves {
			if to.Of(s.Agent) == k {
				c.out[k].Items = append(c.out[k].Items, s)
			}
		}
	}); err != nil {
		return err
	}
	c.Layout = to
	if b := c.Balance; b != nil {
		b.stats.Moves++
		b.stats.Took += time.Since(began)
		b.stats.Agents += uint64(len(saves))
		for _, s := range saves {
			b.stats.Bytes += uint64(len(s.Data))
		}
	}
	return nil
}
