package liveview

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// Options configure a Debugger. Zero values mean the defaults.
type Options struct {
	// Paused starts the game paused, before its first step.
	Paused bool
	// Fast starts the game running as fast as it can; by default it runs
	// at real time (one step per dt of wall time).
	Fast bool
	// SnapshotEvery is how many steps apart time travel's snapshots are
	// taken (default 20).
	SnapshotEvery int
	// Budget is how many bytes the snapshots may take (default 64 MiB).
	Budget int64
	// Events is how many events (transitions, signals, changes, log lines)
	// are kept per agent (default 200; fewer when the game has more than
	// 1,000 agents, so that all agents together keep at most 200,000).
	Events int
	// Timeout is how long a request waits for the game to take it
	// (default 10 s).
	Timeout time.Duration
	// Reload, when set, reloads the game's trees and scripts (hot
	// reload): the page shows a reload button and POST /api/reload calls
	// it between steps. It returns a summary for people.
	Reload func() (summary string, err error)
	// Edit makes the page an editor of the game's tree files (`btrun run
	// -debug ADDR -edit`): the editor's endpoints answer, and a save writes
	// a tree file and reloads the game. Without it they answer 403 and
	// nothing is written.
	Edit bool
	// Host is the host name the server was asked to listen on, when it is
	// a name rather than an address: requests naming it in their Host
	// header are accepted (besides IP addresses and localhost).
	Host string
	// Embedded is for a game a Go program steps from its own loop
	// (game.Game.Advance) rather than with game.Game.Run: the debugger
	// never waits nor paces the steps (the program's loop owns time);
	// while the page holds the game paused, Advance runs no step and the
	// program's loop goes on; requests are served at each Advance.
	Embedded bool
}

const (
	defaultEvery     = 20
	defaultBudget    = 64 << 20
	defaultTimeout   = 10 * time.Second
	publishEvery     = 100 * time.Millisecond
	queueLen         = 64
	maxSubscribers   = 32
	maxStepsPerAsk   = 1000000
	inspectBudget    = 2000 // values shown of an agent's Lua tables
	maxBreakpoints   = 256
	defaultSpeedReal = 1.0
)

// Debugger is the live view's side of a game: the game's debugger (its
// game.Debugger methods are those of an unexported adapter, gameside.go),
// and the server of the page and its API (Handler). Create it with New,
// which attaches it to the game, and Close it after the run.
type Debugger struct {
	g *game.Game
	// tags are the game's format, its registered rules included
	// (editor_outline.go), read at New: rules from Go do not change while
	// the game runs.
	tags *formatIndex
	host game.DebugHost // what else the game lets its debugger do (Attached)
	opts Options

	queue     chan *request
	wake      chan struct{} // a new subscriber wants its first update, or Quit was called
	done      chan struct{} // closed when the run is over
	ended     atomic.Bool
	quitAsked atomic.Bool // Quit was called

	subs subscribers

	// Everything below belongs to the game's goroutine.
	started   bool
	seen      uint64 // the step the game was at when Between last returned
	end       uint64
	paused    bool
	reason    reason
	speed     float64 // steps at real time × speed; 0 as fast as possible
	pace      pacer
	stepsLeft int
	// travelReload is set while time travel reloads the trees of another
	// version; pendingEdit holds the old text of the files an editor's save
	// is reloading (timeline_edits.go).
	travelReload bool
	pendingEdit  map[string][]byte
	steppers     []*request // step requests answered when their steps are done
	quit         bool
	flushed      bool // the trace was flushed since the game paused
	dirty        bool // something changed since the last update was published
	published    time.Time

	agents    []*agentRec
	byPtr     map[*runtime.Agent]int
	byID      map[string]int
	world     events      // the world script's game.log lines
	eventCap  eventLimits // what each agent's events may keep (record.go)
	replaying bool
	laneBuf   []runtime.Lane                  // scratch for Agent.Lanes
	trees     composites                      // the composites agents were seen running, by key (grafts.go)
	reloads   int                             // reloads applied (Reloaded)
	waits     map[*runtime.BoundTree][]string // per tree, the gate each bt.gate.wait rule waits for (lanes_gates.go)

	bps    []breakpoint
	nextBP int
	hits   []hit

	tl timeline

	// The editor's (editor_http.go).
	edits    chan struct{} // a slot per edit request worked on off the game's goroutine
	disk     treeWriter    // where saves write: the game
	loadHook func()        // tests: called before each load that checks an edit
}

