package luabind

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// World is the world script of SPEC §7: a module of the script folders that
// returns a table of optional hooks, init(game), spawn(ctx), tick(game),
// save() and load(t). The game loop (not this package) decides when each
// runs; World only calls them, bounded like every call into Lua: spawn,
// save and load by Options.CallTimeout, init and tick by budgets of their
// own (SetTimeouts).
type World struct {
	e       *Engine
	module  string
	table   *lua.LTable
	hooks   [numHooks]*lua.LFunction
	budgets [numHooks]*budget // each hook's time budget (budget.go)
}

type hook int

const (
	hookInit hook = iota
	hookSpawn
	hookTick
	hookSave
	hookLoad
	numHooks
)

var hookNames = [numHooks]string{"init", "spawn", "tick", "save", "load"}

// LoadWorld requires the world module, named as require would name it
// ("world") or by its file ("scripts/ai/world.lua", as the config writes
// it). Call it after Load. Every hook is optional; a hook field that holds
// something other than a function is an error.
func (e *Engine) LoadWorld(module string) (*World, error) {
	if e.closed {
		return nil, ErrClosed
	}
	name, err := e.moduleName(module)
	if err != nil {
		return nil, err
	}
	if m := e.modules.byName[name]; m.state == modBroken || m.state == modFailed {
		return nil, fmt.Errorf("%w: the world module %q (%s) did not load; Load reported why", ErrNotLoaded, name, m.file)
	}
	v, err := e.require(name)
	if err != nil {
		return nil, fmt.Errorf("luabind: world module %q: %w", name, err)
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("%w: world module %q returns a %s; a world module returns a table of hooks (init, spawn, tick, save, load)", ErrScript, name, v.Type())
	}
	w := &World{e: e, module: name, table: t}
	for i := range w.budgets {
		w.budgets[i] = e.guard.call
	}
	for i, hn := range hookNames {
		switch f := t.RawGetString(hn).(type) {
		case *lua.LNilType:
		case *lua.LFunction:
			w.hooks[i] = f
		default:
			return nil, fmt.Errorf("%w: world module %q: %s is a %s, not a function", ErrScript, name, hn, f.Type())
		}
	}
	return w, nil
}

// moduleName maps a module name or a script's path to its module name.
func (e *Engine) moduleName(s string) (string, error) {
	if _, ok := e.modules.byName[s]; ok {
		return s, nil
	}
	if strings.HasSuffix(s, ".lua") {
		want := e.display(s)
		for _, m := range e.modules.byName { // broken modules too: LoadWorld says why they are missing
			if m.file == want || filepath.Clean(m.path) == filepath.Clean(s) {
				return m.name, nil
			}
		}
	}
	return "", fmt.Errorf("%w: world module %q is not a script in the script folders (%s)", ErrModule, s, strings.Join(e.displayPaths(), ", "))
}

// Module is the world's module name.
func (w *World) Module() string { return w.module }

// Table is the world module's table.
func (w *World) Table() *lua.LTable { return w.table }

// Has reports whether the module defines the hook ("init", "spawn", ...).
func (w *World) Has(name string) bool {
	for i, hn := range hookNames {
		if hn == name {
			return w.hooks[i] != nil
		}
	}
	return false
}

// SetTimeouts gives init and tick budgets of their own instead of
// Options.CallTimeout, which spawn, save and load keep: init typically
// walks every agent once, and tick does the whole world's work of a step,
// so a game sizes them from the work it expects (btrun from its number of
// agents). A budget is kept as the call timeout is, in busy CPU time
// (guard.go); a call over it is stopped with ErrTimeout at its line, the
// message naming "the world's init timeout" or "the world's tick timeout".
// A negative timeout leaves the hook unbounded; 0 gives it the call
// timeout. Call it between calls, from the engine's goroutine.
func (w *World) SetTimeouts(init, tick time.Duration) {
	period := planWatch(w.e.guard.timeout).period
	for _, h := range []struct {
		hook hook
		d    time.Duration
	}{{hookInit, init}, {hookTick, tick}} {
		if h.d == 0 {
			w.budgets[h.hook] = w.e.guard.call
		} else {
			w.budgets[h.hook] = newBudget(h.d, period, "the world's "+hookNames[h.hook]+" timeout")
		}
	}
}

func (w *World) call(h hook, cur *AgentData, nret int, args ...lua.LValue) (lua.LValue, error) {
	fn := w.hooks[h]
	if fn == nil {
		return lua.LNil, nil
	}
	e := w.e
	prev := e.cur
	e.cur = cur
	v, err := e.callWithin(w.budgets[h], fn, nret, args...)
	e.cur = prev
	if err != nil {
		return lua.LNil, fmt.Errorf("luabind: world module %q, %s: %w", w.module, hookNames[h], err)
	}
	return v, nil
}

// Init calls init(game) once, before any agent spawns.
func (w *World) Init(game *lua.LTable) error {
	_, err := w.call(hookInit, nil, 0, game)
	return err
}

// Spawn calls spawn(ctx) for a new agent (attaching it if needed) so that
// the world can fill ctx.agent and ctx.memory.
func (w *World) Spawn(a *runtime.Agent) error {
	st, err := w.e.agentData(a)
	if err != nil {
		return err
	}
	st.sync()
	_, err = w.call(hookSpawn, st, 0, st.ud)
	return err
}

// Tick calls tick(game) once per step, before the agents step.
func (w *World) Tick(game *lua.LTable) error {
	_, err := w.call(hookTick, nil, 0, game)
	return err
}

// Save calls save() and returns its value (nil when the hook is absent).
func (w *World) Save() (lua.LValue, error) { return w.call(hookSave, nil, 1) }

// Load calls load(v) with a value Save returned earlier.
func (w *World) Load(v lua.LValue) error {
	_, err := w.call(hookLoad, nil, 0, v)
	return err
}
