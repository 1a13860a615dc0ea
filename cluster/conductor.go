package cluster

import (
	"errors"
	"fmt"
)

// ConductorHost is the conductor's side of a game: what one process does on
// its one thread, given the shards' items merged in the single run's order.
type ConductorHost interface {
	// BeginStep runs what comes before the agents' steps (the world's
	// tick, the scheduled signals due) and returns the step's time, the
	// world's shared data when it changed since the last step or a Load
	// (nil: unchanged; a shard keeps what it was given last) and the
	// scheduled deliveries in schedule order (Delivery items: Agent the
	// receiver, or -1 for every agent), between which the conductor's own
	// lines (Record items) keep their place.
	BeginStep(step uint64) (t float64, shared []byte, deliveries []Item, err error)
	// Write writes records (trace and output lines) in the order given.
	Write(records []Item) error
	// Resolve ends round number round of the step, as one process ends a
	// round: requests are the round's (gate releases and takes, plugin
	// calls), merged in config order; it returns their answers (Answer
	// items, each for its Agent, or with Agent -1 for every shard, in the
	// order given). It is called for every round, with requests or not;
	// the last round's answers reach the shards with Report.
	Resolve(round uint32, requests []Item) ([]Item, error)
	// Route turns the signals agents sent, in the order sent, into their
	// deliveries in the same order (Delivery items, Peer the sender).
	Route(signals []Item) ([]Item, error)
}

// Conductor drives a step of a cluster: it sends each phase to the shards,
// gathers their replies, merges them in the single run's order (Merge) and
// hands them to its host. It is used from one goroutine.
type Conductor struct {
	Host   ConductorHost
	Link   ConductorLink
	Layout Layout
	// Balance, when set, moves agents between shards at step ends as
	// their costs differ (rebalance.go).
	Balance *Balancer

	stats Stats

	replies []Message
	out     []Message // per shard, the message being made
	lists   [][]Item
	own     []Item // the conductor's own records, merged with the next replies
	merged  []Item
	records []Item
	reqs    []Item
	outbox  []Item
	inCarry []Item // deliveries of what inputs' handlers sent between steps (inputs.go)
	closed  []byte // the gate releases of an agent's close (remove.go)
	debug          // a live view's part (debug.go)
}

// Stats count the exchanges of a conductor's steps: what the number of
// messages follows (per shard: one per step, round after the first, report
// and delivery batch), whatever the number of agents.
type Stats struct {
	Steps, Rounds, Batches uint64 // Rounds: every round; Batches: the delivery batches
	// Items and ItemBytes count the items that crossed either way, by kind
	// (indexed by ItemKind), and the bytes of their payloads (data, name
	// and text): what the bytes of the messages are made of.
	Items, ItemBytes [numItemKinds]uint64
}

// Stats are the exchanges so far.
func (c *Conductor) Stats() Stats { return c.stats }

// ErrLayout is a layout whose shards are not the link's.
var ErrLayout = errors.New("cluster: layout and link differ")

func (c *Conductor) init() error {
	if c.replies == nil {
		if c.Layout.Shards() != c.Link.Shards() {
			return fmt.Errorf("%w: %d shards in the layout, %d on the link", ErrLayout, c.Layout.Shards(), c.Link.Shards())
		}
		c.replies = make([]Message, c.Link.Shards())
		c.out = make([]Message, c.Link.Shards())
	}
	return nil
}

