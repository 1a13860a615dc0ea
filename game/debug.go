package game

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/runtime"
)

// The game's side of the live view (`btrun run -debug`, liveview):
// a Debugger the loop tells what happens and lets act between steps, and
// what a debugger may ask of the game. The game knows nothing of HTTP; the
// debugger knows nothing of the loop's insides. Without a debugger, the
// loop pays one nil check per step and per agent-step report.

// Debugger watches and steers a run. The game calls it on its own
// goroutine (the one that called Run), so a debugger may read and change
// the game from these calls and from nowhere else.
type Debugger interface {
	// Attached is called by AttachDebugger, before anything else: h is
	// what the debugger may do to the game beyond its methods (DebugHost).
	Attached(h DebugHost)
	// Between is called before each step Run runs and once more after its
	// last step (Step() == end): the debugger applies the commands it has
	// queued, and may wait there while the game is paused. It returns
	// false to end the run now. When the run is at its end, it returns
	// only to end the run, or after moving the run back in time (end is
	// then ahead again and Run goes on).
	Between(end uint64) bool
	// Stepped reports an agent's step that ended: every rule run in it
	// (list rules included) with its result, the step's result and error.
	// runs is valid only during the call.
	Stepped(a *runtime.Agent, runs []runtime.RuleRun, st runtime.Status, err error)
	// Changed reports what happened to an agent's declared state, in order.
	Changed(a *runtime.Agent, c Change)
	// Logged reports a line of an agent's log (bt.log, ctx:log, log
	// parameters); a nil agent is the world script's game.log.
	Logged(a *runtime.Agent, label, msg string)
	// Reloaded reports a reload that applied (hot reload: -watch, or the
	// debugger's own request): Agents and Trees are new, and states saved
	// before it belong to the old version.
	Reloaded()
}

// Change is a signal an agent received, or a variable or timestamp of it
// that changed.
type Change struct {
	Kind  ChangeKind
	Name  string           // the signal, variable or timestamp
	Value bool             // a variable's new value; whether a timestamp is set
	Typed runtime.VarValue // a number's, string's or vector's new value (Typed.Type is not boolean)
	From  string           // a signal's sender: an agent id, "schedule", "world" or "debugger"
}

// ChangeKind says what a Change is.
type ChangeKind uint8

const (
	SignalReceived ChangeKind = iota + 1
	VarChanged
	StampChanged
)

// DebuggerSender is the sender the trace names for signals a debugger
// sends (SendSignal).
const DebuggerSender = "debugger"

// AttachDebugger makes d see and steer the run from its next step, and
// hands it the game's DebugHost. The runtime then reports every agent's
// runs and changes to the game, as it does for a trace. (liveview.New
// attaches the live view itself.)
func (g *Game) AttachDebugger(d Debugger) {
	g.debug = d
	d.Attached(g.debugHostFor()) // a cluster's conductor's differs (cluster_debug_inputs.go)
	g.env.Observer, g.env.Changes = g.engine(), g.engine()
	g.env.Explain = true // the live view shows why, always
}

// debugChanges hands an agent's changes kept so far to the debugger.
func (g *Game) debugChanges(ga *gameAgent) {
	for _, c := range ga.changes {
		k := SignalReceived
		switch c.kind {
		case 'v', 'V':
			k = VarChanged
		case 't':
			k = StampChanged
		case 'e':
			continue // a handler's error: the output and the trace report it
		}
		g.debug.Changed(ga.a, Change{Kind: k, Name: c.name, Value: c.value, From: c.from, Typed: c.typed})
	}
}

// AgentInfo is what the game keeps about an agent beside its runtime state.
type AgentInfo struct {
	Agent    *runtime.Agent
	Tree     string // the config's name of its tree
	Stopped  bool   // stopped by on_failure = "stop"; it steps no more
	Failures int    // steps that ended with the tree's failure
	Errors   int    // steps that ended with an error
	Shard    int    // on a cluster's conductor, the shard that steps it; -1 outside a cluster
}

// AgentInfos lists the agents in config order.
func (g *Game) AgentInfos() []AgentInfo {
	names := make(map[*runtime.BoundTree]string, len(g.trees))
	for n, b := range g.trees {
		names[b] = n
	}
	for _, wl := range g.extra { // agents on other workers are bound to those workers' trees
		for n, b := range wl.trees {
			names[b] = n
		}
	}
	out := make([]AgentInfo, len(g.agents))
	for i, ga := range g.agents {
		name := names[ga.a.Template()]
		if ga.kind > 0 { // bound with its kind's translations (translate.go): the tree is its tree's
			name = g.treeName(ga)
		}
		out[i] = AgentInfo{Agent: ga.a, Tree: name, Stopped: ga.stopped, Failures: ga.failures, Errors: ga.errors, Shard: g.shardOf(ga.idx)}
	}
	return out
}

// TreeNames are the config's tree names in config order.
func (g *Game) TreeNames() []string {
	out := make([]string, 0, len(g.cfg.Trees))
	for _, tc := range g.cfg.Trees {
		if g.trees[tc.Name] != nil {
			out = append(out, tc.Name)
		}
	}
	return out
}

// Dt is the game time of one step, in seconds.
func (g *Game) Dt() float64 { return g.cfg.Run.Dt }

