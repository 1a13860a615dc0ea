package liveview

import (
	"fmt"
	"unicode/utf8"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// What the debugger records while the game runs: per agent, each rule's
// last result and the step of it, the last step's outcome, and the recent
// events; and the breakpoints hit in the step under way. All of it on the
// game's goroutine, from the game's reports (game.Debugger).

// agentRec is what the debugger keeps about one agent.
type agentRec struct {
	a    *runtime.Agent
	tree string // the config's name of its tree
	recState
	events events
}

// recState is the part of agentRec that time travel restores with a
// snapshot (events are kept by step instead, see events.upTo).
type recState struct {
	// bound is the tree the records are per rule of: the agent's composite
	// when they were recorded (grafts.go).
	bound   *runtime.BoundTree
	results []uint64 // per rule: step<<8 | status of its last run; 0 never run
	// whys are, per rule, why it last passed, failed or was refused, and
	// at which step (why.go); nil until the agent's first recorded reason.
	whys    []whyRec
	status  runtime.Status
	err     string
	stepped uint64       // the game step of its last step; 0 none yet
	doing   int32        // the rule it was running after its last step; -1 none (transitions)
	lanes   []laneResult // per lane child: how its lane stands or ended; nil for a tree without parallels (lanes_gates.go)
	// intr is the interrupt of its last step (intr.Kind 0: none), kept
	// here because a restored agent does not hold it (time travel).
	intr runtime.Interrupt
}

// newAgentRec makes the records of agent a, whose tree is the config's
// tree, per rule of the tree it runs (follow).
func (d *Debugger) newAgentRec(a *runtime.Agent, tree string) *agentRec {
	r := &agentRec{a: a, tree: tree, recState: recState{doing: -1}}
	d.follow(r)
	return r
}

func (s *recState) clone() recState {
	c := *s
	c.results = append([]uint64(nil), s.results...)
	c.whys = append([]whyRec(nil), s.whys...)
	if s.lanes != nil {
		c.lanes = append([]laneResult(nil), s.lanes...)
	}
	return c
}

func (s *recState) size() int64 {
	return int64(len(s.results))*8 + int64(len(s.lanes)) + 64 + int64(len(s.err))
}

// lastResult unpacks results[r].
func (s *recState) lastResult(r int32) (runtime.Status, uint64, bool) {
	v := s.results[r]
	return runtime.Status(v & 0xff), v >> 8, v != 0
}

// Stepped is game.Debugger.
func (s *gameSide) Stepped(a *runtime.Agent, runs []runtime.RuleRun, st runtime.Status, err error) {
	d := (*Debugger)(s)
	i, ok := d.byPtr[a]
	if !ok {
		return
	}
	r := d.agents[i]
	step := d.g.Step()
	d.follow(r)
	r.noteWhys(a, step, runs)
	for _, run := range runs {
		if int(run.Rule) < len(r.results) {
			r.results[run.Rule] = step<<8 | uint64(run.Status)
		}
	}
	if r.lanes != nil {
		d.noteLanes(r, runs)
	}
	r.status, r.stepped, r.err = st, step, ""
	r.intr, _ = a.LastInterrupt()
	if err != nil {
		r.err = cutText(err.Error(), maxErrorText)
	}
	if !d.replaying {
		d.noteStep(i, r, runs, st, step)
	}
	switch st {
	case runtime.Running:
		r.doing = a.Cursor()
	default:
		r.doing = -1
	}
}

// noteStep records the events of a live step and the breakpoints it hit.
func (d *Debugger) noteStep(i int, r *agentRec, runs []runtime.RuleRun, st runtime.Status, step uint64) {
	a := r.a
	rules := a.Tree().Tree.Rules
	in, interrupted := a.LastInterrupt()
	if interrupted {
		r.events.add(d.eventCap, event{step: step, kind: evInterrupt, label: rules[in.Rule].Label, text: in.Kind.String()})
	}
	switch st {
	case runtime.Running:
		if c := a.Cursor(); c != r.doing {
			from := "(start)"
			if r.doing >= 0 && int(r.doing) < len(rules) {
				from = rules[r.doing].Label
			}
			r.events.add(d.eventCap, event{step: step, kind: evTransition, label: rules[c].Label, text: from + " -> " + rules[c].Label})
		}
	case runtime.Success, runtime.Failure:
		r.events.add(d.eventCap, event{step: step, kind: evFinished, text: st.String()})
	case runtime.Errored:
		r.events.add(d.eventCap, event{step: step, kind: evError, text: r.err})
	}
	noteGates(r, step, d.eventCap)
	if len(d.bps) > 0 {
		d.checkArrivals(i, r, runs, step)
	}
}

// Changed is game.Debugger.
func (s *gameSide) Changed(a *runtime.Agent, c game.Change) {
	d := (*Debugger)(s)
	i, ok := d.byPtr[a]
	if !ok || d.replaying {
		return
	}
	e := event{step: d.g.Step()}
	switch c.Kind {
	case game.SignalReceived:
		e.kind, e.text = evSignal, c.Name+" from "+c.From
	case game.VarChanged:
		e.kind, e.text = evVar, c.Name+" = "+boolText(c.Value)
		if c.Typed.Type != runtime.VarBoolean {
			e.text = c.Name + " = " + c.Typed.String()
		}
	default:
		e.kind, e.text = evStamp, c.Name+" cleared"
		if c.Value {
			e.text = c.Name + " set"
		}
	}
	d.agents[i].events.add(d.eventCap, e)
}

// Logged is game.Debugger.
func (s *gameSide) Logged(a *runtime.Agent, label, msg string) {
	d := (*Debugger)(s)
	if d.replaying {
		return
	}
	e := event{step: d.g.Step(), kind: evLog, label: label, text: msg}
	if a == nil {
		d.world.add(d.eventCap, e)
		return
	}
	if i, ok := d.byPtr[a]; ok {
		d.agents[i].events.add(d.eventCap, e)
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// --- breakpoints ---

// breakpoint pauses the game when an agent (any, or one) arrives at a
// rule of a tree.
type breakpoint struct {
	id    int
	tree  string
	rule  int32 // -1: a rule of a tree grafted into a slot, named by slot and label
	agent int   // -1: any agent of the tree
	// slot and label name a rule of a grafted tree: its index is the
	// composite's (grafts.go), so it is matched by its slot and label.
	slot, label string
}

// at reports whether rule i of b, which an agent runs, is bp's rule.
func (bp *breakpoint) at(b *runtime.BoundTree, i int32) bool {
	if bp.rule >= 0 {
		return bp.rule == i
	}
	return b.Tree.Rules[i].Label == bp.label && slotOf(b, i) == bp.slot
}

// hit is a breakpoint an agent arrived at.
type hit struct {
	bp    int
	agent int
	rule  int32
	step  uint64
}

// checkArrivals finds the rules the agent arrived at in its step and the
// breakpoints on them. A rule is arrived at when the cursor, the agent's or
// a parallel lane's, moves onto it (the runtime marks those runs: a list
// rule or a parallel entered, a lane's first rule, a rule a jump or a
// preemption moved the cursor to, the root of a tree that starts again). A
// rule that keeps running is not arriving.
func (d *Debugger) checkArrivals(i int, r *agentRec, runs []runtime.RuleRun, step uint64) {
	for _, run := range runs {
		if !run.Arrived() {
			continue
		}
		for _, bp := range d.bps {
			if (bp.agent == i || bp.agent < 0 && r.tree == bp.tree) && bp.at(r.bound, run.Rule) {
				d.hits = append(d.hits, hit{bp: bp.id, agent: i, rule: run.Rule, step: step})
			}
		}
	}
}

// --- events ---

// event is something that happened to an agent, for people.
type event struct {
	step  uint64
	kind  eventKind
	label string // the rule it is about (a log line's, a transition's new one, the interrupt's); "" none
	text  string
}

type eventKind uint8

const (
	evTransition eventKind = iota + 1 // the agent runs another rule
	evFinished                        // the tree finished (success or failure)
	evError
	evInterrupt
	evSignal
	evVar
	evStamp
	evLog
	evJump // the debugger moved the cursor
	evGate // a gate taken or released
)

var eventNames = [...]string{"", "transition", "finished", "error", "interrupt", "signal", "var", "stamp", "log", "jump", "gate"}

func (k eventKind) String() string { return eventNames[k] }

// What the events may keep. Everything the live view keeps is bounded:
// an event's text is cut (a script may log a megabyte a step), and the
// events of all agents together hold at most about eventBytes (when the
// game has so many agents that their share is small, each keeps at least
// its latest event, with its text cut to fit the share).
const (
	defaultEvents   = 200      // events kept per agent
	eventsAllAgents = 200000   // events kept by all agents together
	minEvents       = 10       // events an agent keeps however many agents there are
	eventBytes      = 32 << 20 // what all agents' events take together
	maxEventText    = 1000     // bytes of an event's text kept (a log line, an error)
	minEventText    = 64       // bytes of an event's text kept however many agents there are
	maxErrorText    = 4000     // bytes of an agent's last error kept
	eventOverhead   = 64       // what an event takes beside its text: the struct, the slice's share
	eventCutMarker  = " [... %d more bytes]"
)

// eventLimits bound one agent's events (and the world's).
type eventLimits struct {
	count int   // events kept: at most twice that many, cut back to it when full
	bytes int64 // what they may take, texts included
	text  int   // bytes of one event's text
}

// limitsFor is the share of each of n agents (and the world), with count
// events per agent (0: the default).
func limitsFor(n, count int) eventLimits {
	if count <= 0 {
		count = defaultEvents
		if n > 0 && n*count > eventsAllAgents {
			count = max(eventsAllAgents/n, minEvents)
		}
	}
	share := int64(eventBytes / (n + 1))
	return eventLimits{count: count, bytes: share, text: int(max(min(share/2-eventOverhead, maxEventText), minEventText))}
}

// cutText keeps the first n bytes of s (a whole UTF-8 sequence at the end)
// and says how many more there were. The result is a copy: it does not
// keep a long text alive.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n
	for k > 0 && k > n-utf8.UTFMax && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + fmt.Sprintf(eventCutMarker, len(s)-k)
}

// events are an agent's recent events in step order: at most twice the
// count limit and within the byte limit, cut back when full.
type events struct {
	list  []event
	bytes int64 // what list takes (event.size)
	cut   bool  // older events were dropped
}

func (e *event) size() int64 { return eventOverhead + int64(len(e.text)+len(e.label)) }

func (e *events) add(lim eventLimits, ev event) {
	ev.text = cutText(ev.text, lim.text)
	size := ev.size()
	if len(e.list) >= 2*lim.count || e.bytes+size > lim.bytes {
		e.keepLast(lim.count, lim.bytes/2)
	}
	e.list = append(e.list, ev)
	e.bytes += size
}

// keepLast drops the oldest events until at most n are left, taking at
// most b bytes.
func (e *events) keepLast(n int, b int64) {
	drop := max(len(e.list)-n, 0)
	for _, ev := range e.list[:drop] {
		e.bytes -= ev.size()
	}
	for drop < len(e.list) && e.bytes > b {
		e.bytes -= e.list[drop].size()
		drop++
	}
	if drop == 0 {
		return
	}
	k := copy(e.list, e.list[drop:])
	clear(e.list[k:])
	e.list = e.list[:k]
	e.cut = true
}

// upTo returns the last n events at or before step, and whether older ones
// may be missing.
func (e *events) upTo(step uint64, n int) ([]event, bool) {
	end := len(e.list)
	for end > 0 && e.list[end-1].step > step {
		end--
	}
	start := max(end-n, 0)
	return e.list[start:end], e.cut || start > 0
}

// discardAfter drops the events after step (a branch of the timeline).
func (e *events) discardAfter(step uint64) {
	end := len(e.list)
	for end > 0 && e.list[end-1].step > step {
		end--
		e.bytes -= e.list[end].size()
	}
	clear(e.list[end:])
	e.list = e.list[:end]
}