// Step runs step number step: StepStart, the rounds, Report, and the
// deliveries until no signal is left.
func (c *Conductor) Step(step uint64) error {
	if err := c.init(); err != nil {
		return err
	}
	t, shared, dels, err := c.Host.BeginStep(step)
	if err != nil {
		return err
	}
	c.outbox = c.carried(c.outbox[:0]) // debug.go: signals sent between steps
	c.stats.Steps++
	c.begin(StepStart, step)
	for k := range c.out {
		c.out[k].Time, c.out[k].Shared = t, shared
	}
	if err := c.spread(dels, PhaseSchedule); err != nil {
		return err
	}
	if err := c.exchange(true); err != nil {
		return fmt.Errorf("cluster: step %d, round 1: %w", step, err)
	}
	var answers []Item
	for round := uint32(1); ; round++ {
		c.stats.Rounds++
		waiting, err := c.waiting() // reply_check.go
		if err != nil {
			return fmt.Errorf("cluster: step %d, round %d: %w", step, round, err)
		}
		answers, err = c.Host.Resolve(round, c.reqs)
		if err != nil {
			return err
		}
		if waiting == 0 {
			break // the last round's answers go with Report
		}
		if round >= MaxRounds {
			return fmt.Errorf("cluster: step %d: %d agents still wait after %d rounds", step, waiting, round)
		}
		c.begin(Round, step)
		for k := range c.out {
			c.out[k].Round = round + 1
		}
		if err := c.answer(answers); err != nil {
			return fmt.Errorf("cluster: step %d, round %d: %w", step, round, err)
		}
		if err := c.exchange(true); err != nil {
			return fmt.Errorf("cluster: step %d, round %d: %w", step, round+1, err)
		}
	}
	c.begin(Report, step)
	if err := c.answer(answers); err != nil {
		return fmt.Errorf("cluster: step %d, report: %w", step, err)
	}
	if err := c.exchange(true); err != nil {
		return fmt.Errorf("cluster: step %d, report: %w", step, err)
	}
	c.Balance.note(c.replies) // the shards' costs of the step (rebalance.go)
	for len(c.outbox) > 0 || len(c.inCarry) > 0 {
		dels, err := c.Host.Route(c.outbox)
		if err != nil {
			return err
		}
		dels = c.carriedIn(dels) // inputs.go
		c.outbox = c.outbox[:0]
		c.stats.Batches++
		c.begin(Deliver, step)
		if err := c.spread(dels, PhaseDelivery); err != nil {
			return err
		}
		if err := c.exchange(false); err != nil {
			return fmt.Errorf("cluster: step %d, deliveries: %w", step, err)
		}
	}
	if c.Balance != nil {
		return c.rebalance(step)
	}
	return nil
}

// MaxRounds bounds the rounds of one step: agents that still wait after
// so many are an error, not rounds for ever (a step's rule runs are
// bounded by its runaway limit long before).
const MaxRounds = 1 << 16

// answer gives each shard the answers for its agents; one for every agent
// (Agent -1) goes to every shard, in order.
func (c *Conductor) answer(answers []Item) error {
	for _, a := range answers {
		if a.Agent < 0 {
			for k := range c.out {
				c.out[k].Items = append(c.out[k].Items, a)
			}
			continue
		}
		k := c.Layout.Of(a.Agent)
		if k < 0 {
			return fmt.Errorf("an answer for agent %d, which no shard holds", a.Agent)
		}
		c.out[k].Items = append(c.out[k].Items, a)
	}
	return nil
}

// begin starts a message of kind to every shard.
func (c *Conductor) begin(kind Kind, step uint64) {
	for k := range c.out {
		items := c.out[k].Items
		clear(items)
		c.out[k] = Message{Kind: kind, Step: step, Items: items[:0]}
	}
}

// spread numbers deliveries by their place in the queue and gives each
// shard those for its agents (one to every agent goes to every shard).
func (c *Conductor) spread(dels []Item, phase uint64) error {
	for i, d := range dels {
		d.Order, d.Sub = Place(phase, int64(i)), 0
		if d.Kind == Record {
			c.own = append(c.own, d)
			continue
		}
		d.Kind = Delivery
		if d.Agent < 0 {
			for k := range c.out {
				c.out[k].Items = append(c.out[k].Items, d)
			}
			continue
		}
		k := c.Layout.Of(d.Agent)
		if k < 0 {
			return fmt.Errorf("cluster: a delivery of %q to agent %d, which no shard holds", d.Name, d.Agent)
		}
		c.out[k].Items = append(c.out[k].Items, d)
	}
	return nil
}

// exchange sends every shard its message (all of them, or those with
// items), gathers the replies, merges their items and hands them out:
// records to the host's Write, signals to the outbox, requests to c.reqs.
func (c *Conductor) exchange(all bool) error {
	sent := 0
	for k := range c.out {
		if !all && len(c.out[k].Items) == 0 {
			c.replies[k] = Message{}
			continue
		}
		c.count(c.out[k].Items)
		if err := c.Link.Send(k, &c.out[k]); err != nil {
			return err
		}
		sent++
	}
	if sent > 0 {
		if err := c.Link.Gather(c.replies); err != nil {
			return err
		}
		for k := range c.replies {
			c.count(c.replies[k].Items)
		}
	}
	c.lists = append(c.lists[:0], c.own)
	for k := range c.replies {
		c.lists = append(c.lists, c.replies[k].Items)
	}
	var err error
	c.merged, err = Merge(c.merged[:0], c.lists...)
	clear(c.own)
	c.own = c.own[:0]
	if err != nil {
		return err
	}
	c.records, c.reqs = c.records[:0], c.reqs[:0]
	for _, it := range c.merged {
		switch it.Kind {
		case Record:
			c.records = append(c.records, it)
		case Signal:
			c.outbox = append(c.outbox, it)
		case Request:
			c.reqs = append(c.reqs, it)
		case DebugNote:
			c.notes = append(c.notes, it) // debug.go
		default:
			return fmt.Errorf("cluster: a shard replied with a %s item", it.Kind)
		}
	}
	if len(c.records) > 0 {
		return c.Host.Write(c.records)
	}
	return nil
}

