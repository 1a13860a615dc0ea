package game

import (
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// Inputs from outside a cluster's run (docs/cluster.md, "Inputs from
// outside"): a signal a Go program sends between two steps is journaled
// before it is applied (cluster.Journal), and applied as one process
// applies Game.Signal between the same two steps: the shards holding its
// receivers deliver it at once, at the step just done, and what its
// handlers send joins the next step's queue. A replay from a checkpoint
// applies the journaled inputs again after the same steps (Replay), so the
// run that lost a process writes what the run without the loss wrote.
//
// Agents added and removed between steps are inputs too
// (cluster_inputs_agents.go).

// InputError is the game's answer to an input from outside a cluster's
// run, with one process's message: a refusal (no such receiver or agent,
// bad data, a receiver stopped or unable to hold the signal's stimulus),
// after which nothing of it was applied, or an error of applying it (a
// removed agent's close that failed: the agent is removed). A replay
// meets the same answer again. Any other error of Signal, AddAgent or
// RemoveAgent is the cluster's (a shard lost, the journal out of reach).
type InputError struct{ Reason string }

func (e *InputError) Error() string { return e.Reason }

// SetJournal makes the conductor journal every input from outside the run
// (Signal) in j before applying it; nil journals none.
func (c *Conductor) SetJournal(j cluster.Journal) { c.inputs = j }

// Replay gives the conductor journaled inputs to apply again (a journal's
// From the step of the checkpoint the run went back to): each is applied
// between its step and the next, before any new input there. Call it
// after Load.
func (c *Conductor) Replay(ins []cluster.Input) error {
	for i := range ins {
		if ins[i].Step < c.g.step {
			return fmt.Errorf("game: journaled input %d follows step %d, and the run is at step %d", ins[i].Seq, ins[i].Step, c.g.step)
		}
	}
	c.pending = append(c.pending[:0], ins...)
	return nil
}

// replayDue applies the pending replayed inputs that follow the step just
// done. What the game told the first run of them (a refusal), it tells
// again; only a failure of the cluster ends the replay.
func (c *Conductor) replayDue() error {
	for len(c.pending) > 0 && c.pending[0].Step == c.g.step {
		in := c.pending[0]
		c.pending = c.pending[1:]
		if _, err := c.apply(&in); err != nil {
			return fmt.Errorf("game: replaying journaled input %d after step %d: %w", in.Seq, in.Step, err)
		}
	}
	if len(c.pending) > 0 && c.pending[0].Step < c.g.step {
		return fmt.Errorf("game: journaled input %d follows step %d, which the run passed", c.pending[0].Seq, c.pending[0].Step)
	}
	return nil
}

// journal journals an input that follows the step just done, after the
// replayed inputs there, and applies it: the game's answer, or the
// cluster's failure.
func (c *Conductor) journal(in cluster.Input) error {
	if err := c.replayDue(); err != nil { // replayed inputs of this step come first
		return err
	}
	in.Step = c.g.step
	if c.inputs != nil {
		seq, err := c.inputs.Append(in)
		if err != nil {
			return fmt.Errorf("game: journaling an input after step %d: %w", in.Step, err)
		}
		in.Seq = seq
	}
	told, err := c.apply(&in)
	if err != nil {
		return err
	}
	return told
}

// Signal sends a signal to the agent with id to, or to every agent with to
// "all", between two steps, as Game.Signal does in one process: the same
// lines, at the same place of the trace and the output. With a journal
// (SetJournal), it is journaled first. A refusal (a receiver stopped, or
// unable to hold it, no such receiver, bad data) is an *InputError, and
// nothing is delivered; any other error is the cluster's (a shard lost,
// or the journal out of reach: see docs/cluster.md).
func (c *Conductor) Signal(to, name string, data runtime.Value) error {
	g := c.g
	switch {
	case name == "":
		return &InputError{Reason: "game: a signal needs a name"}
	case to != "all" && g.byID[to] == nil:
		return &InputError{Reason: fmt.Sprintf("game: no agent %q to send %q to", to, name)}
	}
	if err := runtime.CheckData(data); err != nil {
		return &InputError{Reason: fmt.Errorf("game: signal %q to %q: %w", name, to, err).Error()}
	}
	b, err := g.cl.encodeValue(data)
	if err != nil {
		return err
	}
	return c.journal(cluster.Input{Kind: cluster.InputSignal, To: to, Name: name, Data: b})
}

// apply applies a journaled input: told is the game's answer to it (a
// refusal, an agent's close that failed), which a replay meets again; err
// is a failure of the cluster.
func (c *Conductor) apply(in *cluster.Input) (told, err error) {
	switch in.Kind {
	case cluster.InputSignal:
		return c.applySignal(in)
	case cluster.InputAdd:
		return c.applyAdd(in)
	case cluster.InputRemove:
		return c.applyRemove(in)
	case cluster.InputDebugSignal, cluster.InputDebugJump, cluster.InputDebugSetVar:
		return c.applyDebug(in) // cluster_debug_journal.go
	case cluster.InputReload:
		return c.applyReload(in) // cluster_reload.go
	}
	return nil, fmt.Errorf("game: journaled input %d: kind %d", in.Seq, in.Kind)
}

// applySignal has the shards check that the signal's receivers take it,
// then deliver it.
func (c *Conductor) applySignal(in *cluster.Input) (told, err error) {
	g := c.g
	d := cluster.Item{Kind: cluster.Delivery, Agent: -1, Peer: -1, Text: GoSender, Name: in.Name, Data: in.Data}
	if in.To != "all" {
		ga := g.byID[in.To]
		if ga == nil {
			return &InputError{Reason: fmt.Sprintf("game: no agent %q to send %q to", in.To, in.Name)}, nil
		}
		d.Agent = ga.idx
	}
	dels := []cluster.Item{d}
	refusal, err := c.c.CheckInput(g.step, dels)
	if err != nil {
		return nil, err
	}
	if refusal != "" {
		return &InputError{Reason: refusal}, nil
	}
	return nil, c.c.DeliverInput(g.step, dels)
}

// CheckDelivery is the shard's part of Game.Signal's refusals: the first
// of its receivers (in config order) that would refuse d, as an Answer
// item whose Text is the error one process returns.
func (h *shardHost) CheckDelivery(d *cluster.Item, out *cluster.Out) error {
	g := h.g
	data, err := decodeValue(d.Data)
	if err != nil {
		return err
	}
	if d.Text == worldSender {
		return h.checkWorld(d, data, out) // cluster_refuse.go
	}
	refuse := func(ga *gameAgent, reason string) {
		out.Add(cluster.Place(cluster.PhaseDelivery, int64(ga.idx)), 0,
			cluster.Item{Kind: cluster.Answer, Agent: ga.idx, Peer: -1, Text: reason})
	}
	if d.Agent >= 0 {
		if !g.cl.holds(d.Agent) {
			return fmt.Errorf("game: a signal to agent %d on the shard of agents %d..%d", d.Agent, g.cl.lo, g.cl.hi-1)
		}
		ga := g.agents[d.Agent]
		id := ga.a.ID()
		if ga.stopped {
			refuse(ga, fmt.Sprintf("game: agent %s is stopped (on_failure = \"stop\"): it receives no signal", id))
		} else if err := g.refuses(d.Name, data, ga); err != nil {
			refuse(ga, fmt.Sprintf("game: signal %q to %q: %v", d.Name, id, err))
		}
		return nil
	}
	for _, ga := range g.agents[g.cl.lo:g.cl.hi] {
		if err := g.refuses(d.Name, data, ga); err != nil {
			refuse(ga, fmt.Sprintf("game: signal %q to all: %v", d.Name, err))
			return nil
		}
	}
	return nil
}

// LoadStep makes the shard's game at the step of the load that follows: a
// shard's load restores only its agents (restoreAgents), and a replayed
// input of the load's step is delivered at that step, before the next
// step's Begin sets it.
func (h *shardHost) LoadStep(step uint64) { h.g.step, h.g.cl.refuse.early = step, false }
