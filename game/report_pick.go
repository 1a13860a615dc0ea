package game

import (
	"slices"

	"github.com/btrun/btrun/runtime"
)

// Reporting steps: after every agent has stepped, the game writes the
// trace and the output in config order and applies the failure policy
// (report). Without a trace or a live view, most steps have nothing to
// report: the agent still runs the rule it ran. Those that have (an agent
// that failed, errored, or now runs another rule) are picked out as each
// step ends, on the goroutine that ran it (runtime.StepEnded: with workers,
// on every worker at once, the agent still in that core's cache), and only
// they are reported. A pass over every agent, on one thread, took about
// 2.8 ms of every step at 100,000 agents.

// pickList is one worker's picks of a step, in a cache line of its own:
// workers append to theirs at once.
type pickList struct {
	at []int32 // indices into g.activeGA
	_  [40]byte
}

// picking reports whether the steps are picked as they end this step: not
// with a trace or a live view, which see every agent's step.
func (g *Game) picking() bool { return g.trace == nil && g.debug == nil }

// startPicks empties the picks for a step on n goroutines and returns the
// hook, or nil when the game does not pick (picking).
func (g *Game) startPicks(n int) runtime.StepEnded {
	if !g.picking() {
		g.picked = false
		return nil
	}
	for len(g.picks) < n {
		g.picks = append(g.picks, pickList{})
	}
	for k := range g.picks {
		g.picks[k].at = g.picks[k].at[:0]
	}
	if g.stepEnded == nil {
		g.stepEnded = g.pickStep
	}
	g.picked = true
	return g.stepEnded
}

// pickStep is the runtime.StepEnded of a game that picks: it keeps the
// agents whose step report would write or change something: one that
// failed or errored, now runs another rule, or ended with another status
// than its last report's (Outcome tells it). (Changes to trace are kept
// only for a trace or the live view, which do not pick.) It reads the agent
// and the arrays g.activeIdx, g.activeLast and g.doing, in the order of the
// worker's agents, not the game agent (a cache miss per agent, which
// doubled its cost on two workers), and writes only its worker's list.
func (g *Game) pickStep(k int, i int32, a *runtime.Agent, st runtime.Status, err error) {
	if err == nil && st == g.activeLast[i] && (st == runtime.Success || st == runtime.Running && a.CursorLabel() == g.doing[g.activeIdx[i]]) {
		return
	}
	g.picks[k].at = append(g.picks[k].at, i)
}

// reportSteps reports the agents' steps in config order: the picked ones
// when the step was picked and no round broke, else every agent's.
func (g *Game) reportSteps(s uint64, t float64) error {
	if !g.picked || g.roundsErr != nil {
		for i, ga := range g.activeGA {
			if err := g.reportOne(ga, g.outcomes[i], s, t); err != nil {
				return err
			}
			g.activeLast[i] = ga.status
		}
		return nil
	}
	order := g.picks[0].at
	if len(g.picks) > 1 {
		g.pickOrder = g.pickOrder[:0]
		for k := range g.picks {
			g.pickOrder = append(g.pickOrder, g.picks[k].at...)
		}
		// Each list is in config order within a round; a later round's
		// agents can come before an earlier one's.
		slices.Sort(g.pickOrder)
		order = g.pickOrder
	} else if !slices.IsSorted(order) {
		slices.Sort(order)
	}
	for _, i := range order {
		if err := g.reportOne(g.activeGA[i], g.outcomes[i], s, t); err != nil {
			return err
		}
		g.activeLast[i] = g.activeGA[i].status
	}
	return nil
}

// reportOne reports one agent's step with its outcome.
func (g *Game) reportOne(ga *gameAgent, o runtime.Outcome, s uint64, t float64) error {
	if g.roundsErr != nil && o.Err == nil && o.Status == runtime.Paused {
		o.Err = g.roundsErr // a broken round: the agents it left paused
	}
	ga.status, ga.err = o.Status, o.Err
	return g.report(ga, s, t)
}
