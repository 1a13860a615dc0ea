package game

import (
	"errors"
	"fmt"
	"io"

	"github.com/btrun/btrun/plugins/host"
	"github.com/btrun/btrun/runtime"
)

// loadout is what the config's files load into: the registry, the bound
// trees, the Lua engine with the scripts, the plugins, and the agents bound
// to them. Open makes the first one; a hot reload makes the next one from
// the files as they are now and, when it loads, carries the agents over to
// it (reload.go). The game loop's own state (step, schedule, bookkeeping per
// agent, trace, output) is not part of it.
type loadout struct {
	reg      *runtime.Registry
	trees    map[string]*runtime.BoundTree
	lua      *scripts
	plugins  *host.Set      // started by this load (Open); nil when it uses the game's
	update   *host.Update   // a reload's rebuilt plugins, serving once committed; nil when none
	gates    *runtime.Gates // the gates its agents share; nil when no tree declares one (gates.go)
	warnings []string       // what binding with strict = false let through
	agents   []*runtime.Agent
	extra    []*workerLoad // workers 1 .. N-1's parts (workers.go); nil with one worker
}

// load loads everything the config names: trees, scripts and plugins; binds
// the trees; creates the agents and attaches them to the scripts. Open
// starts every plugin (reload false); a reload uses the game's running
// plugins, building again and restarting the ones named in rebuild whose
// build changed. Every problem found is reported (ErrorList or joined
// errors); on error, what the load started is stopped.
func (g *Game) load(reload bool, rebuild []string) (*loadout, error) {
	// What this load compiled is what the next one can reuse: every
	// worker's Lua state shares the compiled scripts, and a reload
	// compiles only the scripts that changed.
	defer g.sweepCode()
	cfg := g.cfg
	l := &loadout{reg: runtime.NewRegistry(), trees: map[string]*runtime.BoundTree{}}
	// Go first: the rules it registers (btrun's and the program's) are
	// tags the trees may use (rules.go).
	goErr := g.registerGo(l.reg)
	loaded, errs := g.loadTrees(l.reg.RuleDecls())
	var err error
	var print io.Writer
	if g.workers != nil {
		print = g.workers[0]
	}
	l.lua, err = g.openScripts(l.reg, print)
	if err != nil {
		errs = append(errs, err)
	}
	if goErr != nil {
		errs = append(errs, goErr)
	}
	if err := g.registerPlugins(l, reload, rebuild); err != nil {
		errs = append(errs, err)
		if errors.Is(err, ErrPluginStart) { // binding without the plugin's names would only add noise
			l.close()
			return nil, errors.Join(errs...)
		}
	}
	if g.opts.Timing {
		if g.times == nil {
			g.times = newActionTimes()
		}
		g.times.wrap(l.reg)
	}
	for _, tc := range cfg.Trees {
		if loaded[tc.Name] == nil {
			continue // its load errors are reported already
		}
		b, err := runtime.Bind(loaded[tc.Name], l.reg, runtime.BindOptions{Lenient: !cfg.Run.Strict, Skip: l.lua.unloaded, Trees: treeSource(loaded)})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, w := range b.Warnings {
			l.warnings = append(l.warnings, w.Error())
		}
		l.trees[tc.Name] = b
	}
	errs = append(errs, g.bindKinds(l.trees, loaded, l.reg, l.lua)...)
	if err := g.openGates(l); err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 && g.workers != nil {
		errs = g.loadWorkers(l, loaded)
	}
	if len(errs) > 0 {
		l.close()
		return nil, errors.Join(errs...)
	}
	// New agents join the Env's Gates: this loadout's, while they are made
	// (a reload's agents must not join the gates the game still steps with).
	running := g.env.Gates
	g.setGates(l.gates)
	for i, ga := range g.agents {
		var a *runtime.Agent
		if g.holdsPlace(i) { // a shard's game makes only its range's agents (cluster_range.go)
			a = l.treesFor(g, i)[g.boundKey(ga)].NewAgent(g.agentID(ga), g.workerEnv(i))
		}
		l.agents = append(l.agents, a)
	}
	g.setGates(running)
	if err := l.attachScripts(g); err != nil {
		l.close()
		return nil, err
	}
	l.attachData(g)
	return l, nil
}

// registerPlugins registers what the plugins provide: Open starts them; a
// reload prepares the rebuilt ones (l.update) and registers the others as
// they run.
func (g *Game) registerPlugins(l *loadout, reload bool, rebuild []string) error {
	if !reload {
		set, err := g.startPlugins()
		if err != nil || set == nil {
			return err
		}
		l.plugins = set
		return set.Register(l.reg)
	}
	if g.plugins == nil {
		return nil
	}
	if len(rebuild) == 0 {
		return g.plugins.Register(l.reg)
	}
	ctx, cancel := g.stoppable()
	defer cancel()
	u, err := g.plugins.Prepare(ctx, rebuild)
	if err != nil {
		// The running builds' names, so that binding reports the other
		// problems of the reload without noise.
		return errors.Join(fmt.Errorf("%w: %w", ErrPluginBuild, err), g.plugins.Register(l.reg))
	}
	l.update = u
	return u.Register(l.reg)
}

// use makes l the game's loadout: its registry, trees, scripts and
// plugins, and its agents behind the game's bookkeeping (in config order).
func (g *Game) use(l *loadout) {
	g.reg, g.trees, g.lua, g.warnings = l.reg, l.trees, l.lua, l.warnings
	if l.plugins != nil {
		g.plugins = l.plugins
	}
	g.gates = l.gates
	g.setGates(l.gates)
	g.extra = l.extra
	g.useWorkers(l)
	g.openRounds()
	clear(g.byPtr)
	g.activeStale = true
	for i, ga := range g.agents {
		ga.a = l.agents[i]
		if ga.a != nil {
			g.byPtr[ga.a] = ga
		}
	}
	if g.held != nil {
		g.listTrees() // the trees of the agents it does not make (cluster_range.go)
	}
}

// current is the loadout the game uses.
func (g *Game) current() *loadout {
	l := &loadout{reg: g.reg, trees: g.trees, lua: g.lua, warnings: g.warnings, gates: g.gates, agents: make([]*runtime.Agent, len(g.agents)),
		extra: g.extra}
	for i, ga := range g.agents {
		l.agents[i] = ga.a
	}
	return l
}

// close stops what a loadout that will not be used started: its Lua state,
// the plugins it started, the new builds it prepared.
func (l *loadout) close() {
	if l.update != nil {
		l.update.Abort()
	}
	if l.plugins != nil {
		l.plugins.Close()
	}
	if l.lua != nil {
		l.lua.engine.Close()
	}
	l.closeExtra()
}

// closeExtra closes the extra workers' Lua states.
func (l *loadout) closeExtra() {
	for _, wl := range l.extra {
		if wl.lua != nil {
			wl.lua.engine.Close()
		}
	}
}

// setGates makes gates the Gates of the agents made next, on every
// worker.
func (g *Game) setGates(gates *runtime.Gates) {
	g.env.Gates = gates
	for _, w := range g.workers {
		w.env.Gates = gates
	}
}

// sweepCode forgets the compiled scripts the last load did not use.
func (g *Game) sweepCode() {
	if g.code.cache != nil {
		g.code.cache.Sweep()
	}
}
