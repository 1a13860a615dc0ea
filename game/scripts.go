package game

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
	lua "github.com/yuin/gopher-lua"
)

// scripts is the Lua side of a game: the engine with the config's script
// folders, and the world module when the config names one.
type scripts struct {
	engine *luabind.Engine
	world  *luabind.World
	game   *lua.LTable // the `game` table handed to init and tick
	errors int         // world hook errors, for the summary
	shared bool        // game.shared was published as bt.shared
}

// compiledScripts keeps the game's compiled scripts: every worker's Lua
// state compiles each source once, and a reload only the ones that changed.
type compiledScripts struct{ cache *luabind.CodeCache }

// openScripts loads every script of the config's folders and registers
// their actions and conditions in reg. It returns the scripts even when
// some failed to load (their names are known: see unloaded), nil for a
// config without scripts.
// print writes where out says; nil is the people's output (quietable).
func (g *Game) openScripts(reg *runtime.Registry, out io.Writer) (*scripts, error) {
	c := g.cfg
	if len(c.Scripts.Paths) == 0 && c.Scripts.World == "" {
		return nil, nil
	}
	paths := make([]string, len(c.Scripts.Paths))
	for i, p := range c.Scripts.Paths {
		paths[i] = g.src(p)
	}
	var print io.Writer = quietable{g} // -quiet prints only the summary: Lua's print too
	if out != nil {
		print = out
	}
	if g.code.cache == nil {
		g.code.cache = luabind.NewCodeCache()
	}
	e, err := luabind.New(luabind.Options{Paths: paths, Root: g.srcRoot(), FS: g.opts.Files, Seed: g.seed(), ReadFile: g.reader(readfile.ScriptLimit, "script"),
		CallTimeout: c.Run.LuaCallTimeout.Duration, MemoryLimit: g.luaMemory(), Output: print, Code: g.code.cache})
	if err != nil {
		return nil, err
	}
	s := &scripts{engine: e}
	// Every step goes on after a problem, so that one run reports them all
	// (a script with a syntax error does not hide a typo in a tree).
	var errs []error
	if err := e.Load(); err != nil {
		errs = append(errs, err)
	}
	if err := e.Register(reg); err != nil {
		errs = append(errs, err)
	}
	if c.Scripts.World != "" {
		w, err := e.LoadWorld(g.src(c.Scripts.World))
		if err != nil && !errors.Is(err, luabind.ErrNotLoaded) { // else Load reported why
			errs = append(errs, err)
		}
		s.world = w
	}
	if g.contract && len(errs) == 0 {
		// Agents may step on several threads: they share nothing mutable
		// through module tables (luabind/readonly.go).
		e.Freeze()
	}
	return s, errors.Join(errs...)
}

// unloaded reports the action and condition names that scripts which
// failed to load would register: a tree that names them is not wrong, and
// reporting them as unknown would only repeat the script's error.
func (s *scripts) unloaded(kind, name string) bool {
	if s == nil {
		return false
	}
	_, ok := s.engine.Unloaded(kind, name)
	return ok
}

// attachScripts gives every agent its ctx, memory and agent tables and
// tells the engine each tree's name (ctx.tree).
func (l *loadout) attachScripts(g *Game) error {
	if l.lua == nil {
		return nil
	}
	for _, e := range l.engines() {
		for _, tc := range g.cfg.Trees {
			e.NameTree(l.trees[tc.Name].Tree, tc.Name)
		}
	}
	for i, a := range l.agents {
		if a == nil {
			continue // another shard's (cluster_range.go)
		}
		if err := l.luaFor(g, i).engine.AttachData(a, g.data[g.agents[i]]); err != nil {
			return err
		}
	}
	return nil
}

// startWorld builds the game table and runs init(game) and spawn(ctx) for
// every agent, in config order.
func (g *Game) startWorld() error {
	if g.lua == nil || g.lua.world == nil {
		return nil
	}
	g.lua.game = g.gameTable()
	g.updateGameTable(g.step, g.Time(g.step))
	g.setWorldTimeouts()
	if err := g.lua.world.Init(g.lua.game); err != nil {
		return worldTimeoutError(err, "world_init_timeout")
	}
	if err := g.initDone(); err != nil { // cluster_init49.go: a cluster's answers to the init's signals
		return err
	}
	g.publishShared(g.Time(g.step)) // what init published, for spawn
	// A cluster's start keeps what init wrote (cluster_nocopy_start.go).
	if err := g.startSpawns(); err != nil {
		return err
	}
	for _, ga := range g.agents {
		if ga.a == nil {
			continue // another shard's: it spawns there (cluster_range.go)
		}
		if err := g.luaOf(ga).world.Spawn(ga.a); err != nil { // on the agent's own Lua state
			return err
		}
		// What spawn changed (a signal it sent the agent) is part of step 0.
		if err := g.writeChanges(ga, g.step, g.Time(g.step)); err != nil {
			return err
		}
		if err := g.spawned(ga); err != nil { // cluster_nocopy_start.go
			return err
		}
	}
	return nil
}

