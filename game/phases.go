package game

import (
	"fmt"
	"io"
	"time"

	"github.com/btrun/btrun/runtime"
)

// What the parts of a step cost, for `btrun bench`: the parts that run on
// one thread whatever run.workers is (the world's tick, the delivery of
// scheduled signals, the ends of rounds: gate takes and releases, plugin
// batches; the trace and output of each agent's step; the delivery of
// signals agents sent each other) and the agents' steps, which workers run
// in parallel. From those, what more cores would give (Amdahl's law). A
// game that is not measured has no stepPhases: a nil check per part.

type phase int

const (
	phaseTick     phase = iota // plugins' restarts and the world's tick
	phaseSchedule              // scheduled signals
	phaseAgents                // the agents' steps, with the ends of their rounds
	phaseReport                // trace, output, failure policy
	phaseDelivery              // signals agents sent each other
	numPhases
)

// stepPhases sums the wall time of each part over the steps measured.
type stepPhases struct {
	last  time.Time
	total [numPhases]time.Duration
	// The ends of rounds, inside phaseAgents: the gates', the plugins'
	// (their batches' round trips), and with workers the taking of what
	// the round's steps kept (workers.go).
	gates, plugins, merge time.Duration
	busy                  []time.Duration
	steps                 int
}

func (p *stepPhases) start() {
	if p != nil {
		p.last = time.Now()
		p.steps++
	}
}

func (p *stepPhases) mark(k phase) {
	if p != nil {
		now := time.Now()
		p.total[k] += now.Sub(p.last)
		p.last = now
	}
}

// timedResolver measures the ends of a resolver's rounds into sum.
type timedResolver struct {
	runtime.Resolver
	sum *time.Duration
}

func (r timedResolver) EndRound(round []*runtime.Agent) error {
	start := time.Now()
	err := r.Resolver.EndRound(round)
	*r.sum += time.Since(start)
	return err
}

// rounds is the time of the ends of rounds.
func (p *stepPhases) rounds() time.Duration { return p.gates + p.plugins + p.merge }

// measurePhases makes the game measure what the parts of its steps cost
// from now on (PhaseReport).
func (g *Game) measurePhases() {
	g.phases = &stepPhases{}
	for _, w := range g.workers {
		w.busy = 0
	}
	g.openRounds()
}

// timedFilter is a timedResolver of a round filter (the gates), which
// stays one.
type timedFilter struct {
	timedResolver
	f runtime.RoundFilter
}

func (r timedFilter) Wants(a *runtime.Agent) bool { return r.f.Wants(a) }

// timeResolvers wraps the rounds' resolvers when the game measures.
func (g *Game) timeResolvers() {
	if g.phases == nil {
		return
	}
	for i, r := range g.rounds.Resolvers {
		sum := &g.phases.plugins
		if r == runtime.Resolver(g.gates) {
			sum = &g.phases.gates
		}
		if f, ok := r.(runtime.RoundFilter); ok {
			g.rounds.Resolvers[i] = timedFilter{timedResolver{r, sum}, f}
			continue
		}
		g.rounds.Resolvers[i] = timedResolver{r, sum}
	}
}

// PhaseReport is what the parts of the measured steps cost.
type PhaseReport struct {
	Steps int
	// Per step: the serial parts, and the agents' steps without the ends
	// of their rounds (the part that workers share).
	Tick, Schedule, Report, Delivery, Agents time.Duration
	// The ends of rounds: gate releases and takes, plugin batches (their
	// round trips), and with workers the taking of what the round's steps
	// kept (signals, log lines) in config order.
	Gates, Plugins, Merge time.Duration
	// Workers: per worker, its agents and the time it spent stepping them
	// per step (one entry with one worker).
	WorkerAgents []int
	WorkerBusy   []time.Duration
}

// phaseReport reports what the parts of the steps measured since measurePhases
// cost, per step.
func (g *Game) phaseReport() PhaseReport {
	p := g.phases
	if p == nil || p.steps == 0 {
		return PhaseReport{}
	}
	per := func(d time.Duration) time.Duration { return d / time.Duration(p.steps) }
	r := PhaseReport{Steps: p.steps, Tick: per(p.total[phaseTick]), Schedule: per(p.total[phaseSchedule]),
		Gates: per(p.gates), Plugins: per(p.plugins), Merge: per(p.merge),
		Report: per(p.total[phaseReport]), Delivery: per(p.total[phaseDelivery]),
		Agents: per(p.total[phaseAgents] - p.rounds())}
	if g.workers == nil {
		r.WorkerAgents = []int{len(g.agents)}
		r.WorkerBusy = []time.Duration{r.Agents}
	}
	for _, w := range g.workers {
		r.WorkerAgents = append(r.WorkerAgents, w.agents)
		r.WorkerBusy = append(r.WorkerBusy, per(w.busy))
	}
	return r
}

// Rounds is the time of the ends of rounds.
func (r PhaseReport) Rounds() time.Duration { return r.Gates + r.Plugins + r.Merge }

// Serial is the part of a step that runs on one thread.
func (r PhaseReport) Serial() time.Duration {
	return r.Tick + r.Schedule + r.Rounds() + r.Report + r.Delivery
}

// Work is the agents' stepping as one thread would do it: the sum of
// every worker's busy time.
func (r PhaseReport) Work() time.Duration {
	var sum time.Duration
	for _, b := range r.WorkerBusy {
		sum += b
	}
	return sum
}

// Projection is the speed-up n cores would give over one, by Amdahl's law
// from the measured parts: (serial + work) / (serial + work/n).
func (r PhaseReport) Projection(n int) float64 {
	s, w := r.Serial().Seconds(), r.Work().Seconds()
	if s+w == 0 {
		return 0
	}
	return (s + w) / (s + w/float64(n))
}

// Write writes the report for people.
func (r PhaseReport) Write(w io.Writer) {
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1e3) }
	fmt.Fprintf(w, "per step, on one thread: world tick %s, scheduled signals %s, round ends: gates %s, plugin batches %s, workers' signals and logs %s; trace and output %s, agents' signals %s; serial %s\n",
		us(r.Tick), us(r.Schedule), us(r.Gates), us(r.Plugins), us(r.Merge), us(r.Report), us(r.Delivery), us(r.Serial()))
	fmt.Fprintf(w, "per step, agents' steps: %s of wall time, %s of work over %d worker(s)\n", us(r.Agents), us(r.Work()), len(r.WorkerBusy))
	for k := range r.WorkerBusy {
		share := 0.0
		if work := r.Work(); work > 0 {
			share = 100 * float64(r.WorkerBusy[k]) / float64(work)
		}
		fmt.Fprintf(w, "  worker %d: %d agents, %s per step (%.1f%% of the work)\n", k, r.WorkerAgents[k], us(r.WorkerBusy[k]), share)
	}
	fmt.Fprintf(w, "projection from these parts (Amdahl): %.2fx on 2 cores, %.2fx on 4, %.2fx on 16 (serial part %.1f%% of a one-thread step)\n",
		r.Projection(2), r.Projection(4), r.Projection(16), 100*r.Serial().Seconds()/(r.Serial().Seconds()+r.Work().Seconds()))
}
