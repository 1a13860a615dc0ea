package game

import "fmt"

// The live view's inputs during a replay (docs/cluster.md, "Inputs from
// outside"): after a recovery, or with -resume, the conductor replays the
// journal's inputs from the checkpoint on. A signal, jump or variable edit
// from the page journaled then would come in the journal before inputs of
// later steps that it already holds: the run would differ from one
// process's (which never had the page's command among those inputs), and
// a second loss would replay the two in another order. So the page's
// inputs are refused until the replay's end, never applied or journaled
// (clusterHost's SendSignal, JumpAgent, SetAgentVar): refusing, unlike a
// reload's wait (cluster_reload_held.go), tells the page at once that its
// command did nothing, and the developer sends it again once the run is
// where it was.

// ReplayingError is the refusal of a live view's input asked for while
// the conductor replays its journal: nothing was applied or journaled;
// the same input is taken after step Until, the replay's end.
type ReplayingError struct {
	What  string // "signal", "jump", "variable edit"
	Until uint64
}

func (e *ReplayingError) Error() string {
	return fmt.Sprintf("game: the run replays its journal from a checkpoint up to step %d: send the %s again after that step", e.Until, e.What)
}

// refuseDuringReplay is the page's input what refused while the conductor
// replays, nil once the replay is over.
func (c *Conductor) refuseDuringReplay(what string) error {
	if !c.replaying() {
		return nil
	}
	end := c.rec.to
	if n := len(c.pending); n > 0 {
		end = max(end, c.pending[n-1].Step)
	}
	return &ReplayingError{What: what, Until: end}
}