// tickWorld runs tick(game) at the start of step s. An error in the world
// script is reported and the run goes on.
func (g *Game) tickWorld(s uint64, t float64) {
	if g.lua == nil || g.lua.world == nil {
		return
	}
	g.updateGameTable(s, t)
	if err := g.lua.world.Tick(g.lua.game); err != nil {
		err = worldTimeoutError(err, "world_tick_timeout")
		g.lua.errors++
		g.out.repeatable(t, "world", "error: "+g.errTexts.cut(err.Error()))
	}
	g.publishShared(t)
}

// publishShared copies what the world's tick left in game.shared to every
// Lua state as bt.shared, read-only, before the agents step. A game that
// never sets game.shared pays nothing.
func (g *Game) publishShared(t float64) {
	v := g.lua.game.RawGetString("shared")
	if v == lua.LNil && !g.lua.shared {
		return
	}
	g.lua.shared = v != lua.LNil
	for _, s := range append([]*scripts{g.lua}, g.extraScripts()...) {
		if err := s.engine.SetShared(v); err != nil {
			g.lua.errors++
			g.out.repeatable(t, "world", "error: "+g.errTexts.cut(err.Error()))
			return
		}
	}
}

// extraScripts are the scripts of workers 1 .. N-1.
func (g *Game) extraScripts() []*scripts {
	var out []*scripts
	for _, wl := range g.extra {
		if wl.lua != nil {
			out = append(out, wl.lua)
		}
	}
	return out
}

// gameTable makes the table the world script sees as `game`:
//
//	game.step, game.time, game.dt, game.seed   the clock and the run's seed
//	game.ids                                    agent ids in config order
//	game.agents[id]                             each agent's ctx.agent table
//	game.trees[id]                              each agent's tree name
//	game.signal(to, name [, data])              send a signal now (to = id or "all")
//	game.log(...)                               write to the run's output
func (g *Game) gameTable() *lua.LTable {
	L := g.lua.engine.State()
	t := L.NewTable()
	ids := L.NewTable()
	agents := L.NewTable()
	trees := L.NewTable()
	for _, ga := range g.agents {
		g.tableAgent(ids, agents, trees, ga)
	}
	t.RawSetString("ids", ids)
	t.RawSetString("agents", agents)
	t.RawSetString("trees", trees)
	t.RawSetString("dt", lua.LNumber(g.cfg.Run.Dt))
	t.RawSetString("seed", lua.LNumber(g.seed()))
	t.RawSetString("signal", L.NewFunction(g.luaSignal))
	t.RawSetString("log", L.NewFunction(g.luaLog))
	return t
}

func (g *Game) updateGameTable(s uint64, t float64) {
	g.lua.game.RawSetString("step", lua.LNumber(s))
	g.lua.game.RawSetString("time", lua.LNumber(t))
}

