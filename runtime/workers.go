package runtime

import (
	"fmt"
	"time"
)

// Workers runs the steps of agents on several goroutines, in rounds, with
// the same results as Rounds gives when it steps them all on one.
//
// Each agent belongs to one worker for its whole life (Workers.Of), and a
// worker's agents share that worker's Env (and whatever the host keeps per
// worker, such as a Lua state): a worker steps its agents one after the
// other, in the order of agents, on one goroutine; different workers run
// at the same time. What agents share is changed only between the parallel
// parts, on the calling goroutine:
//
//  1. Every worker runs its agents' steps until each ends or pauses (a
//     plugin call, the take of a gate).
//  2. The round ends on the calling goroutine: each Resolver's EndRound
//     gets the round's agents of every worker merged into the order of
//     agents, exactly the list Rounds would give it.
//  3. Every worker resumes its paused agents, in order, through the
//     resolvers' Continue, until each ends or pauses again: the next round.
//
// So gate takes are decided and plugin batches are formed from the same
// lists whatever the number of workers, and an agent's step sees the same
// shared state at the same point. Two things stay the host's: signals one
// agent sends others (deliver them after the step, in an order that does
// not depend on the workers: Workers.Round tells a Router in which round a
// signal was sent), and output written from inside steps.
//
// A Resolver used with Workers must accept calls made from agents' steps
// and Continue on several goroutines at once, for different agents (the
// plugin host's Set and Gates do).
type Workers struct {
	Resolvers []Resolver
	// Of[i] is the worker (0 .. n-1) of the i-th agent passed to StepAt;
	// len(Of) must be at least the number of agents.
	Of []int32
	// Step starts an agent's step; nil is a.StepAt(t).
	Step func(a *Agent, t float64) (Status, error)
	// Ended, when set, is called as each agent's step ends, on its worker
	// (step_ended.go).
	Ended StepEnded
	// Serial runs every worker's agents on the calling goroutine, in the
	// order of agents, each with its worker's Env: for hooks that must not
	// be called concurrently, such as a debugger's. The results, and the
	// order in which steps run, are those of one goroutine.
	Serial bool

	n     int
	lanes []workerLane
	out   []Outcome
	round []*Agent
	order []int32 // the round's agents (indices) in order
	// round is the number of the round being run (1, 2, ...), read by hosts'
	// hooks during the parallel parts.
	roundNo int

	// Spin is how long a worker watches for the next round, and the
	// calling goroutine for the end of a round, before sleeping (0:
	// DefaultSpin; below 0: never).
	Spin time.Duration
	pool pool
	cur  roundArgs // the round being run, for the runners

	filters roundFilters // rounds_filter.go
	shown   []*Agent     // a filter's agents of the round

	byHand  []*Agent // the agents of rounds run by hand (workers_byhand.go)
	byHandT float64
}

// roundArgs is what a round's parallel part steps.
type roundArgs struct {
	agents []*Agent
	out    []Outcome
	t      float64
	resume bool
}

// workerLane is one worker's part of a step: the agents it runs in the
// current round (indices into the agents, in order) and those that paused.
type workerLane struct {
	run, waiting []int32
	picked       [][]int32 // per resolver, the agents its filter wants (rounds_filter.go)
	err          error
	panicked     any
	busy         time.Duration // time spent in the last StepAt
}

// NewWorkers makes a Workers for n ≥ 1 workers.
func NewWorkers(n int, resolvers ...Resolver) *Workers {
	if n < 1 {
		n = 1
	}
	return &Workers{Resolvers: resolvers, n: n, lanes: make([]workerLane, n)}
}

// N is the number of workers.
func (w *Workers) N() int { return w.n }

// Busy is the time worker k spent stepping its agents in the last StepAt
// (the parallel parts only): the balance between workers.
func (w *Workers) Busy(k int) time.Duration { return w.lanes[k].busy }

// Round is the number (1, 2, ...) of the round being run; a Router or a
// Logger called from an agent's step reads it to order what it collects
// the way one goroutine would have produced it (by round, then by the
// order of agents). It is stable while the workers run.
func (w *Workers) Round() int { return w.roundNo }

// StepAt runs one step of every agent at time t, each on its worker, and
// returns each agent's outcome, in the order of agents (valid until the
// next call). The error breaks the rounds (see Resolver.EndRound), or
// names an agent that paused at a call no resolver answers.
func (w *Workers) StepAt(agents []*Agent, t float64) ([]Outcome, error) {
	if len(w.Of) < len(agents) {
		return nil, fmt.Errorf("runtime: workers: %d agents, but a worker is given for %d", len(agents), len(w.Of))
	}
	if cap(w.out) < len(agents) {
		w.out = make([]Outcome, len(agents))
	}
	out := w.out[:len(agents)]
	for k := range w.lanes {
		w.lanes[k].run = w.lanes[k].run[:0]
		w.lanes[k].busy = 0
	}
	for i := range agents {
		k := w.Of[i]
		if k < 0 || int(k) >= w.n {
			return nil, fmt.Errorf("runtime: workers: agent %s is given worker %d of %d", agents[i].id, k, w.n)
		}
		w.lanes[k].run = append(w.lanes[k].run, int32(i))
	}
	w.roundNo = 1
	w.filters.set(w.Resolvers)
	round := agents
	for {
		w.parallel(agents, out, t, w.roundNo > 1)
		for k := range w.lanes {
			if err := w.lanes[k].err; err != nil {
				return out, err
			}
		}
		if err := w.endRound(agents, round); err != nil {
			return out, err
		}
		waiting := 0
		for k := range w.lanes {
			l := &w.lanes[k]
			l.run, l.waiting = l.waiting, l.run[:0]
			waiting += len(l.run)
		}
		if waiting == 0 {
			break
		}
		round = w.merge(agents)
		w.roundNo++
	}
	clear(w.round) // let go of the agents
	clear(w.shown)
	w.roundNo = 0
	return out, nil
}

