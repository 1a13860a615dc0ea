package game

import "github.com/btrun/btrun/runtime"

// What a shard adds to the steps of its agents, kept to what one process
// does (docs/performance.md, "A cluster: what coordination costs"): a
// shard's report passes over the agents whose step report writes nothing,
// as one process's (report_pick.go), take returns at once when nothing was
// written or sent since the last take, and a round's gate parts are looked
// for only in the agents that asked for a release or a take
// (runtime.Gates.Wants).

// reports tells whether an agent's step report, with outcome o, writes or
// changes something, or tells the conductor another status than the last
// (its Outcome): pickStep's test, made after the step on the shard's
// thread, when the game picks (Game.picking) and no round broke.
func (g *Game) reports(ga *gameAgent, o runtime.Outcome) bool {
	return o.Err != nil || o.Status != ga.status ||
		o.Status != runtime.Success && (o.Status != runtime.Running || ga.a.CursorLabel() != g.doing[ga.idx])
}
