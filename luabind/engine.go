package luabind

import (
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"time"

	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// DefaultCallTimeout bounds every call into Lua when Options.CallTimeout is 0.
const DefaultCallTimeout = 100 * time.Millisecond

// Options configure an Engine.
type Options struct {
	// Paths are the script folders. Every .lua file in them (and their
	// subfolders) is loaded by Load, in path order; require finds modules
	// in them and nowhere else. Files named *.d.lua are editor annotations
	// and are skipped.
	Paths []string
	// Root is the folder that display paths (in errors, origins and chunk
	// names) are relative to; "" keeps paths as given.
	Root string
	// Seed seeds the world's generator, which bt.random and math.random use
	// outside an agent's calls (agents draw from their own: random.go).
	Seed int64
	// CallTimeout bounds each call into Lua; 0 means DefaultCallTimeout and
	// a negative value leaves calls unbounded.
	CallTimeout time.Duration
	// Output receives print(); nil means standard error (standard output
	// may carry a trace).
	Output io.Writer
	// ReadFile reads a script file; nil means reading it from disk as a
	// regular file of at most 16 MB. A game can refuse files outside a
	// folder through it (btrun's [scripts] root).
	ReadFile func(path string) ([]byte, error)
	// FS, when set, holds the scripts: Paths are folders in it and the
	// world module a file in it (slash-separated paths, as fs.FS names
	// them), and ReadFile, when nil, reads from it. An embed.FS or an
	// fstest.MapFS gives a game its scripts without files on disk.
	FS fs.FS
	// MemoryLimit is the memory budget of the Lua state in bytes (see
	// memory.go for how it is measured); 0 means DefaultMemoryLimit. No
	// string may be longer than an eighth of it, compiling a script may
	// not take more, and the compiled code of all scripts may not keep
	// more (compile.go).
	MemoryLimit int64
	// Code is where compiled scripts are kept and found: engines given
	// the same cache compile each source once (a game's workers, its hot
	// reloads). nil: the engine compiles its own.
	Code *CodeCache
}

// readScript reads a script file through Options.ReadFile.
func (e *Engine) readScript(path string) ([]byte, error) {
	switch {
	case e.opts.ReadFile != nil:
		return e.opts.ReadFile(path)
	case e.opts.FS != nil:
		return readfile.ReadFS(e.opts.FS, path, readfile.ScriptLimit, "script")
	}
	return readfile.Read(path, readfile.ScriptLimit, "script")
}

// DefaultMemoryLimit is the memory budget of a Lua state when
// Options.MemoryLimit is 0.
const DefaultMemoryLimit = 256 << 20

// limits are what scripts may use of a Lua state.
type limits struct {
	memory    int64 // bytes of Lua data
	maxString int   // bytes of one string
}

// Engine is one sandboxed Lua state with the scripts of a run, the `bt`
// module, and the ctx and params objects of every attached agent and bound
// rule. See the package documentation for the concurrency rules.
type Engine struct {
	opts  Options
	L     *lua.LState
	guard guard
	nums  numbers
	strs  texts
	rng   runtime.Rand // the world's generator (random.go)
	out   io.Writer

	bt *lua.LTable
	// Read-only tables (readonly.go): none until Freeze or SetShared.
	frozen  frozenSet
	modules moduleIndex

	loading    bool                  // bt.action and bt.condition are allowed
	actions    map[string]*actionDef // by name
	conditions map[string]*conditionDef
	scorers    map[string]*scorerDef
	hooks      map[string]*hookDef
	defOrder   []any // *actionDef, *conditionDef, *scorerDef and *hookDef in registration order

	limits      limits
	concatParts []string // scratch of luaConcat

	cur   *AgentData // the agent whose call is running; nil between calls
	calls uint64     // calls of actions, conditions and scorers (benchmarks count them)

	ctxKit   ctxKit
	trees    map[*runtime.Tree]*treeInfo
	attached map[*AgentData]struct{} // for the memory budget's walk
	params   map[paramsKey]*lua.LTable
	inline   map[string]*lua.FunctionProto

	closed   bool
	gameMeta *lua.LTable // the metatable of game data userdata (gamedata.go), made on first use
	save     saveTables  // the tables of the save under way

	laneBuf []runtime.Lane // scratch of saving and restoring lanes' ctx.state (lanestate.go)

	// dataCopies are the table fields of agent data handed out during the
	// current call, written back when it returns (gamedata_copies.go).
	dataCopies []dataCopy
}

// New creates an engine: a sandboxed LState with the bt module, ready to
// Load scripts. It checks that the script folders exist.
func New(opts Options) (*Engine, error) {
	for _, p := range opts.Paths {
		fi, err := opts.stat(p)
		if err != nil {
			return nil, fmt.Errorf("luabind: script folder: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("luabind: script folder %s is not a folder", p)
		}
	}
	if opts.CallTimeout == 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.MemoryLimit <= 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	e := &Engine{
		opts:       opts,
		out:        opts.Output,
		actions:    map[string]*actionDef{},
		conditions: map[string]*conditionDef{},
		scorers:    map[string]*scorerDef{},
		hooks:      map[string]*hookDef{},
		trees:      map[*runtime.Tree]*treeInfo{},
		params:     map[paramsKey]*lua.LTable{},
		inline:     map[string]*lua.FunctionProto{},
		attached:   map[*AgentData]struct{}{},
	}
	if e.out == nil {
		e.out = os.Stderr
	}
	e.limits = limits{memory: opts.MemoryLimit, maxString: int(min(opts.MemoryLimit/8, math.MaxInt32))}
	e.rng = runtime.NewRand(uint64(opts.Seed))
	e.L = lua.NewState(lua.Options{SkipOpenLibs: true})
	e.openSandbox()
	e.openBT()
	e.ctxKit.init(e)
	e.openStringLimits()
	e.guardWrites() // after every library function it replaces is in place
	e.guard.start(e, opts.CallTimeout, opts.MemoryLimit)
	return e, nil
}

// State is the engine's LState, for games that expose their own values to
// scripts (see Wrap). It must only be used from the goroutine that steps the
// engine's agents, and never be given a context of its own: the engine's
// call bounding owns it.
func (e *Engine) State() *lua.LState { return e.L }

// Close stops the watchdog and closes the LState. Agents must not be
// stepped afterwards.
func (e *Engine) Close() {
	if e.closed {
		return
	}
	e.closed = true
	e.guard.close()
	e.L.Close()
}

// DoString runs a chunk of Lua in the sandbox, bounded like every call. name
// is the chunk name that errors show ("setup.lua" gives "setup.lua:3: ...").
func (e *Engine) DoString(name, src string) error {
	if e.closed {
		return ErrClosed
	}
	proto, err := compile(name, src)
	if err != nil {
		return err
	}
	_, err = e.call(e.L.NewFunctionFromProto(proto), 0)
	return err
}

// call calls fn with args, protected and bounded, and returns its first
// result when nret is 1. The hot path (callAgent) is a copy without the
// variadic arguments.
func (e *Engine) call(fn *lua.LFunction, nret int, args ...lua.LValue) (lua.LValue, error) {
	return e.callWithin(e.guard.call, fn, nret, args...)
}

// callWithin is call bounded by b instead of the call timeout (the world's
// init and tick: budget.go).
func (e *Engine) callWithin(b *budget, fn *lua.LFunction, nret int, args ...lua.LValue) (lua.LValue, error) {
	L := e.L
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	e.guard.enterWithin(b)
	err := L.PCall(len(args), nret, nil)
	stopped := e.guard.leave()
	if len(e.dataCopies) > 0 { // a spawn(ctx) wrote into a table of ctx.agent
		if cerr := e.commitFields(fn); cerr != nil && err == nil {
			L.Pop(nret)
			return lua.LNil, cerr
		}
	}
	if err != nil {
		return lua.LNil, e.callError(err, stopped, fn)
	}
	if nret == 0 {
		return lua.LNil, nil
	}
	ret := L.Get(-1)
	L.Pop(nret)
	return ret, nil
}

// callError turns a failed protected call into a *ScriptError; positions
// missing from the message are taken from the function that was called.
func (e *Engine) callError(err error, stopped int32, fn *lua.LFunction) *ScriptError {
	sentinel := ErrScript
	switch stopped {
	case stopTimeout:
		sentinel = ErrTimeout
	case stopMemory:
		sentinel = ErrMemory
	}
	file, line := funcPos(fn)
	return scriptError(err, sentinel, file, line)
}

// funcPos is where a Lua function is defined.
func funcPos(fn *lua.LFunction) (string, int) {
	if fn == nil || fn.Proto == nil {
		return "", 0
	}
	return fn.Proto.SourceName, fn.Proto.LineDefined
}
