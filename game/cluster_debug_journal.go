package game

import (
	"fmt"

	"github.com/btrun/btrun/cluster"
)

// The live view's commands as journaled inputs (cluster_debug_inputs.go
// journals them; cluster_inputs.go replays them): applying one needs no
// live view, so that a run resumed without -debug, or a replay before the
// page is back, applies it as the first run did. With a live view, the
// shards relay what the command did and the copies are refreshed after
// it, as after a step.

// applyDebug applies a live view's signal, jump or variable edit to its
// agent on the agent's shard. told is the game's answer (one process's
// error for it: a receiver that refuses the signal, a jump that failed),
// which a replay meets again; err is a failure of the cluster.
func (c *Conductor) applyDebug(in *cluster.Input) (told, err error) {
	g := c.g
	ga := g.byID[in.To]
	if ga == nil {
		return &InputError{Reason: fmt.Sprintf("game: no agent %q", in.To)}, nil
	}
	d := g.cl.debug
	if g.debug != nil {
		err = d.before()
	} else {
		err = c.h.writeOwn()
	}
	if err != nil {
		return nil, err
	}
	switch in.Kind {
	case cluster.InputDebugSignal:
		del := []cluster.Item{{Kind: cluster.Delivery, Agent: ga.idx, Peer: -1, Text: DebuggerSender, Name: in.Name, Data: in.Data}}
		// The shard checks again: the copy the page's check read may be
		// older than an input applied since the last step.
		refusal, err := c.c.CheckInput(g.step, del)
		if err != nil {
			return nil, err
		}
		if refusal != "" {
			return &InputError{Reason: refusal}, nil
		}
		err = c.c.DeliverInput(g.step, del)
	case cluster.InputDebugJump:
		var releases []byte
		releases, err = c.c.DebugJumpInput(g.step, cluster.Item{Agent: ga.idx, Peer: -1, Name: cluster.DebugJump, Text: in.Name})
		if err == nil && releases != nil { // the conductor's copy of the gates (cluster_debug_gates.go)
			err = g.applyJumpReleases(ga.idx, releases)
		}
	case cluster.InputDebugSetVar:
		err = c.c.DebugInput(g.step, cluster.Item{Agent: ga.idx, Peer: -1, Name: cluster.DebugSetVar, Text: in.Name, Data: in.Data})
	default:
		return nil, fmt.Errorf("game: journaled input %d: kind %d is not a live view's", in.Seq, in.Kind)
	}
	if err != nil {
		return nil, err
	}
	var warnings []string
	if g.debug != nil {
		warnings, err = d.refresh()
		if err != nil {
			return nil, err
		}
	} else {
		for _, n := range c.c.TakeNotes() { // nobody draws the agents: only the command's answer matters
			if n.Name == noteWarning {
				warnings = append(warnings, n.Text)
			}
		}
	}
	if len(warnings) > 0 {
		return &InputError{Reason: warnings[0]}, nil
	}
	return nil, nil
}
