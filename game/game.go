package game

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/btrun/btrun/plugins/host"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// Options are the command line's settings for a run.
type Options struct {
	Seed  *int64 // overrides run.seed
	Trace string // "" none (unless the config names a file), "-" stdout, else a file
	// Explain adds to each step line of the trace why the step went as it
	// did (key "why": conditions and what they read, scores, weights and
	// orders, refusals).
	Explain bool
	Quiet   bool // print only the summary
	// Stdout gets the lines for people (what each agent does, its log,
	// Lua's print, errors) and the summary; Stderr the whole texts of
	// errors too long for a line. Nil is nowhere: a game prints nothing
	// unless asked (btrun gives os.Stdout and os.Stderr). A trace to "-"
	// goes to Stdout, or os.Stdout when it is nil.
	Stdout io.Writer
	Stderr io.Writer
	// Logger, when set, gets the lines for people instead of Stdout and
	// Stderr, as records with the line's game time ("t") and agent
	// ("agent"; "world", "plugins" or "reload:" for the game's own): an
	// agent's log lines (bt.log, ctx:log) at Info with the rule's label
	// ("rule"), Lua's print at Info, changes of rule and signals received
	// at Debug, failures at Warn, errors at Error. Quiet still keeps all
	// but notices and reloads from it. The summary (WriteSummary) goes to
	// Stdout.
	Logger *slog.Logger
	Timing bool // time every action for the summary
	// Unbatched sends every plugin call as a round trip of its own instead
	// of one batch per plugin and round: a run is the same either way, and
	// tests hold it to that.
	Unbatched bool

	Progress bool // draw a progress line (for a terminal)

	SavePath  string // save here at the end of Run and every SaveEvery steps; "" uses the config's [save]
	SaveEvery int    // < 0 uses the config's save.every

	// Stop, when closed, ends Run after the step in progress (it still
	// saves and flushes the trace) and cancels a plugin build or start
	// under way in Open. btrun closes it on SIGINT or SIGTERM.
	Stop <-chan struct{}

	Realtime bool // run no faster than one step every dt seconds of wall time (or the config's run.realtime)

	// Workers, when not nil, overrides run.workers: the number of threads
	// the agents are spread over (0: one per CPU core).
	Workers *int

	// What a Go program that embeds the game gives it (docs/embedding.md).

	// Files, when set, is where the config's tree files, script folders and
	// world script are read from: an embed.FS, an fstest.MapFS of sources
	// held in memory, an os.DirFS. The config's paths are then paths in
	// Files (slash-separated, relative). Nil reads them from disk, relative
	// to the config's folder. Plugins, saves and the trace are always files.
	Files fs.FS
	// Register, when set, registers the game's Go actions, conditions and
	// scorers (runtime.TypedAction and the like). It is called once for
	// every registry the game fills (at Open, once per worker, and again
	// at each hot reload, each time before the trees are bound), one
	// registry at a time, on the goroutine that calls Open or Reload:
	// never concurrently. What it registers is then called by the
	// workers: with several, from several goroutines at once (for
	// different agents), so it must keep per-agent data in the agent.
	Register func(reg *runtime.Registry) error
	// AgentData, when set, gives each agent the game's own data as it is
	// made (the config's agents at Open, the agents Load adds): Lua's
	// ctx.agent, plugins' agent fields and Agent.Data are then that data.
	// It may return nil for an agent that keeps a Lua table.
	AgentData func(id, tree string) runtime.AgentData
	// TraceTo, when set, receives the trace (JSON Lines) instead of the file
	// Trace or the config's [trace] names; OpenTrace starts it.
	TraceTo io.Writer
	// AgentsFromSave makes Load and RestoreState take the game's agents
	// from the save, for a game that adds and removes agents: agents the
	// save holds and the game lacks are added (running the tree the save
	// names, with their data from AgentData), agents the game has and the
	// save lacks are removed, and the order becomes the save's. Without
	// it, a save must hold the game's agents in the game's order (a
	// `btrun run -load` config's).
	AgentsFromSave bool
	// BeforeStep and AfterStep, when set, are the program's own work
	// around each step (damage, world events, signals from Go, changes to
	// its agents' data): Advance and Run call them before and after every
	// step, and the live view's time travel calls them again (with
	// StepInfo.Replay) when it replays a step, so that the earlier steps
	// it shows are the ones the game had. Work the program does between
	// two Advance calls instead is not replayed. A callback may call
	// Signal, AddAgent, RemoveAgent and Save (not Advance, Load or Close);
	// to replay right it must change the game from what it is told and
	// what the game holds (the agents' data, which time travel restores),
	// not from state of its own that time travel does not rewind. Its
	// error ends the step's Advance with that error.
	BeforeStep func(g *Game, s StepInfo) error
	AfterStep  func(g *Game, s StepInfo) error
	// Shard, when set, opens the game as shard K of N of a cluster
	// (Game.ServeShard): every agent of the config is listed (its id, tree
	// and place) and only the shard's range of them is made, with its Lua
	// tables and stores (cluster_range.go).
	Shard *ShardOf
	// Conductor opens the game to conduct a cluster (Game.Conduct) with no
	// agents of its own: every agent is listed (id, tree, place) and none
	// is made, nor its Lua tables or stores; the shards hold them all
	// (cluster_nocopy.go). Leave it false for a conductor with a live view,
	// which draws a copy of every agent.
	Conductor bool
}

