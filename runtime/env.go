package runtime

import (
	"fmt"
	"os"
)

// DefaultRunawayLimit is the run-away limit when Env.RunawayLimit is 0.
const DefaultRunawayLimit = 100

// Env is what a group of agents shares: the run-away limit, the hooks to the
// game, their gates, and a scratch buffer for the rules run in a step. Agents that share an
// Env must be stepped from one goroutine at a time; give each goroutine its
// own Env to step agents in parallel.
type Env struct {
	RunawayLimit int      // rules run per step before a run-away error; 0 means DefaultRunawayLimit
	Router       Router   // delivers signals to other agents; nil: only "self" and "all" (self only) work
	Observer     Observer // sees every finished step; nil: none
	Logger       Logger   // receives bt.log and Agent.Log; nil: standard error
	// Changes sees every signal an agent receives and every change of its
	// variables and timestamps, as they happen; nil: none, at no cost.
	Changes ChangeObserver
	Seed    int64 // the run's seed: with its id, seeds each agent's generator (Agent.Rand)
	// Gates is the state of the gates the agents created with this Env
	// share (gates.go); nil gives each agent of a tree that declares gates a
	// Gates of its own. Trees are added to it (Gates.Add) before their
	// agents are created.
	Gates *Gates
	// Explain records, for each step, why it went as it did (explain.go:
	// Agent.Whys): every condition evaluated and what it read, every
	// score, weight and drawn order, every refusal. A step that records
	// runs as an observed one (no fast path), with or without an
	// Observer. false: nothing is recorded, at no cost.
	Explain bool
	// StimulusMemory bounds the memory of each agent's stimuli, in bytes
	// as Agent.StimulusBytes counts them (stimuli_bound.go): a signal
	// whose stimulus would take an agent past it is refused, an error
	// wrapping ErrStimuli. 0 means DefaultStimulusMemory. It is read at
	// every signal: a host may change it between steps (btrun shares a
	// game's bound among its agents), never during one.
	StimulusMemory int

	// runs holds the rules run in the current step, runs[:count] (the
	// agent's), kept as long as its capacity and longer than the run-away
	// limit so that recording a run (Agent.record) seldom grows it (the
	// fast path writes its runs out only where they are read, and then
	// only their rules: sibRuns).
	runs []RuleRun
	// runLimit is the run-away limit runs was sized for and runsFor the
	// RunawayLimit it was taken from, plus one: a step sizes runs again
	// only when the setting changed (sizeRuns). runsFor is left unequal
	// to RunawayLimit+1 while runLimit is below 2, so that the one check
	// at the opening of a step (stepTo) also sends every step of such an
	// Env off the fast path, which needs room for two runs.
	runLimit, runsFor int
	// segFrom and segRule are where the fast path's runs not yet written
	// out begin: the runs from there are the ones the tree implies
	// (sibRuns).
	segFrom int
	segRule int32
	// Scratch of the features (active.go, interrupt.go, order.go): the
	// active path, the rules a jump activates, a weighted draw's children.
	path, chain, scratch []int32
	// spy, set by tests, sees every rule that becomes active (entered) and
	// every rule that is left.
	spy func(a *Agent, r int32, entered bool)
	// typed is the scratch of typed actions' rule state, one per state
	// type (typed_state.go): decoded into before a call, encoded from after.
	typed []typedScratch
}

// RuleRun is one rule run in a step and its result. A list rule that moved
// the cursor into a child has Status Moved.
type RuleRun struct {
	Rule   int32
	Status Status
	// began are the flags of the context (the agent's, or a lane's) when
	// the run began: the loop stores them as they are, and Arrived reads
	// them, so that a step pays one byte store per run for it.
	began agentFlags
}

// Arrived reports whether the run was the rule's first since the cursor (an
// agent's, or a parallel lane's) arrived at it: entering a list rule or a
// parallel, an action's first run, a rule a jump or a preemption moved the
// cursor to (a live view's breakpoints hit there). A rule that runs on (an
// action that returned running, a parallel whose lanes run, a parent a
// child's result bubbled to) is not arriving.
func (r RuleRun) Arrived() bool { return r.began&(flagFirstRun|flagBubbling) == flagFirstRun }

// arrival is the began flags of a run that arrived.
const arrival = flagFirstRun

// Router delivers a signal sent by an agent to others. to is another agent's
// id or "all" (every agent but the sender, which applies the signal to itself
// at once). data is the signal's data (NilValue: none), checked
// (CheckData); it is immutable, so the router may hand the same Value to
// every receiver. When to reach them is the router's choice; btrun delivers
// after every agent has stepped.
type Router interface {
	Route(from *Agent, to, signal string, data Value) error
}

// Observer sees each step that ended (not paused): every rule run in it,
// list rules included, with their results; the step's result and its error.
// runs is valid only during the call. A run's rule is an index into the
// agent's tree: a.Tree().Tree.Label(run.Rule) is its label.
//
// It sees the steps that begin while it is set (Env.Observer): a step that
// began without one records only what a run-away error lists, so an
// Observer set during a step (from an action, say) sees the steps after it.
type Observer interface {
	StepDone(a *Agent, runs []RuleRun, st Status, err error)
}

// Logger receives messages of bt.log and Agent.Log.
type Logger interface {
	Log(a *Agent, label, msg string)
}

// MaxRunawayLimit is the largest run-away limit; larger settings are capped.
const MaxRunawayLimit = 65535

func (e *Env) limit() uint16 {
	switch {
	case e.RunawayLimit <= 0:
		return DefaultRunawayLimit
	case e.RunawayLimit > MaxRunawayLimit:
		return MaxRunawayLimit
	}
	return uint16(e.RunawayLimit)
}

// sizeRuns takes the run-away limit from RunawayLimit (runsFor records
// which, plus one, so that an Env never sized differs) and makes runs
// longer than it. It is kept out of line, away from the code of every
// step.
//
//go:noinline
func (e *Env) sizeRuns() {
	e.runLimit, e.runsFor = int(e.limit()), e.RunawayLimit+1
	if e.runLimit < 2 {
		e.runsFor = e.RunawayLimit // checked and sized again at every step
	}
	if n := e.runLimit + 1; cap(e.runs) < n {
		e.runs = append(e.runs[:cap(e.runs)], make([]RuleRun, n-cap(e.runs))...)
	}
	e.runs = e.runs[:cap(e.runs)]
}

// growRuns makes room in runs for at least n runs, as sizeRuns does but
// leaving the limit as it is (the runs of lanes that returned running can
// pass it), and returns runs.
//
//go:noinline
func (e *Env) growRuns(n int) []RuleRun {
	n = max(n, e.runLimit+1)
	if cap(e.runs) < n {
		e.runs = append(e.runs[:cap(e.runs)], make([]RuleRun, n-cap(e.runs))...)
	}
	e.runs = e.runs[:cap(e.runs)]
	return e.runs
}

// setRuns makes saved the runs of the step so far (a step that resumes).
func (e *Env) setRuns(saved []RuleRun) {
	copy(e.growRuns(len(saved)), saved)
}

func (e *Env) log(a *Agent, label, msg string) {
	if e.Logger != nil {
		e.Logger.Log(a, label, msg)
		return
	}
	fmt.Fprintf(os.Stderr, "%s t=%.2f %s: %s\n", a.id, a.time, label, msg)
}
