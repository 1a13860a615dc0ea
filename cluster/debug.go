package cluster

import "fmt"

// A live view on the conductor (`btrun run -shards N -debug ADDR`): the
// conductor keeps copies of the agents and draws them; the shards, told
// to relay (DebugRelay), add to their replies what the live view of one
// process is told about their agents' steps (DebugNote items). The page's
// commands reach an agent on its own shard between steps, so that what
// they do (a cancelled action's hooks, a handler's lines and signals) is
// done where one process would do it; they are journaled inputs from
// outside the run (inputs_debug.go): a signal as a delivery
// (DeliverInput), a jump or a variable's edit as a Debug message
// (DebugInput).

// The commands of a Debug message (Item.Name).
const (
	// DebugRelay (Agent -1, to every shard) turns on the relay of what
	// the shard's agents do: DebugNote items beside their records.
	DebugRelay = "relay"
	// DebugJump moves Agent's cursor to the rule with id Text.
	DebugJump = "jump"
	// DebugSetVar sets Agent's variable Text to the value in Data.
	DebugSetVar = "var"
)

// DebugShardHost is a ShardHost that takes a live view's commands. A shard
// whose host is not one refuses Debug messages.
type DebugShardHost interface {
	// Debug applies the commands in order (Item.Name: DebugRelay,
	// DebugJump, DebugSetVar), adding each one's records, signals and
	// DebugNote items at its place (Item.Order).
	Debug(cmds []Item, out *Out) error
}

// debug is a Conductor's part for a live view: the DebugNote items the
// shards sent since TakeNotes, and the signals that handlers sent between
// steps, which the next step delivers first, as one process does.
type debug struct {
	notes []Item
	carry []Item
}

// TakeNotes returns the DebugNote items gathered since the last call, in
// the order they came (an agent's in the order they happened).
func (c *Conductor) TakeNotes() []Item {
	n := c.notes
	c.notes = nil
	return n
}

// carried appends the signals kept for the next step to dst.
func (c *Conductor) carried(dst []Item) []Item {
	dst = append(dst, c.carry...)
	clear(c.carry)
	c.carry = c.carry[:0]
	return dst
}

// keep keeps the signals of an exchange between steps for the next step.
func (c *Conductor) keep() {
	c.carry = append(c.carry, c.outbox...)
	clear(c.outbox)
	c.outbox = c.outbox[:0]
}

// Debug sends a live view's commands (Debug message items: Name the
// command, Agent the agent, -1 for every shard) to the shards of their
// agents, at step step, and writes the records they reply with; their
// DebugNote items wait for TakeNotes.
func (c *Conductor) Debug(step uint64, cmds []Item) error {
	if err := c.init(); err != nil {
		return err
	}
	c.begin(Debug, step)
	for i, cmd := range cmds {
		cmd.Order, cmd.Sub = Place(PhaseDelivery, int64(i)), 0
		if cmd.Agent < 0 {
			for k := range c.out {
				c.out[k].Items = append(c.out[k].Items, cmd)
			}
			continue
		}
		k := c.Layout.Of(cmd.Agent)
		if k < 0 {
			return fmt.Errorf("cluster: a live view's %q for agent %d, which no shard holds", cmd.Name, cmd.Agent)
		}
		c.out[k].Items = append(c.out[k].Items, cmd)
	}
	err := c.exchange(false)
	c.keep()
	if err != nil {
		return fmt.Errorf("cluster: step %d, the live view's commands: %w", step, err)
	}
	return nil
}

// debug serves a Debug message.
func (s *Shard) debug(m *Message) error {
	h, ok := s.Host.(DebugShardHost)
	if !ok {
		return fmt.Errorf("cluster: shard: a live view's commands, which this shard does not take")
	}
	return h.Debug(m.Items, &s.out)
}