// ErrStopped is what Run returns when Options.Stop ended it early: the steps
// run so far are traced, saved and summed up as for a whole run.
var ErrStopped = errors.New("game: run stopped")

// Game is a running game config: its trees, registry, agents and loop.
// A Game is used from one goroutine.
type Game struct {
	cfg  *Config
	opts Options
	// override is a reload's ReloadOptions.Override while it loads, by
	// absolute path (files.go); nil otherwise.
	override map[string][]byte
	reg      *runtime.Registry
	trees    map[string]*runtime.BoundTree
	agents   []*gameAgent
	byID     map[string]*gameAgent
	byPtr    map[*runtime.Agent]*gameAgent // for the per-step hooks: no look-up by name there
	env      *runtime.Env

	trace     *TraceWriter
	traceFile io.Closer
	out       printer
	times     *actionTimes
	lua       *scripts
	code      compiledScripts // shared by the workers' Lua states and reloads (scripts.go)
	plugins   *host.Set

	active   []*runtime.Agent // the agents that step (not stopped), config order (listActive)
	activeGA []*gameAgent     // their game agents
	// activeIdx are their places in config order, and doing each agent's
	// (config order) label of the rule it ran at the end of its last
	// step: arrays rather than fields of the game agents, so that the
	// workers read them in order as steps end (report_pick.go).
	activeIdx []int32
	doing     []string
	// activeLast is each active agent's status as last reported (its game
	// agent's status), beside activeIdx for the same reason: a step whose
	// status differs is reported even when it writes nothing, so that
	// Outcome, and a conductor's directory, tell the last step's result.
	activeLast []runtime.Status
	// activeStale: g.active, g.activeGA (and g.activeOf) must be made
	// again before the next step: an agent stopped, or the agents were
	// remade (a load, a reload, a restore). Made once, not every step: at
	// 100,000 agents the lists took about 1.7 ms of every step, on one
	// thread.
	activeStale bool
	// The outcomes of the agents' steps (one per g.activeGA), and the error
	// that broke the rounds if one did: reported in config order once every
	// agent has stepped (runStep).
	outcomes  []runtime.Outcome
	roundsErr error
	plainOut  []runtime.Outcome  // the outcomes' own buffer in a game without rounds
	rounds    runtime.Rounds     // the plugin calls' and gate takes' rounds (rounds.go)
	gates     *runtime.Gates     // the gates the agents share; nil when no tree declares one (gates.go)
	saveEnc   *savecodec.Encoder // reused by every save
	loadPlan  runtime.AgentsPlan // reused by every load: its arrays are allocated once

	step     uint64 // steps done
	stepping bool   // runStep is under way: the agents' list must not change (agents.go)
	life     life   // idle, busy or closed, for calls from the embedding program (lifecycle.go)
	// A step callback added or removed agents: the debugger hears it after
	// the step (stephooks.go).
	regrouped bool
	// The game's own data of agents that have some (agents.go), and the ids
	// of the agents Open lists before their runtime agents exist.
	data      map[*gameAgent]runtime.AgentData
	opening   []string
	delivered []bool // schedule entries delivered
	outbox    []routed
	sending   []routed // the outbox being delivered (deliverSent)
	handlers  bool     // an active agent's tree has signal handlers (listActive)
	from      string   // the sender of the signals being delivered, for the trace
	warnings  []string
	last      summary
	errTexts  errorTexts // errtext.go

	silent  bool         // a reload runs the world's init and spawn again: no output, no trace (reload.go)
	watcher *sourceWatch // btrun run -watch (watch.go)
	pacer   *pacer       // btrun run -realtime (pace.go)
	debug   Debugger     // the live view (debug.go); nil without -debug
	phases  *stepPhases  // what the parts of a step cost (phases.go); nil but in btrun bench

	// Workers (workers.go): nil with one worker.
	workers  []*worker
	workerOf []int32       // each agent's worker, config order
	extra    []*workerLoad // workers 1.. N-1's Lua states, registries and trees
	par      *runtime.Workers
	activeOf []int32 // the workers of g.active (listActive)
	parallel bool    // agents are stepping on the workers now
	// contract: run.workers (or Options.Workers) is not 1, so scripts keep
	// the contract of parallel runs whatever the number of workers (module
	// tables are read-only, the world does not reach into agents' tables):
	// a run is then the same for every number of workers, one included.
	contract   bool
	mergeOut   []tagged
	mergeLines []taggedLine

	cl   *clusterRole // the game's part in a cluster (cluster.go); nil outside one
	held *heldRange   // a shard's game: the places whose agents it makes (cluster_range.go); nil: all

	// The steps to report, picked as they end (report_pick.go).
	picked    bool // this step's were
	picks     []pickList
	pickOrder []int32
	stepEnded runtime.StepEnded // pickStep, made once
}