// reason says why the game is paused.
type reason struct {
	kind string // "start", "pause", "step", "breakpoint", "end", "travel", "reload"
	hits []hit  // breakpoint
}

// New makes a debugger for g and attaches it (game.Game.AttachDebugger):
// from g's next step on, the debugger sees and steers it.
func New(g *game.Game, opts Options) *Debugger {
	if opts.SnapshotEvery <= 0 {
		opts.SnapshotEvery = defaultEvery
	}
	if opts.Budget <= 0 {
		opts.Budget = defaultBudget
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	d := &Debugger{g: g, opts: opts, tags: newFormatIndex(g.Registry()),
		queue: make(chan *request, queueLen), wake: make(chan struct{}, 1), done: make(chan struct{}),
		speed: defaultSpeedReal, paused: opts.Paused, nextBP: 1,
		edits: make(chan struct{}, maxEditsAtOnce)}
	if opts.Fast {
		d.speed = 0
	}
	if d.paused {
		d.reason = reason{kind: "start"}
	}
	d.tl = timeline{every: opts.SnapshotEvery, budget: opts.Budget}
	d.pace.clock = &wallClock{}
	d.index()
	g.AttachDebugger((*gameSide)(d))
	return d
}

// Attached is game.Debugger: it keeps what the game lets its debugger do
// (time travel's quiet replays, the editor's files).
func (s *gameSide) Attached(h game.DebugHost) {
	d := (*Debugger)(s)
	d.host = h
	if d.disk == nil {
		d.disk = h
	}
}

// index builds the agent records (again after a reload).
func (d *Debugger) index() {
	infos := d.g.AgentInfos()
	d.eventCap = limitsFor(len(infos), d.opts.Events)
	old := d.byID
	oldRecs := d.agents
	d.waits = nil
	d.trees = composites{}
	d.agents = make([]*agentRec, len(infos))
	d.byPtr = make(map[*runtime.Agent]int, len(infos))
	d.byID = make(map[string]int, len(infos))
	for i, in := range infos {
		r := d.newAgentRec(in.Agent, in.Tree)
		if j, ok := old[in.Agent.ID()]; ok {
			r.events = oldRecs[j].events // a reload keeps what happened
		}
		d.agents[i] = r
		d.byPtr[in.Agent] = i
		d.byID[in.Agent.ID()] = i
	}
}

// Between is game.Debugger: it runs the queued requests and decides whether
// and when the next step runs.
func (s *gameSide) Between(end uint64) bool {
	d := (*Debugger)(s)
	d.end = end
	step := d.g.Step()
	switch {
	case !d.started:
		d.started = true
		d.tl.start(d, step)
		d.pace.reset(step)
		d.dirty = true
	case step != d.seen:
		d.arrived(step)
	}
	for {
		d.drain()
		step = d.g.Step()
		if d.quit || d.quitAsked.Load() {
			d.finish()
			return false
		}
		if step >= end && !d.paused {
			d.pauseFor(reason{kind: "end"})
		}
		if step < end && d.stepsLeft > 0 {
			d.stepsLeft--
			d.publishIfDue()
			d.leave(step)
			return true
		}
		if step < end && !d.paused {
			if due, wait := d.pace.due(step, d.g.Dt(), d.speed); wait {
				d.publishIfDue()
				d.sleepUntil(due)
				continue
			}
			d.publishIfDue()
			d.leave(step)
			return true
		}
		d.idle()
	}
}

// MayStep is game.StepGate, for a game stepped by a program's own loop
// (Options.Embedded): it runs the queued requests and says whether the next
// step runs now, without waiting, as Between does when it does not wait.
func (s *gameSide) MayStep() (step, quit bool) {
	d := (*Debugger)(s)
	d.end = game.MaxSteps
	now := d.g.Step()
	switch {
	case !d.started:
		d.started = true
		d.tl.start(d, now)
		d.dirty = true
	case now != d.seen:
		d.arrived(now)
	}
	d.drain()
	if d.quit || d.quitAsked.Load() {
		d.finish()
		return false, true
	}
	now = d.g.Step()
	switch {
	case d.stepsLeft > 0:
		d.stepsLeft--
	case d.paused:
		if !d.flushed {
			d.flushed = true
			d.g.FlushTrace()
		}
		d.publishIfDue()
		return false, false
	}
	d.publishIfDue()
	d.leave(now)
	return true, false
}

// arrived is what happens when a step has run: the timeline grows, and a
// breakpoint hit or the end of requested steps pauses the game.
func (d *Debugger) arrived(step uint64) {
	d.seen = step
	d.tl.arrived(d, step)
	if len(d.hits) > 0 {
		d.pauseFor(reason{kind: "breakpoint", hits: d.hits})
		d.hits = nil
	}
	if d.stepsLeft == 0 && len(d.steppers) > 0 {
		d.answerSteppers()
	}
	d.dirty = d.dirty || d.paused
}

// leave is called just before Between lets the next step run.
func (d *Debugger) leave(step uint64) {
	if step < d.tl.head { // every command that runs steps branched already; this keeps the timeline whole if one did not
		d.tl.branch(d)
	}
	d.tl.left(d, step)
	d.seen = step
	d.flushed = false
}

// idle waits for a request while the game is paused (or at its end).
func (d *Debugger) idle() {
	if !d.flushed {
		d.flushed = true
		d.g.FlushTrace() // a trace that cannot be written fails the run at its next step
	}
	d.publish()
	select {
	case req := <-d.queue:
		d.exec(req)
	case <-d.wake:
	}
}

// sleepUntil waits for a request until the time due (real-time pacing).
func (d *Debugger) sleepUntil(due time.Time) {
	c, stop := d.pace.clock.until(due)
	defer stop()
	select {
	case req := <-d.queue:
		d.exec(req)
	case <-d.wake:
		d.publish()
	case <-c:
	}
}

// Quit ends the run at the next moment between steps, as the page's Quit
// button does, waking a paused game. It may be called from any goroutine
// (a handler of SIGINT, for instance).
func (d *Debugger) Quit() {
	d.quitAsked.Store(true)
	d.poke()
}

// pauseFor pauses the game for the reason given; step requests waiting for
// their steps are answered.
func (d *Debugger) pauseFor(r reason) {
	d.paused = true
	d.reason = r
	d.stepsLeft = 0
	d.answerSteppers()
	d.dirty = true
}

func (d *Debugger) answerSteppers() {
	for _, req := range d.steppers {
		req.reply <- result{body: d.statusView()}
	}
	d.steppers = d.steppers[:0]
}

// finish ends the debugger's part in the run: the run goes back to its
// latest step if it was showing an earlier one (so that the summary, the
// final save and the trace agree), and everything waiting is answered.
func (d *Debugger) finish() {
	if d.g.Step() != d.tl.head {
		if err := d.tl.travel(d, d.tl.head); err != nil {
			d.host.Notice("live view: could not go back to step " + fmt.Sprint(d.tl.head) + " before ending: " + err.Error())
		}
	}
	d.dirty = true
	d.publish() // the last picture, before the streams end
	d.Close()
}

// Close ends the debugger: requests still waiting are answered 503 and
// live updates end. Call it after Run returned (it is called on the game's
// goroutine, or once that goroutine has left Run).
func (d *Debugger) Close() {
	if d.ended.Swap(true) {
		return
	}
	for _, req := range d.steppers {
		req.reply <- result{err: errEnded}
	}
	d.steppers = nil
	close(d.done)
	for {
		select {
		case req := <-d.queue:
			if req.state.CompareAndSwap(queued, taken) {
				req.reply <- result{err: errEnded}
			}
		default:
			return
		}
	}
}

var errEnded = &apiError{code: 503, msg: "the run has ended"}

// errDeferred is a request's answer that comes later (a step request is
// answered when its steps are done).
var errDeferred = errors.New("deferred")
