package game

import (
	"cmp"
	goruntime "runtime"
	"slices"
	"time"

	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// Many cores (run.workers): the agents are spread over N workers, each
// with its own runtime.Env and, with scripts, its own Lua state, registry
// and bound trees; an agent stays on its worker. The agents' steps run in
// parallel (runtime.Workers); everything else stays on the game's
// goroutine, between the parallel parts: the world's tick, the delivery of
// signals, the end of each round (gate takes and releases, plugin
// batches), the trace and the output. What steps write for later (signals
// to other agents, log lines, print) is kept per worker, tagged with the
// agent's place, and taken in config order at the end of each round: the
// order one goroutine would have produced. So the trace and saves are the
// same for every number of workers.
//
// With one worker (the default) none of this exists: the game steps as it
// always did, at no cost.

// worker is what one worker keeps from step to step; its Lua state and
// bound trees are the loadout's (workerLoad), remade by a reload.
type worker struct {
	g     *Game
	k     int
	env   *runtime.Env
	times *actionTimes // action times of its agents (the summary adds them up)
	lua   *scripts     // its loadout's scripts (use), for print

	// Kept during a round, taken at its end (endRound).
	outbox []tagged
	lines  []taggedLine

	agents int           // how many agents it steps, for the balance
	busy   time.Duration // time spent stepping them, for the balance
}

// tagged is a signal sent to other agents, with the place (config order)
// of its sender.
type tagged struct {
	idx int32
	r   routed
}

// taggedLine is a log line (ctx:log, bt.log) or a print of an agent's
// step, with the agent's place.
type taggedLine struct {
	idx   int32
	print bool
	a     *runtime.Agent
	label string
	text  string
}

// workerLoad is a worker's part of a loadout, for workers 1 .. N-1 (worker
// 0 uses the loadout's own registry, trees and scripts, the ones the
// world's init and tick run on).
type workerLoad struct {
	reg   *runtime.Registry
	trees map[string]*runtime.BoundTree
	lua   *scripts
}

// Workers is the number of workers the game steps its agents on.
func (g *Game) Workers() int {
	if g.workers == nil {
		return 1
	}
	return len(g.workers)
}

// resolveWorkers is the number of workers for a setting and the agents
// present at Open. A number set is the number used, whatever the agents
// present: a game that opens empty and gets its agents from AddAgent (or
// opens with a few and adds many) runs on the workers it asked for, the
// added agents going to the workers with the fewest. One per core (0) is
// never more than the agents present, unless there are none yet.
func resolveWorkers(setting, agents int) int {
	if setting > 0 {
		return setting
	}
	n := goruntime.NumCPU()
	if agents > 0 {
		n = min(n, agents)
	}
	return max(1, n)
}

// openWorkers sets up n workers over the game's agents, before the first
// load: each [[agents]] entry (counts[e] agents) is cut into n contiguous
// runs, one per worker (an entry's leftover agents going round the
// workers, entry after entry). So every worker gets the same mix of trees
// and as many agents as the others, give or take one (the same share of
// the work), and its agents sit together in memory (agents of different
// workers that share a cache line would slow both).
func (g *Game) openWorkers(n int, counts []int) {
	agents := 0
	for _, c := range counts {
		agents += c
	}
	if n <= 1 {
		return
	}
	g.workers = make([]*worker, n)
	for k := range g.workers {
		w := &worker{g: g, k: k}
		if k == 0 {
			w.env = g.env
		} else {
			w.env = &runtime.Env{RunawayLimit: g.env.RunawayLimit, Seed: g.env.Seed}
		}
		w.env.Router, w.env.Logger = w, w
		g.workers[k] = w
	}
	g.workerOf = make([]int32, 0, agents)
	rot := 0 // the worker the next entry's first leftover agent goes to
	for _, c := range counts {
		base, extra := c/n, c%n
		for k := range n {
			size := base
			if (k-rot+n)%n < extra { // leftovers go round the workers, entry after entry
				size++
			}
			for range size {
				g.workerOf = append(g.workerOf, int32(k))
			}
			g.workers[k].agents += size
		}
		rot = (rot + extra) % n
	}
	g.par = runtime.NewWorkers(n)
	g.par.Of = g.workerOf
}

// workerEnv is the Env the i-th agent (config order) is created with.
func (g *Game) workerEnv(i int) *runtime.Env {
	if g.workers == nil {
		return g.env
	}
	return g.workers[g.workerOf[i]].env
}

// loadWorkers loads the extra workers' parts of l: for each, its own Lua
// state with every script, its registry (scripts, plugins, built-ins) and
// the trees bound to it, joined to l's gates.
func (g *Game) loadWorkers(l *loadout, loaded map[string]*runtime.Tree) []error {
	var errs []error
	for k := 1; k < len(g.workers); k++ {
		wl := &workerLoad{reg: runtime.NewRegistry(), trees: map[string]*runtime.BoundTree{}}
		l.extra = append(l.extra, wl)
		var err error
		if wl.lua, err = g.openScripts(wl.reg, g.workers[k]); err != nil {
			return append(errs, err) // worker 0 loaded the same files: it reported this already
		}
		if err := g.registerWorkerPlugins(l, wl.reg); err != nil {
			return append(errs, err)
		}
		if err := g.registerGo(wl.reg); err != nil { // worker 0's registry reported it already
			return append(errs, err)
		}
		w := g.workers[k]
		if g.opts.Timing {
			if w.times == nil {
				w.times = newActionTimes()
			}
			w.times.wrap(wl.reg)
		}
		for _, tc := range g.cfg.Trees {
			if loaded[tc.Name] == nil {
				continue
			}
			b, err := runtime.Bind(loaded[tc.Name], wl.reg, runtime.BindOptions{Lenient: !g.cfg.Run.Strict, Skip: wl.lua.unloaded, Trees: treeSource(loaded)})
			if err != nil {
				return append(errs, err)
			}
			wl.trees[tc.Name] = b
			if l.gates != nil {
				if err := l.gates.Add(b); err != nil {
					return append(errs, err)
				}
			}
		}
		if kerrs := g.bindKinds(wl.trees, loaded, wl.reg, wl.lua); len(kerrs) > 0 {
			return append(errs, kerrs...)
		}
	}
	return errs
}

// registerWorkerPlugins registers the plugins in an extra worker's
// registry: the ones l started or updated, else the game's.
func (g *Game) registerWorkerPlugins(l *loadout, reg *runtime.Registry) error {
	switch {
	case l.update != nil:
		return l.update.Register(reg)
	case l.plugins != nil:
		return l.plugins.Register(reg)
	case g.plugins != nil:
		return g.plugins.Register(reg)
	}
	return nil
}

// treesFor are the bound trees the i-th agent (config order) is made from.
func (l *loadout) treesFor(g *Game, i int) map[string]*runtime.BoundTree {
	if g.workers == nil || g.workerOf[i] == 0 {
		return l.trees
	}
	return l.extra[g.workerOf[i]-1].trees
}

// luaFor is the scripts the i-th agent's Lua state holds, or nil.
func (l *loadout) luaFor(g *Game, i int) *scripts {
	if g.workers == nil || g.workerOf[i] == 0 {
		return l.lua
	}
	return l.extra[g.workerOf[i]-1].lua
}

// useWorkers points the workers at l's Lua states (for print).
func (g *Game) useWorkers(l *loadout) {
	for k, w := range g.workers {
		if k == 0 {
			w.lua = l.lua
		} else {
			w.lua = l.extra[k-1].lua
		}
	}
}

// syncWorkerEnvs gives every worker's env the first's observers, which
// change between steps (OpenTrace, the live view attaching). runStep calls
// it before anything reaches an agent: the world's tick and the schedule
// deliver signals before the agents step, and an agent of another worker
// whose env had no observer yet lost the trace's line for them.
func (g *Game) syncWorkerEnvs() {
	if len(g.workers) < 2 {
		return
	}
	w0 := g.workers[0].env
	for _, w := range g.workers[1:] {
		w.env.Observer, w.env.Changes, w.env.Gates, w.env.Explain = w0.Observer, w0.Changes, w0.Gates, w0.Explain
	}
}

// stepWorkers steps the active agents at time t on the workers, in rounds.
// g.active and g.activeGA hold them; g.activeOf their workers.
func (g *Game) stepWorkers(t float64) int {
	g.par.Of = g.activeOf
	g.par.Serial = g.debug != nil // the live view's hooks run on one goroutine
	g.par.Ended = g.startPicks(len(g.workers))
	g.parallel = true
	g.outcomes, g.roundsErr = g.par.StepAt(g.active, t)
	g.parallel = false
	for k, w := range g.workers {
		w.busy += g.par.Busy(k)
	}
	return len(g.activeGA)
}

// roundEnd is the first resolver of every round when agents step on
// workers: it takes what the round's steps kept (signals to other agents,
// log lines, prints) in config order, before the gates and the plugins
// end the round, as one goroutine would have had it by then.
type roundEnd struct{ g *Game }

func (r roundEnd) EndRound([]*runtime.Agent) error {
	g := r.g
	g.mergeOut = g.mergeOut[:0]
	g.mergeLines = g.mergeLines[:0]
	for _, w := range g.workers {
		g.mergeOut = append(g.mergeOut, w.outbox...)
		g.mergeLines = append(g.mergeLines, w.lines...)
		clear(w.outbox)
		w.outbox = w.outbox[:0]
		clear(w.lines)
		w.lines = w.lines[:0]
	}
	// Stable: an agent's own signals and lines keep their order.
	slices.SortStableFunc(g.mergeOut, func(a, b tagged) int { return cmp.Compare(a.idx, b.idx) })
	slices.SortStableFunc(g.mergeLines, func(a, b taggedLine) int { return cmp.Compare(a.idx, b.idx) })
	for _, m := range g.mergeOut {
		g.outbox = append(g.outbox, m.r)
	}
	for _, l := range g.mergeLines {
		if l.print {
			quietable{g}.Write([]byte(l.text))
		} else {
			g.log(l.a, l.label, l.text)
		}
	}
	clear(g.mergeOut)
	clear(g.mergeLines)
	return nil
}

func (roundEnd) Continue(*runtime.Agent) (runtime.Status, error, bool) { return 0, nil, false }

// Route is the runtime.Router of a worker's agents: Game.route, kept with
// the sender's place until the round ends.
func (w *worker) Route(from *runtime.Agent, to, signal string, data runtime.Value) error {
	g := w.g
	if !g.parallel {
		return g.route(from, to, signal, data)
	}
	ga, err := g.checkRoute(from, to, signal)
	if err != nil {
		return err
	}
	w.outbox = append(w.outbox, tagged{idx: ga.idx, r: routed{from: ga, to: to, signal: signal, data: data}})
	return nil
}

// Log is the runtime.Logger of a worker's agents: kept until the round
// ends, unless the output is quiet and no live view watches: Game.log
// would drop it then. btrun bench is quiet, and the example game's grunts
// log: keeping the lines only to drop them took about 1.5% of two
// workers' time.
func (w *worker) Log(a *runtime.Agent, label, msg string) {
	if !w.g.parallel {
		w.g.log(a, label, msg)
		return
	}
	if w.g.out.quiet && w.g.debug == nil {
		return
	}
	w.lines = append(w.lines, taggedLine{idx: w.g.byPtr[a].idx, a: a, label: label, text: msg})
}

// Write is print in a worker's Lua state: kept until the round ends when
// it comes from an agent's step, written at once otherwise (the world's
// init and tick, spawn).
func (w *worker) Write(p []byte) (int, error) {
	if !w.g.parallel || w.lua == nil || w.g.out.quiet {
		return quietable{w.g}.Write(p) // quiet: dropped at once (Log)
	}
	a := w.lua.engine.Current()
	idx := int32(-1)
	if a != nil {
		idx = w.g.byPtr[a].idx
	}
	w.lines = append(w.lines, taggedLine{idx: idx, print: true, text: string(p)})
	return len(p), nil
}

// workerHosts is the Lua side's part in saves and carries when agents live
// in several Lua states: each agent's tables are its own state's.
type workerHosts struct{ main *luabind.Engine }

func (h workerHosts) engine(a *runtime.Agent) *luabind.Engine {
	if e := luabind.EngineOf(a); e != nil {
		return e
	}
	return h.main
}

func (h workerHosts) EncodeHost(e *savecodec.Encoder, a *runtime.Agent) error {
	return h.engine(a).EncodeHost(e, a)
}

func (h workerHosts) CheckHost(a *runtime.Agent, d *savecodec.Decoder) error {
	return h.engine(a).CheckHost(a, d)
}

func (h workerHosts) RestoreHost(a *runtime.Agent, d *savecodec.Decoder) error {
	return h.engine(a).RestoreHost(a, d)
}

// host is l's runtime.HostState: its one engine, or the engines of its
// workers; nil without scripts.
func (l *loadout) host() runtime.HostState {
	if l.lua == nil {
		return nil
	}
	if len(l.extra) == 0 {
		return l.lua.engine
	}
	return workerHosts{l.lua.engine}
}

// engines are l's Lua engines, worker 0's first.
func (l *loadout) engines() []*luabind.Engine {
	if l.lua == nil {
		return nil
	}
	out := []*luabind.Engine{l.lua.engine}
	for _, wl := range l.extra {
		if wl.lua != nil {
			out = append(out, wl.lua.engine)
		}
	}
	return out
}

// beginSave starts a save session on every engine of l (a table shared by
// two agents is an error); endSave ends them.
func (l *loadout) beginSave() {
	for _, e := range l.engines() {
		e.BeginSave()
	}
}

func (l *loadout) endSave() {
	for _, e := range l.engines() {
		e.EndSave()
	}
}