// routed is a signal an agent sent to others, delivered after every agent
// has stepped.
type routed struct {
	from   *gameAgent
	to     string // an agent id or "all"
	signal string
	data   runtime.Value
}

// Open loads everything a config names, binds it and creates the agents.
// Every problem found is reported (ErrorList or joined errors).
func Open(cfg *Config, opts Options) (*Game, error) {
	if err := cfg.checkGo(opts.Files); err != nil {
		return nil, err
	}
	stdout, stderr := opts.Stdout, opts.Stderr // nil: nowhere (OpenTrace's "-" excepted)
	if stdout == nil {
		stdout = io.Discard
	}
	g := &Game{cfg: cfg, opts: opts, reg: runtime.NewRegistry(), trees: map[string]*runtime.BoundTree{},
		byID: map[string]*gameAgent{}, byPtr: map[*runtime.Agent]*gameAgent{}, delivered: make([]bool, len(cfg.Signals))}
	g.out = printer{w: stdout, quiet: opts.Quiet, progress: opts.Progress, log: opts.Logger}
	g.errTexts.w = stderr // nil: the note of a cut text does not point there
	if opts.Logger != nil {
		g.errTexts.w = slogWriter{log: opts.Logger, level: slog.LevelError, source: "error"}
	}
	if opts.Trace == "-" {
		g.out.w = stderr // stdout carries the trace: people's output goes to stderr
		if stderr == nil {
			g.out.w = io.Discard
		}
	}
	// Observer is set by OpenTrace: the rules run in a step are kept only
	// for the trace, and keeping them is a map look-up and a copy per
	// agent-step.
	g.env = &runtime.Env{RunawayLimit: cfg.Run.RunawayLimit, Router: g.engine(), Logger: g.engine(), Seed: g.seed()} // Explain: with a trace (OpenTrace)
	if opts.Realtime || cfg.Run.Realtime {
		g.pacer = &pacer{period: time.Duration(cfg.Run.Dt * float64(time.Second))}
	}

	agents := 0
	counts := make([]int, len(cfg.Agents))
	for e, ac := range cfg.Agents {
		counts[e] = len(ac.IDs())
		agents += counts[e]
	}
	workers := cfg.Run.Workers
	if opts.Workers != nil {
		workers = *opts.Workers
	}
	// The config's setting declares the game fit for several threads; a
	// -workers override other than 1 asks for them.
	g.contract = cfg.Run.Workers != 1 || workers != 1
	if err := g.holdRange(opts.Shard, opts.Conductor, agents); err != nil { // cluster_range.go
		return nil, err
	}
	g.openHeldWorkers(workers, counts)
	for k, ac := range cfg.Agents {
		tree, _ := g.treeIndex(ac.Tree) // checked with the config
		for _, id := range ac.IDs() {
			g.opening = append(g.opening, id)
			ga := g.listAgent(id, tree, g.agentData(id, ac.Tree))
			if len(ac.Translate) > 0 {
				ga.kind = int32(k) + 1
			}
		}
	}
	l, err := g.load(false, nil)
	if err != nil {
		return nil, err
	}
	g.use(l)
	if g.held == nil { // a shard keeps the ids of the agents it does not make (agentID)
		g.opening = nil
	}
	if err := g.checkSchedule(); err != nil { // signals_typed.go
		return nil, err
	}
	return g, nil
}

