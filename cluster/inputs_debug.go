package cluster

import "fmt"

// A live view's commands are inputs from outside the run like a Go
// program's Signal (inputs.go): a replay after a lost shard, or a resumed
// run, must apply them again after the same step, in the order they came
// among the other inputs there. So they are journaled (the input kinds
// below) and applied as the other inputs are: what their handlers and
// cancelled actions send joins the next step's queue among the other
// inputs' deliveries, in the order the inputs were applied, as one
// process queues them.

// The live view's input kinds (inputs.go's list):
//   - InputDebugSignal is signal Name, with Data, to the agent To, from
//     "debugger";
//   - InputDebugJump moves the agent To's cursor to the rule with id Name;
//   - InputDebugSetVar sets the agent To's variable Name to the value in
//     Data, as the game encodes it.

// DebugInput applies a live view's command cmd (a Debug message item:
// Name DebugJump or DebugSetVar, Agent its agent) between step and the
// next, as an input: the records it writes are written now, and the
// signals it has sent join the next step's queue after those of the
// inputs applied before it. Its DebugNote items wait for TakeNotes.
func (c *Conductor) DebugInput(step uint64, cmd Item) error {
	if err := c.init(); err != nil {
		return err
	}
	k := c.Layout.Of(cmd.Agent)
	if k < 0 {
		return fmt.Errorf("cluster: a live view's %q for agent %d, which no shard holds", cmd.Name, cmd.Agent)
	}
	c.outbox = c.outbox[:0]
	c.begin(Debug, step)
	cmd.Kind, cmd.Order, cmd.Sub = DebugNote, Place(PhaseDelivery, 0), 0
	c.out[k].Items = append(c.out[k].Items, cmd)
	if err := c.exchange(false); err != nil {
		return fmt.Errorf("cluster: after step %d, the live view's %q: %w", step, cmd.Name, err)
	}
	return c.carry1()
}