// luaSignal is game.signal(to, name [, data]) (or game:signal(...)).
func (g *Game) luaSignal(L *lua.LState) int {
	base := 1
	if L.Get(1) == g.lua.game {
		base = 2
	}
	to := L.CheckString(base)
	name := L.CheckString(base + 1)
	var data runtime.Value
	if L.GetTop() >= base+2 {
		var err error
		if data, err = luabind.DataOf(L.Get(base + 2)); err != nil {
			L.RaiseError("game.signal(%q, %q, data): %s", to, name, err.Error())
		}
	}
	s := g.step
	t := g.Time(s)
	if to == "all" {
		if g.worldSignals() { // a cluster's conductor: the shards check and deliver it (cluster_refuse.go)
			if err := g.worldSignal(name, data, nil); err != nil {
				L.RaiseError("game.signal(%q, %q, data): %s", to, name, err.Error())
			}
			return 0
		}
		if err := g.refuses(name, data, g.agents...); err != nil {
			L.RaiseError("game.signal(%q, %q, data): %s", to, name, err.Error())
		}
		if g.broadcast(name, data, "world") { // cluster_broadcast.go
			return 0
		}
		for _, ga := range g.agents {
			g.deliver(ga, name, data, "world", s, t)
		}
		return 0
	}
	ga, ok := g.byID[to]
	if !ok {
		L.ArgError(base, fmt.Sprintf("no agent %q", to))
	}
	if g.worldSignals() { // cluster_refuse.go
		if err := g.worldSignal(name, data, ga); err != nil {
			L.RaiseError("game.signal(%q, %q, data): %s", to, name, err.Error())
		}
		return 0
	}
	if err := g.refuses(name, data, ga); err != nil {
		L.RaiseError("game.signal(%q, %q, data): %s", to, name, err.Error())
	}
	g.deliver(ga, name, data, "world", s, t)
	return 0
}

// luaLog is game.log(...).
func (g *Game) luaLog(L *lua.LState) int {
	if g.silent {
		return 0
	}
	msg := ""
	for i := 1; i <= L.GetTop(); i++ {
		if i == 1 && L.Get(1) == g.lua.game {
			continue
		}
		if msg != "" {
			msg += " "
		}
		msg += L.ToStringMeta(L.Get(i)).String()
	}
	if g.debug != nil {
		g.debug.Logged(nil, "", msg)
	}
	g.out.line(g.Time(g.step), "world", msg)
	return 0
}

// closeScripts detaches nothing (agents are closed first) and closes the
// engine.
func (g *Game) closeScripts() {
	if g.lua != nil {
		g.lua.engine.Close()
	}
	for _, wl := range g.extra {
		if wl.lua != nil {
			wl.lua.engine.Close()
		}
	}
}

// luaOf is the scripts of the agent's Lua state.
func (g *Game) luaOf(ga *gameAgent) *scripts {
	if g.workers == nil || g.workerOf[ga.idx] == 0 {
		return g.lua
	}
	return g.extra[g.workerOf[ga.idx]-1].lua
}

// hostState is the Lua side's part in saves, or nil without scripts.
func (g *Game) hostState() runtime.HostState {
	if g.lua == nil {
		return nil
	}
	if g.extra != nil {
		return workerHosts{g.lua.engine}
	}
	return g.lua.engine
}

func (g *Game) randomState() uint64 {
	if g.lua == nil {
		return 0
	}
	return g.lua.engine.RandomState()
}

// encodeWorld writes the world script's save() as one Value (nil without
// one).
func (g *Game) encodeWorld(e *savecodec.Encoder) error {
	if g.lua == nil || g.lua.world == nil {
		e.ValueNil()
		return nil
	}
	return g.lua.world.EncodeSave(e)
}

// checkWorld checks a saved world Value can be given to load(t).
func (g *Game) checkWorld(v runtime.Value) error {
	if v.Kind != runtime.NilValue && (g.lua == nil || g.lua.world == nil) {
		return fmt.Errorf("the save holds a world state, but this config has no world script")
	}
	return nil
}

// restoreWorld gives the world its saved state and game.shared
// (shared_save.go), the random generator its saved position, and every Lua
// state game.shared again as bt.shared.
func (g *Game) restoreWorld(v runtime.Value, shared savedShared, seed int64, rng uint64) error {
	if g.lua == nil {
		return nil
	}
	g.lua.engine.SetRandomState(rng)
	if g.lua.world == nil {
		return nil
	}
	g.updateGameTable(g.step, g.Time(g.step))
	g.restoreShared(shared)
	err := g.lua.world.LoadValue(v)
	g.publishShared(g.Time(g.step)) // what reads bt.shared before the next tick reads what the saved run had
	return err
}

// quietable is where Lua's print writes: the people's output, but nothing
// with -quiet, while the live view replays steps, or for what the world's
// init and spawn print when a reload runs them again.
type quietable struct{ g *Game }

func (q quietable) Write(p []byte) (int, error) {
	if q.g.silent || q.g.out.quiet { // out.quiet: -quiet, or the live view replaying steps (Quietly)
		return len(p), nil
	}
	if q.g.out.log != nil {
		return slogWriter{log: q.g.out.log, level: slog.LevelInfo, source: "print"}.Write(p)
	}
	return q.g.out.w.Write(p)
}