// loadTrees loads every [[trees]] file; labels and positions are relative
// to the config's folder. A file several entries name is loaded once (each
// entry gets a Tree of its own over the same rules, for the name its
// agents see), and the trees together hold at most MaxGameRules rules.
// Loading stops at the tree that passes it, so that what a config makes
// the game load stays bounded whatever it names.
func (g *Game) loadTrees(decls []runtime.RuleDecl) (map[string]*runtime.Tree, []error) {
	out := map[string]*runtime.Tree{}
	var errs []error
	byFile := map[string]*runtime.Tree{}
	rules := 0
	for i, tc := range g.cfg.Trees {
		path := g.src(tc.File)
		t, again := byFile[path]
		if !again {
			var err error
			t, err = runtime.LoadFile(path, runtime.LoadOptions{Root: g.srcRoot(), Rules: decls,
				ReadFile: g.treeReader()})
			byFile[path] = t
			if err != nil {
				errs = append(errs, err)
			}
		}
		if t == nil {
			continue
		}
		if again {
			own := *t
			t = &own
		}
		if rules += len(t.Rules); rules > maxGameRules {
			errs = append(errs, fmt.Errorf("%s: trees[%d] (%s): the game's trees hold %d rules with this one; a game holds at most %d rules, every [[trees]] entry counted (an entry naming the same file as another counts again: it is bound again)",
				t.File, i, tc.Name, rules, maxGameRules))
			break
		}
		out[tc.Name] = t
	}
	return out, errs
}

// OpenTrace opens the trace the options or the config name. A trace that
// cannot be written is a runtime failure, not a config problem.
func (g *Game) OpenTrace() error {
	if g.cl != nil && g.opts.TraceTo == nil { // a cluster's trace is the conductor's to write (cluster.go)
		return nil
	}
	if g.opts.TraceTo != nil {
		g.env.Observer, g.env.Changes = g.engine(), g.engine()
		g.trace = NewTraceWriter(g.opts.TraceTo)
		g.trace.Explain = g.opts.Explain
		g.env.Explain = g.env.Explain || g.opts.Explain // recorded for a reader only: the trace, or the live view (debug.go)
		return nil
	}
	path := g.opts.Trace
	if path == "" {
		path = g.cfg.Trace.File
		if path != "" && path != "-" {
			path = g.cfg.Abs(path)
		}
	}
	switch path {
	case "":
		return nil
	case "-":
		g.env.Observer, g.env.Changes = g.engine(), g.engine()
		w := g.opts.Stdout
		if w == nil { // asked for by name: "-" is standard output
			w = os.Stdout
		}
		g.trace = NewTraceWriter(w)
		g.trace.Explain = g.opts.Explain
		g.env.Explain = g.env.Explain || g.opts.Explain // recorded for a reader only: the trace, or the live view (debug.go)
	default:
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("game: cannot write the trace: %w", err)
		}
		g.env.Observer, g.env.Changes = g.engine(), g.engine()
		g.trace = NewTraceWriter(f)
		g.trace.Explain = g.opts.Explain
		g.env.Explain = g.env.Explain || g.opts.Explain // recorded for a reader only: the trace, or the live view (debug.go)
		g.traceFile = f
	}
	return nil
}

// Start runs what happens once before the first step (the world script's
// init and spawn, when there is one).
func (g *Game) Start() error {
	g.syncWorkerEnvs() // workers.go: init's and spawn's signals reach every worker's agents traced
	err := g.startWorld()
	g.measureLua()
	return err
}

// measureLua measures every Lua state's memory once, after the start or a
// reload, so that the memory budget's next measurement waits for growth
// beyond what was loaded and spawned instead of falling inside the next
// steps. Every worker's state: one left out walked its agents in the first
// steps (at 100,000 agents on two workers, 0.3 allocations and 2-3% of the
// time of each of the first twenty steps).
func (g *Game) measureLua() {
	if g.lua == nil {
		return
	}
	for _, s := range append([]*scripts{g.lua}, g.extraScripts()...) {
		s.engine.MeasureMemory()
	}
}

// Registry is what trees are bound against: built-ins, scripts, plugins.
func (g *Game) Registry() *runtime.Registry { return g.reg }

