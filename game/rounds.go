package game

import "github.com/btrun/btrun/runtime"

// openRounds sets up the rounds in which agents step when a step can pause
// (runtime.Rounds): the gates first, so that an agent waiting at a take is
// found at once, then the plugins.
func (g *Game) openRounds() {
	g.rounds.Resolvers = g.rounds.Resolvers[:0]
	if g.gates != nil {
		g.rounds.Resolvers = append(g.rounds.Resolvers, g.gates)
	}
	if g.plugins != nil {
		g.rounds.Resolvers = append(g.rounds.Resolvers, g.plugins)
		if g.workers != nil {
			g.plugins.SetConcurrent(true) // agents on several threads queue calls (workers.go)
		}
	}
	g.timeResolvers() // btrun bench (phases.go)
	if g.par != nil {
		// A round of agents on workers ends with what its steps kept, in
		// config order, then the gates and plugins (workers.go).
		var end runtime.Resolver = roundEnd{g}
		if g.phases != nil {
			end = timedResolver{end, &g.phases.merge}
		}
		g.par.Resolvers = append(append(g.par.Resolvers[:0], end), g.rounds.Resolvers...)
	}
}

// stepAgents steps the active agents at time t in rounds: each agent runs
// until its step ends or it pauses (a plugin call, the take of a gate);
// when all have, the round's plugin calls go to each plugin as one batch
// and its gate releases and takes are applied, in config order; the
// waiting agents resume in config order; and so on. A game without plugins
// and gates makes one plain pass. It returns the number of agent-steps.
func (g *Game) stepAgents(t float64) int {
	if g.activeStale {
		g.listActive()
	}
	if g.workers != nil {
		return g.stepWorkers(t)
	}
	ended := g.startPicks(1)
	if len(g.rounds.Resolvers) == 0 {
		g.plainOut = g.plainOut[:0]
		for i, a := range g.active {
			st, err := a.StepAt(t)
			g.plainOut = append(g.plainOut, runtime.Outcome{Status: st, Err: err})
			if ended != nil && st != runtime.Paused {
				ended(0, int32(i), a, st, err)
			}
		}
		g.outcomes, g.roundsErr = g.plainOut, nil
		return len(g.activeGA)
	}
	g.rounds.Ended = ended
	g.outcomes, g.roundsErr = g.rounds.StepAt(g.active, t)
	return len(g.activeGA)
}

// listActive makes the lists of the agents that step (those not stopped),
// in config order, and with workers each one's worker.
func (g *Game) listActive() {
	g.activeStale = false
	clear(g.active)
	g.active = g.active[:0]
	g.activeGA = g.activeGA[:0]
	g.activeIdx = g.activeIdx[:0]
	g.activeLast = g.activeLast[:0]
	g.handlers = false
	for _, ga := range g.agents {
		if !ga.stopped && (g.cl == nil || g.cl.holds(ga.idx)) { // in a cluster, the shard's agents (cluster.go)
			g.active = append(g.active, ga.a)
			g.activeGA = append(g.activeGA, ga)
			g.activeIdx = append(g.activeIdx, ga.idx)
			g.activeLast = append(g.activeLast, ga.status)
			g.handlers = g.handlers || ga.a.Tree().HasHandlers()
		}
	}
	if g.workers != nil {
		g.activeOf = g.activeOf[:0]
		for _, ga := range g.activeGA {
			g.activeOf = append(g.activeOf, g.workerOf[ga.idx])
		}
	}
}