// endRound ends a round on the calling goroutine: each resolver gets the
// round's agents, or a filter those of them it wants, merged from the
// workers' lists into the order of agents (rounds_filter.go).
func (w *Workers) endRound(agents, round []*Agent) error {
	return w.filters.endRound(w.Resolvers, agents, round, &w.shown, func(j int) []int32 {
		return w.inOrder(func(l *workerLane) []int32 { return l.picked[j] })
	})
}

// merge lists the agents of the next round (every worker's waiting agents)
// in the order of agents.
func (w *Workers) merge(agents []*Agent) []*Agent {
	w.round = w.round[:0]
	for _, i := range w.inOrder(runOf) {
		w.round = append(w.round, agents[i])
	}
	return w.round
}

// runOf is a lane's agents of the round.
func runOf(l *workerLane) []int32 { return l.run }

// inOrder merges the workers' lists list(lane) (each in the order of agents
// already) into w.order.
func (w *Workers) inOrder(list func(*workerLane) []int32) []int32 {
	w.order = w.order[:0]
	var pos [64]int
	at := pos[:0]
	if w.n > len(pos) {
		at = make([]int, w.n)
	} else {
		at = pos[:w.n]
	}
	for {
		best, bestAt := -1, int32(0)
		for k := range w.lanes {
			if l := list(&w.lanes[k]); at[k] < len(l) && (best < 0 || l[at[k]] < bestAt) {
				best, bestAt = k, l[at[k]]
			}
		}
		if best < 0 {
			return w.order
		}
		w.order = append(w.order, bestAt)
		at[best]++
	}
}

// parallel runs every worker's part of a round, worker 0's on the calling
// goroutine and the others' on their runners (workers_pool.go), and waits
// for them. A panic in a step is raised again on the calling goroutine.
func (w *Workers) parallel(agents []*Agent, out []Outcome, t float64, resume bool) {
	for k := range w.lanes { // a lane with no agent in the round is not run
		w.lanes[k].picked = w.filters.grow(w.lanes[k].picked)
	}
	if w.Serial {
		w.serial(agents, out, t, resume)
		return
	}
	w.cur = roundArgs{agents, out, t, resume}
	w.roundOnRunners()
	w.cur = roundArgs{}
	w.repanic()
}

// repanic raises again, on the calling goroutine, a panic of a worker.
func (w *Workers) repanic() {
	for k := range w.lanes {
		if p := w.lanes[k].panicked; p != nil {
			w.lanes[k].panicked = nil
			panic(p)
		}
	}
}

// runLane steps (or resumes) worker k's agents of the round, in order.
func (w *Workers) runLane(k int, agents []*Agent, out []Outcome, t float64, resume bool) {
	l := &w.lanes[k]
	l.err = nil
	l.waiting = l.waiting[:0]
	start := time.Now()
	defer func() {
		l.busy += time.Since(start)
		if p := recover(); p != nil {
			l.panicked = p
		}
	}()
	for _, i := range l.run {
		if !w.stepOne(l, i, agents, out, t, resume) {
			return
		}
	}
}

// serial runs a round's agents one after the other on the calling
// goroutine, in the order of agents (Serial), each with its worker's
// bookkeeping.
func (w *Workers) serial(agents []*Agent, out []Outcome, t float64, resume bool) {
	for k := range w.lanes {
		w.lanes[k].err = nil
		w.lanes[k].waiting = w.lanes[k].waiting[:0]
	}
	for _, i := range w.inOrder(runOf) {
		l := &w.lanes[w.Of[i]]
		start := time.Now()
		ok := w.stepOne(l, i, agents, out, t, resume)
		l.busy += time.Since(start)
		if !ok {
			return
		}
	}
}

// stepOne steps (or resumes) the i-th agent on lane l; false when it waits
// for a call no resolver answers (l.err says so).
func (w *Workers) stepOne(l *workerLane, i int32, agents []*Agent, out []Outcome, t float64, resume bool) bool {
	a := agents[i]
	var st Status
	var err error
	switch {
	case resume:
		var ok bool
		st, err, ok = w.resume(a)
		if !ok {
			l.err = fmt.Errorf("runtime: workers: agent %s is paused at a call that none of the %d resolvers answers", a.id, len(w.Resolvers))
			return false
		}
	case w.Step != nil:
		st, err = w.Step(a, t)
	default:
		st, err = a.StepAt(t)
	}
	out[i] = Outcome{st, err}
	if st == Paused {
		l.waiting = append(l.waiting, i)
	} else if w.Ended != nil {
		w.Ended(int(w.Of[i]), i, a, st, err)
	}
	if w.filters.any {
		w.filters.pick(l.picked, a, i)
	}
	return true
}

// resume resumes a with the resolver whose call it waits for.
func (w *Workers) resume(a *Agent) (Status, error, bool) {
	for _, res := range w.Resolvers {
		if st, err, ok := res.Continue(a); ok {
			return st, err, true
		}
	}
	return 0, nil, false
}
