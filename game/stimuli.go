package game

import (
	"fmt"

	"github.com/btrun/btrun/runtime"
)

// The memory of the agents' stimuli (the last data of each signal an agent
// received, runtime.Agent.Stimulus) lives outside every Lua state's
// budget. run.stimulus_memory bounds each agent's and
// run.stimulus_memory_total all of them together: each agent gets the
// smaller of stimulus_memory and an equal share of the total, so that no
// order of delivery, and no number of workers, decides which agent may
// still take data. The share follows the number of agents as they are
// added and removed; an agent that holds more than a new, smaller share
// keeps it, and takes no more until it is under.

// shareStimuli gives every worker's Env the bound of each agent's stimuli
// for the game's number of agents. Called whenever that number changes,
// between steps.
func (g *Game) shareStimuli() {
	bound := int64(g.cfg.Run.StimulusMemory)
	if n := int64(len(g.agents)); n > 0 {
		bound = min(bound, int64(g.cfg.Run.StimulusTotal)/n)
	}
	g.env.StimulusMemory = int(max(bound, 1))
	for _, w := range g.workers {
		w.env.StimulusMemory = g.env.StimulusMemory
	}
}

// refuses is the error a delivery of the signal to each agent of to would
// meet because an agent cannot hold its stimulus, or because its data does
// not fit a signal line that sets a variable from it (nil: none), for
// the senders that hear of it at once (the world's game.signal, Go's
// Signal, the live view), which deliver nothing when one refuses. An agent
// another process of a cluster holds (cluster_range.go) is checked against
// its tree in the directory, as the data check needs nothing else; its
// stimuli only its shard knows (the world's tick asks it:
// cluster_refuse.go).
func (g *Game) refuses(signal string, data runtime.Value, to ...*gameAgent) error {
	for _, ga := range to {
		if ga == nil || ga.stopped {
			continue
		}
		if ga.a == nil {
			if g.held == nil {
				continue
			}
			if err := runtime.CheckSignalData(g.treeOf(ga), signal, data); err != nil {
				return fmt.Errorf("agent %s: %w", g.agentID(ga), err)
			}
			continue
		}
		if err := ga.a.CanHold(signal, data); err != nil {
			return err
		}
		if err := runtime.CheckSignalData(ga.a.Tree().Tree, signal, data); err != nil { // signals_typed.go
			return fmt.Errorf("agent %s: %w", ga.a.ID(), err)
		}
	}
	return nil
}