// Trees are the bound trees by config name.
func (g *Game) Trees() map[string]*runtime.BoundTree { return g.trees }

// Warnings lists what binding with strict = false let through.
func (g *Game) Warnings() []string { return g.warnings }

// Agents returns the game's agents in config order (a shard's game,
// Options.Shard: the agents of its range).
func (g *Game) Agents() []*runtime.Agent {
	out := make([]*runtime.Agent, 0, len(g.agents))
	for _, a := range g.agents {
		if a.a != nil { // a shard's game makes only its range's (cluster_range.go)
			out = append(out, a.a)
		}
	}
	return out
}

// ids are the agent ids in config order.
func (g *Game) ids() []string {
	out := make([]string, len(g.agents))
	for i, ga := range g.agents {
		out[i] = g.agentID(ga)
	}
	return out
}

// Step is the number of steps done.
func (g *Game) Step() uint64 { return g.step }

// Time is the game time after step s: s × dt, a product rather than a sum
// so that a continued run sees the same times as an uninterrupted one.
func (g *Game) Time(s uint64) float64 { return float64(s) * g.cfg.Run.Dt }

// Run runs steps steps; WriteSummary reports on them.
func (g *Game) Run(steps int) error {
	if err := g.notClosed("run"); err != nil {
		return err
	}
	start := time.Now()
	first := g.step + 1
	var pluginTimes []host.CallTime
	if g.plugins != nil {
		pluginTimes = g.plugins.CallTimes()
	}
	agentSteps := 0
	path, every := g.savePlan()
	defer g.out.clearProgress()
	defer func() { g.out.flushRepeats(g.ids()) }() // the agents at the end, which inputs may have changed
	if g.step+uint64(max(steps, 0)) > MaxSteps {
		return fmt.Errorf("game: step %d and %d more steps go beyond step %d, the last a run can reach", g.step, steps, uint64(MaxSteps))
	}
	end := g.step + uint64(steps)
	var stopped error
	for {
		if g.debug != nil && !g.debug.Between(end) { // the live view may pause, or move the run back in time
			break
		}
		if g.step >= end {
			break
		}
		if g.stopRequested() {
			stopped = ErrStopped
			break
		}
		g.out.tick(int(g.step+1-first), steps)
		g.betweenSteps() // -realtime pacing, -watch reloads (pace.go, watch.go)
		n, err := g.hookedStep(false)
		agentSteps += n
		if err != nil {
			return err
		}
		if path != "" && every > 0 && g.step%uint64(every) == 0 {
			if err := g.Save(path); err != nil {
				return err
			}
		}
	}
	if path != "" {
		if err := g.Save(path); err != nil {
			return err
		}
	}
	if err := g.flushTrace(); err != nil {
		return err
	}
	if g.times != nil {
		for _, w := range g.workers {
			if w.times != nil && w.times != g.times {
				g.times.absorb(w.times)
			}
		}
	}
	if g.plugins != nil && g.times != nil {
		g.times.addPlugins(pluginTimes, g.plugins.CallTimes())
	}
	g.last = summary{steps: int(g.step + 1 - first), firstStep: first, dt: g.cfg.Run.Dt, agents: g.agents, wall: time.Since(start),
		agentSteps: agentSteps, actions: g.times}
	if g.gates != nil {
		g.last.gates = g.gates.List()
	}
	return stopped
}

// stopRequested reports whether Options.Stop is closed.
func (g *Game) stopRequested() bool {
	select {
	case <-g.opts.Stop:
		return true
	default:
		return false
	}
}

// savePlan is where and how often Run saves.
func (g *Game) savePlan() (string, int) {
	path, every := g.opts.SavePath, g.opts.SaveEvery
	if path == "" && g.cfg.Save.File != "" {
		path = g.cfg.Abs(g.cfg.Save.File)
	}
	if every < 0 {
		every = g.cfg.Save.Every
	}
	return path, every
}

// WriteSummary writes the closing summary of the last Run to the people's
// output (after Close, so that it comes last).
func (g *Game) WriteSummary() { g.last.write(g.out.w) }