// SendSignal delivers a signal with its data (the zero Value: none) to an
// agent now, between steps, at the game's current step and time, from the
// sender "debugger": the trace and the output show it like any other
// signal. Data that runtime.CheckData refuses is an error and nothing is
// delivered, as is a signal whose stimulus the agent cannot hold
// (runtime.ErrStimuli); the agent keeps data as it is, so do not change it afterwards.
func (h *debugHost) SendSignal(agent, signal string, data runtime.Value) error {
	g := (*Game)(h)
	ga, err := g.debugAgent(agent)
	if err != nil {
		return err
	}
	if err := runtime.CheckData(data); err != nil {
		return fmt.Errorf("game: signal %q to %s: %w", signal, agent, err)
	}
	if err := g.refuses(signal, data, ga); err != nil {
		return fmt.Errorf("game: signal %q to %s: %w", signal, agent, err)
	}
	g.syncWorkerEnvs() // workers.go: the trace's observer reaches every worker's agents before the first step too
	g.deliver(ga, signal, data, DebuggerSender, g.step, g.Time(g.step))
	return nil
}

// JumpAgent makes the rule with the given id the agent's cursor now,
// between steps (an action it was running is cancelled; the rule runs at
// the next step). The output says so; the trace shows it in the agent's
// next step line.
func (h *debugHost) JumpAgent(agent, id string) error {
	g := (*Game)(h)
	ga, err := g.debugAgent(agent)
	if err != nil {
		return err
	}
	if _, ok := ga.a.Tree().Tree.RuleIndex(id); !ok {
		return fmt.Errorf("game: agent %s: its tree has no rule with id %q", agent, id)
	}
	err = ga.a.Jump(id)
	g.out.line(g.Time(g.step), agent, "jump -> "+printable(id)+" (debugger)")
	return err
}

func (g *Game) debugAgent(id string) (*gameAgent, error) {
	ga := g.byID[id]
	switch {
	case ga == nil:
		return nil, fmt.Errorf("game: no agent %q", id)
	case ga.stopped:
		return nil, fmt.Errorf("game: agent %s is stopped (on_failure = \"stop\")", id)
	}
	return ga, nil
}

// Quietly runs f with the trace, the output for people and Lua's print
// turned off: what f does leaves no trace and prints nothing. The live view
// replays past steps this way.
func (h *debugHost) Quietly(f func() error) error {
	g := (*Game)(h)
	trace, quiet := g.trace, g.out.quiet
	g.trace, g.out.quiet = nil, true // Lua's print checks out.quiet too (quietable)
	defer func() { g.trace, g.out.quiet = trace, quiet }()
	return f()
}

// ReplayStep runs the next step again quietly (see Quietly), with the
// program's BeforeStep and AfterStep around it (StepInfo.Replay set).
func (h *debugHost) ReplayStep() error {
	g := (*Game)(h)
	return h.Quietly(func() error {
		_, err := g.hookedStep(true)
		return err
	})
}

// Rewind restores a state SaveState returned, quietly: what the cancel
// hooks of the replaced running actions do (log lines, signals to other
// agents, changes) is dropped with the state they replaced.
func (h *debugHost) Rewind(state []byte) error {
	g := (*Game)(h)
	err := h.Quietly(func() error { return g.RestoreState(state) })
	g.outbox = g.outbox[:0]
	for _, ga := range g.agents {
		ga.changes = ga.changes[:0]
	}
	return err
}

// TraceKind says where the trace goes: "none", "stdout" or "file".
func (h *debugHost) TraceKind() string {
	g := (*Game)(h)
	switch {
	case g.trace == nil:
		return "none"
	case g.traceFile == nil:
		return "stdout"
	}
	return "file"
}

// TraceOffset is the size of the trace written so far, buffered lines
// included (0 without a trace).
func (h *debugHost) TraceOffset() int64 {
	g := (*Game)(h)
	if g.trace == nil {
		return 0
	}
	return g.trace.Offset()
}

// ErrTraceNotCut is CutTrace's error for a trace that is not a file.
var ErrTraceNotCut = errors.New("game: the trace goes to standard output, which cannot be taken back")

// CutTrace cuts the trace file back to off bytes (a TraceOffset taken
// earlier): the lines written since are taken back, and the next ones are
// written from there.
func (h *debugHost) CutTrace(off int64) error {
	g := (*Game)(h)
	switch h.TraceKind() {
	case "none":
		return nil
	case "stdout":
		return ErrTraceNotCut
	}
	f, ok := g.traceFile.(*os.File)
	if !ok {
		return ErrTraceNotCut
	}
	if err := g.trace.Flush(); err != nil {
		return fmt.Errorf("game: writing the trace: %w", err)
	}
	if err := f.Truncate(off); err != nil {
		return fmt.Errorf("game: cutting the trace back: %w", err)
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("game: cutting the trace back: %w", err)
	}
	g.trace.out.n = off
	return nil
}

// FlushTrace writes out the trace lines buffered so far (the live view does
// it when the game pauses, so that the file is whole up to that step).
func (g *Game) FlushTrace() error { return g.flushTrace() }

// InspectAgent returns an agent's ctx.agent, ctx.memory and ctx.state as
// plain data for people (luabind.Inspect describes the shapes), within
// budget values; all nil in a game without scripts.
func (h *debugHost) InspectAgent(a *runtime.Agent, budget int) (agent, memory, state any) {
	g := (*Game)(h)
	if g.lua == nil {
		return nil, nil, nil
	}
	e := g.lua.engine
	if own := luabind.EngineOf(a); own != nil { // with workers, the agent's own Lua state
		e = own
	}
	return e.InspectAgent(a, budget)
}

// Notice writes a line for people (`btrun: ...`), even with -quiet.
func (h *debugHost) Notice(msg string) {
	g := (*Game)(h)
	g.out.notice(msg)
}