// count adds items to the stats.
func (c *Conductor) count(items []Item) {
	for i := range items {
		if k := items[i].Kind; k < numItemKinds {
			c.stats.Items[k]++
			c.stats.ItemBytes[k] += uint64(len(items[i].Data) + len(items[i].Name) + len(items[i].Text))
		}
	}
}

// gatherSaves sends every shard a Save of round (0: every agent's save;
// SavePart: its range's part) and merges the replies in config order.
func (c *Conductor) gatherSaves(step uint64, round uint32) ([]Item, error) {
	c.begin(Save, step)
	for k := range c.out {
		c.out[k].Round = round
		if err := c.Link.Send(k, &c.out[k]); err != nil {
			return nil, err
		}
	}
	if err := c.Link.Gather(c.replies); err != nil {
		return nil, err
	}
	lists := make([][]Item, len(c.replies))
	for k := range c.replies {
		lists[k] = c.replies[k].Items
		if err := c.savedRange(k, round, lists[k]); err != nil { // reply_check.go
			return nil, err
		}
	}
	return Merge(nil, lists...)
}

// Save gathers the saves of every agent (AgentSave items), in config order.
func (c *Conductor) Save(step uint64) ([]Item, error) {
	if err := c.init(); err != nil {
		return nil, err
	}
	saves, err := c.gatherSaves(step, 0)
	if err != nil {
		return nil, err
	}
	if len(saves) != c.Layout.Agents() {
		return nil, fmt.Errorf("cluster: the shards saved %d agents of %d", len(saves), c.Layout.Agents())
	}
	for i, s := range saves {
		if s.Kind != AgentSave || s.Agent != int32(i) {
			return nil, fmt.Errorf("cluster: save item %d is a %s of agent %d", i, s.Kind, s.Agent)
		}
	}
	return saves, nil
}

// Load gives every shard the saves of its agents (AgentSave items, one per
// agent, Agent its place), whatever layout made them.
func (c *Conductor) Load(step uint64, saves []Item) error {
	if err := c.init(); err != nil {
		return err
	}
	if len(saves) != c.Layout.Agents() {
		return fmt.Errorf("cluster: a save of %d agents for %d", len(saves), c.Layout.Agents())
	}
	c.begin(Load, step)
	for _, s := range saves {
		k := c.Layout.Of(s.Agent)
		if k < 0 || s.Kind != AgentSave {
			return fmt.Errorf("cluster: a save's %s for agent %d, which no shard holds", s.Kind, s.Agent)
		}
		s.Order, s.Sub = Place(PhaseSave, int64(s.Agent)), 0
		c.out[k].Items = append(c.out[k].Items, s)
	}
	return c.exchange(true)
}

// Finish asks every shard for what its agents kept for the end of the run
// (the output's folded repeats: part 1) or what closing them writes (part
// 2), and writes it in config order.
func (c *Conductor) Finish(step uint64, part uint32) error {
	if err := c.init(); err != nil {
		return err
	}
	c.begin(Finish, step)
	for k := range c.out {
		c.out[k].Round = part
	}
	if err := c.exchange(true); err != nil {
		return fmt.Errorf("cluster: finishing at step %d: %w", step, err)
	}
	return nil
}

// Stop ends every shard and closes the link.
func (c *Conductor) Stop() error {
	if err := c.init(); err != nil {
		return err
	}
	c.begin(Stop, 0)
	var errs []error
	for k := range c.out {
		if err := c.Link.Send(k, &c.out[k]); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		errs = append(errs, c.Link.Gather(c.replies))
	}
	return errors.Join(append(errs, c.Link.Close())...)
}