// runStep runs one step of the game (SPEC §7): the world's tick, the
// scheduled signals due, every active agent's step in config order, then the
// signals agents sent each other. It returns the number of agent-steps.
// Advance and Run call it with the step callbacks around it and the
// debugger before it; a program calls those.
func (g *Game) runStep() (int, error) {
	g.stepping = true
	defer func() { g.stepping = false }()
	g.step++
	s := g.step
	t := g.Time(s)
	stepMark(s)      // cluster_stepmark.go: where callgrind's counts are cut into steps
	g.phases.start() // phases.go: what a step's parts cost, for btrun bench; nil otherwise
	if g.plugins != nil {
		g.plugins.Advance(s) // restarts the plugins whose restart is due
	}
	g.syncWorkerEnvs() // workers.go: before the tick and the schedule reach agents
	g.tickWorld(s, t)
	g.phases.mark(phaseTick)
	g.deliverSchedule(s, t) // signals.go
	g.phases.mark(phaseSchedule)
	n := g.stepAgents(t)
	g.phases.mark(phaseAgents)
	if err := g.reportSteps(s, t); err != nil { // report_pick.go
		return n, err
	}
	g.phases.mark(phaseReport)
	if err := g.deliverSent(s, t); err != nil { // signals.go: owed handlers, then the signals agents sent
		return n, err
	}
	g.phases.mark(phaseDelivery)
	return n, nil
}

// report writes an agent's step to the trace and the output and applies the
// failure policy.
func (g *Game) report(ga *gameAgent, s uint64, t float64) error {
	ga.err = g.errTexts.bounded(ga.err)
	a := ga.a
	if err := g.writeChanges(ga, s, t); err != nil {
		return err
	}
	if g.trace != nil {
		if err := g.trace.Step(s, t, a, ga.runs, ga.status, ga.err); err != nil {
			return fmt.Errorf("game: writing the trace: %w", err)
		}
	}
	policy := "restarts"
	if g.cfg.Run.OnFailure == "stop" {
		policy = "stopped"
	}
	switch ga.status {
	case runtime.Running:
		if l := a.CursorLabel(); l != g.doing[ga.idx] {
			g.out.change(t, a.ID(), g.doing[ga.idx], l)
			g.doing[ga.idx] = l
		}
	case runtime.Failure:
		ga.failures++
		g.out.failed(t, a.ID(), policy)
		g.doing[ga.idx] = ""
		ga.stopped = g.cfg.Run.OnFailure == "stop"
		g.activeStale = g.activeStale || ga.stopped
	case runtime.Errored:
		ga.errors++
		g.out.errored(t, a.ID(), ga.err, policy)
		g.doing[ga.idx] = ""
		ga.stopped = g.cfg.Run.OnFailure == "stop"
		g.activeStale = g.activeStale || ga.stopped
	}
	return nil
}

// stepDone is the runtime.Observer's StepDone (engine.go): it keeps the
// rules run in the step.
func (g *Game) stepDone(a *runtime.Agent, runs []runtime.RuleRun, st runtime.Status, err error) {
	ga := g.byPtr[a]
	ga.runs = append(ga.runs[:0], runs...)
	if g.debug != nil {
		g.debug.Stepped(a, runs, st, err)
	}
}

// log is the runtime.Logger's Log (engine.go): bt.log and ctx:log lines
// go to the output.
func (g *Game) log(a *runtime.Agent, label, msg string) {
	if g.debug != nil {
		g.debug.Logged(a, label, msg)
	}
	if g.out.quiet || g.silent {
		return
	}
	g.out.logged(a.Time(), a.ID(), label, msg)
}

func (g *Game) flushTrace() error {
	if g.trace == nil {
		return nil
	}
	if err := g.trace.Flush(); err != nil {
		return fmt.Errorf("game: writing the trace: %w", err)
	}
	return nil
}

// Close ends the game: agents are closed (cancelling running actions), the
// trace is flushed and closed. Calls after it return ErrClosed; a second
// Close does nothing.
func (g *Game) Close() error {
	if !g.life.state.CompareAndSwap(lifeIdle, lifeClosed) {
		if g.life.state.Load() == lifeClosed {
			return nil // closed already
		}
		return g.lifeErr("close the game")
	}
	var errs []error
	g.stopWatching()
	if g.par != nil {
		g.par.Close()
	}
	for _, ga := range g.agents {
		if ga.a == nil {
			continue // another shard's (cluster_range.go)
		}
		if err := ga.a.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := g.flushTrace(); err != nil {
		errs = append(errs, err)
	}
	if g.traceFile != nil {
		if err := g.traceFile.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := g.closePlugins(); err != nil {
		errs = append(errs, err)
	}
	g.closeScripts()
	return errors.Join(errs...)
}
