package game

import (
	"errors"
	"fmt"

	"github.com/btrun/btrun/runtime"
)

// MaxSignalsPerStep bounds the signals one agent sends to other agents in
// one step, of which at most MaxBroadcastsPerStep go to "all". Every such
// signal is delivered to its receivers, traced and shown, and one to "all"
// costs as much as one to each agent; a script sending them in a loop
// (1,000 agents each broadcasting 1,000 signals a step: a billion
// deliveries) would stall the run for hours. A real agent sends a few.
// Signals an agent sends to itself are not counted: they cost a few
// variable writes.
const (
	MaxSignalsPerStep    = 256
	MaxBroadcastsPerStep = 1
)

// countSent counts a signal from ga in the current step and refuses the
// one over the limit with an error of the sender's step.
func (g *Game) countSent(ga *gameAgent, to, signal string) error {
	if ga == nil {
		return nil
	}
	if ga.sentStep != g.step {
		ga.sentStep, ga.sent, ga.sentAll = g.step, 0, 0
	}
	if ga.sent++; ga.sent > MaxSignalsPerStep {
		return fmt.Errorf("game: agent %s sends more than %d signals to other agents in one step (signal %q to %q); an agent may send at most %d a step",
			ga.a.ID(), MaxSignalsPerStep, signal, to, MaxSignalsPerStep)
	}
	if to == "all" {
		if ga.sentAll++; ga.sentAll > MaxBroadcastsPerStep {
			return fmt.Errorf("game: agent %s sends a second signal to all agents in one step (signal %q); an agent may send one signal to all a step, which reaches every agent",
				ga.a.ID(), signal)
		}
	}
	return nil
}

// deliverSchedule delivers the scheduled signals due at step s (time t), in
// schedule order, before the agents step.
func (g *Game) deliverSchedule(s uint64, t float64) {
	for i, sc := range g.cfg.Signals {
		if g.delivered[i] || sc.At > t+1e-9 {
			continue
		}
		g.delivered[i] = true
		for _, to := range sc.To {
			if to == "all" {
				if g.broadcast(sc.Signal, sc.Data, "schedule") { // cluster_broadcast.go
					continue
				}
				for _, ga := range g.agents {
					g.deliver(ga, sc.Signal, sc.Data, "schedule", s, t)
				}
			} else {
				g.deliver(g.byID[to], sc.Signal, sc.Data, "schedule", s, t)
			}
		}
	}
}

// deliverSent ends step s once every agent has stepped: the handlers the
// agents owe for signals they sent themselves during their steps are
// called (in config order), then the signals agents sent each other are
// delivered in the order sent. Signals that handlers send to others join
// the end of that queue and are delivered in this step too (each agent
// sends at most MaxSignalsPerStep a step, so the queue ends).
func (g *Game) deliverSent(s uint64, t float64) error {
	if g.handlers {
		for _, ga := range g.activeGA {
			if ga.stopped || !ga.a.HandlersOwed() {
				continue
			}
			if err := ga.a.RunHandlers(); err != nil {
				g.handlerFailed(ga, err, s, t)
			}
			g.writeChanges(ga, s, t)
		}
	}
	for len(g.outbox) > 0 {
		out := g.outbox
		g.outbox, g.sending = g.sending[:0], out
		for _, r := range out {
			from := r.from.a.ID()
			if r.to == "all" {
				for _, ga := range g.agents {
					if ga != r.from {
						g.deliver(ga, r.signal, r.data, from, s, t)
					}
				}
			} else {
				g.deliver(g.byID[r.to], r.signal, r.data, from, s, t)
			}
		}
		clear(out)
	}
	return nil
}

// deliver hands a signal with its data from a sender (an agent's id,
// "schedule", "world" or "debugger") to an agent at time t; the trace gets
// its line and the changes it made at once. An error of a handler the
// signal called is the agent's (handlerFailed). So is a signal whose
// stimulus the agent cannot hold (runtime.ErrStimuli: its stimuli are full,
// and its tree does not forget them): nothing of it is delivered, and the
// agent is reset as after a handler's error. (Senders that hear at once,
// the world, Go and the live view, are refused before: refuses.)
func (g *Game) deliver(ga *gameAgent, signal string, data runtime.Value, from string, s uint64, t float64) {
	if g.cl != nil && g.cl.start.on && !g.cl.live && !g.cl.start.in { // the world's init in a cluster (cluster_nocopy_start.go)
		g.startDeliver(ga, signal, data, from, s, t)
		return
	}
	if g.cl != nil && g.cl.conductor && g.cl.live && ga != nil { // the agent's shard delivers it (cluster.go)
		g.clusterDeliver(ga, signal, data, from)
		return
	}
	if ga == nil || ga.stopped || ga.a == nil { // nil: another shard's agent (cluster_range.go)
		return
	}
	if !g.silent {
		g.out.signal(t, ga.a.ID(), signal) // before what its handlers log
	}
	g.from = from
	err := ga.a.SignalDataAt(signal, data, t)
	g.from = ""
	if errors.Is(err, runtime.ErrStimuli) {
		err = errors.Join(fmt.Errorf("game: signal %q from %s refused: %w", signal, from, err), ga.a.Reset())
	}
	if err != nil {
		g.handlerFailed(ga, err, s, t)
	}
	if g.silent {
		return
	}
	g.writeChanges(ga, s, t)
}

// handlerFailed reports an error of a signal handler (the runtime has
// reset the agent, as after an error of its step) and applies the failure
// policy: the trace's line for it comes after the signal's.
func (g *Game) handlerFailed(ga *gameAgent, err error, s uint64, t float64) {
	err = g.errTexts.bounded(err)
	ga.errors++
	label := ""
	var re *runtime.Error
	if errors.As(err, &re) {
		label = re.Label
	}
	g.noteChange(ga.a, change{kind: 'e', name: label, err: err})
	policy := "restarts"
	if g.cfg.Run.OnFailure == "stop" {
		policy = "stopped"
		ga.stopped = true
		g.activeStale = true
	}
	g.out.errored(t, ga.a.ID(), err, policy)
	g.doing[ga.idx] = ""
}

// route is the runtime.Router's Route (engine.go): signals to other agents wait until every
// agent has stepped. An agent sends at most MaxSignalsPerStep of them per
// step.
func (g *Game) route(from *runtime.Agent, to, signal string, data runtime.Value) error {
	ga, err := g.checkRoute(from, to, signal)
	if err != nil {
		return err
	}
	if err := g.checkRouteData(from, to, signal, data); err != nil { // signals_typed.go
		return err
	}
	g.outbox = append(g.outbox, routed{from: ga, to: to, signal: signal, data: data})
	return nil
}

// checkRoute checks a signal an agent sends to others and counts it; it
// returns the sender's bookkeeping.
func (g *Game) checkRoute(from *runtime.Agent, to, signal string) (*gameAgent, error) {
	if to != "all" {
		if _, ok := g.byID[to]; !ok {
			return nil, fmt.Errorf("game: no agent %q to send %q to", to, signal)
		}
	}
	ga := g.byPtr[from]
	if err := g.countSent(ga, to, signal); err != nil {
		return nil, err
	}
	return ga, nil
}
