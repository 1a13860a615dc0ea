package luabind

import (
	"fmt"
	"runtime/metrics"
	"sync/atomic"
	"unsafe"

	"github.com/btrun/btrun/internal/readfile"
	lua "github.com/yuin/gopher-lua"
)

// The memory budget of a Lua state.
//
// gopher-lua allocates through Go's allocator with no hook, so a state's
// memory cannot be counted as it is allocated. It is measured instead, by a
// walk over everything the state can reach: its globals and registry, the
// modules, every attached agent's tables (ctx.memory, ctx.agent, ctx.state)
// and, during a call, the values in the registers of every running
// function. The walk adds up an estimate of the bytes behind each value:
//
//	table      96, plus 24 per array slot (a 16-byte interface value and
//	           the slice's spare room), plus 256 for a hash part and 96 per
//	           hash entry (a Go map's slot at its load), plus its keys,
//	           values and metatable
//	string     16 + its length rounded up to 8; a string of 32 bytes or
//	           more counts once however many slots hold it (they share its
//	           bytes)
//	number     8 (the box behind the interface value)
//	function   64 + 16 per upvalue, plus the upvalues' values; compiled code
//	           is not counted (its size is bounded by the script files')
//	userdata   48, plus its metatable and environment
//
// TestMemory_estimateFollowsTheHeap checks the estimate against the Go
// heap that typical data takes (arrays of numbers, maps of short strings,
// many small tables, long strings): it stays within a factor of two.
//
// A walk costs time in proportion to what the state holds (about 13 ms for
// 10,000 agents' small tables, BenchmarkMemory_walk), so it runs only when
// memory has grown: the guard's watchdog (guard.go) reads the Go heap's
// live size every 10 ms while calls run (runtime/metrics, a few
// microseconds; not while the engine is idle: idle.go) and, after
// each garbage collection, when it has grown by an eighth of the budget
// since the last walk (at two collections in a row: a buffer live at one
// collection only is no reason), asks for one. The walk itself must run on the
// state's goroutine, which does it at the next point where Go code of the
// engine runs: the start of the next call, or inside a call, a string
// function (every string longer than a few bytes is built by one:
// stringlib.go, concat.go). A walk stops counting once it passes the budget.
//
// Nothing is checked between two VM instructions but the call's stop flag,
// which must stay one load (guard.go). So a call that grows
// tables without building strings is stopped by the heap itself: when the
// live heap has grown by more than twice the budget since the last walk
// while the call runs (twice: the estimate's own margin), the watchdog
// stops the call, with the memory error, at its next instruction. One
// state steps at a time per engine, so such growth during its call is its
// own.
//
// A state found over its budget stops the call that finds it with an error
// at the instruction it was about to run (ErrMemory): a loop growing a table
// is stopped in the loop. A state still over its budget fails every later
// call at its first instruction, with the same error, until a walk finds it
// back under (after the next collection, or when Go code frees memory:
// Detach, a restore); other states, and the game, go on. Since walks follow
// the garbage collector, a state can pass its budget by what it allocates
// in one collection cycle before it is stopped: the budget bounds memory
// within a small factor, not to the byte. No single string is longer than
// an eighth of the budget (stringlib.go, concat.go), so no one allocation
// jumps far past it.

// walkGrowthDiv: the live heap must grow by the budget divided by this
// (and at least 1 MB) before a walk is asked for.
const walkGrowthDiv = 8

// memoryBudget is the guard's memory side.
type memoryBudget struct {
	e     *Engine
	limit int64

	// Set by the state's goroutine after each walk; read by the watchdog.
	baseline atomic.Uint64 // live heap at the last walk
	over     atomic.Bool   // the last walk found the state over its budget
	used     atomic.Int64  // what the last walk counted, or the heap's growth that stopped a call
	walks    atomic.Uint64 // walks done (tests and benchmarks count them)

	// Set by the watchdog (and by Go code that frees memory): a walk is due
	// at the next chance.
	pending atomic.Bool
	grown   int // collections in a row that found the heap grown (the watchdog's)
}

// afterCollection is the watchdog's look at the heap after a garbage
// collection: it asks for a walk when the heap has grown enough (or may
// have shrunk under a state that was over), and stops a call running while
// the heap grew by more than twice the budget.
func (m *memoryBudget) afterCollection(live uint64, calling bool, ctx *stopCtx) {
	base := m.baseline.Load()
	growth := uint64(max(m.limit/walkGrowthDiv, 1<<20))
	// Growth seen by two collections in a row: what is live at one
	// collection only (a batch of plugin calls in flight, a step's buffers)
	// is no reason to measure.
	if live > base+growth {
		m.grown++
	} else {
		m.grown = 0
	}
	if m.over.Load() || m.grown >= 2 {
		m.pending.Store(true)
		m.grown = 0
	}
	if calling && live > base && live-base > 2*uint64(m.limit) && !ctx.stopped() {
		m.used.Store(int64(live - base))
		ctx.stop(stopMemory)
	}
}

// liveHeap reads the Go heap's live bytes as of the last garbage
// collection and the number of collections so far.
func liveHeap() (live, cycles uint64) {
	s := [2]metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s[:])
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		cycles = s[1].Value.Uint64()
	}
	return live, cycles
}

// walk measures the state and records the result; it reports whether the
// state is over its budget. Only the state's goroutine calls it.
func (m *memoryBudget) walk() bool {
	live, _ := liveHeap()
	w := walker{limit: m.limit, seen: map[unsafe.Pointer]struct{}{}}
	m.pending.Store(false)
	m.e.memoryRoots(w.add)
	w.run()
	m.used.Store(w.total)
	m.baseline.Store(live)
	m.walks.Add(1)
	m.over.Store(w.total > m.limit)
	return w.total > m.limit
}

// errorMsg is the error a call stopped for memory raises.
func (m *memoryBudget) errorMsg() error { return memoryMsg{used: m.used.Load(), limit: m.limit} }

// memoryMsg is the error a state over its budget raises.
type memoryMsg struct{ used, limit int64 }

func (m memoryMsg) Error() string {
	return fmt.Sprintf("the Lua state holds %s or more, over its memory budget of %s (run.lua_memory); free what the script keeps (tables that only grow)",
		approxSize(m.used), readfile.Size(m.limit))
}

func approxSize(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return readfile.Size(n)
}

// MemoryUsed is what the last measurement of the state counted, in bytes,
// and the number of measurements so far (0 when none ran).
func (e *Engine) MemoryUsed() (bytes int64, walks uint64) {
	return e.guard.mem.used.Load(), e.guard.mem.walks.Load()
}

// MeasureMemory walks the state now and returns what it holds, in bytes
// (the same estimate the budget uses). It must not be called during a call.
func (e *Engine) MeasureMemory() int64 {
	e.guard.mem.walk()
	return e.guard.mem.used.Load()
}

// memoryRoots gives add everything the state can reach.
func (e *Engine) memoryRoots(add func(lua.LValue)) {
	e.stateRoots(add)
	L := e.L
	for st := range e.attached {
		add(st.ud)
		add(st.own)
		add(st.memory)
		add(st.data)
		if st.state.t != nil {
			add(st.state.t)
		}
		for _, rs := range st.laneStates { // the lanes' ctx.state (lanestate.go)
			if rs.t != nil {
				add(rs.t)
			}
		}
		if v, ok := st.agent.RuleValue().(lua.LValue); ok {
			add(v)
		}
	}
	for _, ud := range e.params {
		add(ud)
	}
	// The registers of the running functions: locals and temporaries.
	for level := 0; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		for n := 1; ; n++ {
			name, v := L.GetLocal(dbg, n)
			if name == "" {
				break
			}
			add(v)
		}
	}
}

// stateRoots gives add what the state reaches without its agents: the
// registry, the globals, the bt module and the modules' values.
func (e *Engine) stateRoots(add func(lua.LValue)) {
	L := e.L
	add(L.G.Registry)
	add(L.G.Global)
	add(L.Env)
	add(L.GetMetatable(lua.LString("")))
	if e.bt != nil {
		add(e.bt)
	}
	for _, m := range e.modules.order {
		if m.value != nil {
			add(m.value)
		}
	}
}

// walker adds up the estimate of what it is given, each value once.
type walker struct {
	limit int64
	total int64
	seen  map[unsafe.Pointer]struct{}
	todo  []lua.LValue
}

// Sizes of the estimate (see the top of the file).
const (
	sizeTable     = 96
	sizeArraySlot = 24
	sizeHashPart  = 256
	sizeHashEntry = 96
	sizeString    = 16
	sizeNumber    = 8
	sizeFunction  = 64
	sizeUpvalue   = 16
	sizeUserData  = 48
	sharedString  = 32 // strings this long or longer count once
)

func (w *walker) add(v lua.LValue) {
	if v != nil && w.total <= w.limit {
		w.todo = append(w.todo, v)
	}
}

// once reports whether p is met for the first time.
func (w *walker) once(p unsafe.Pointer) bool {
	if _, ok := w.seen[p]; ok {
		return false
	}
	w.seen[p] = struct{}{}
	return true
}

// run walks until nothing is left or the total passes the limit. It keeps
// its own stack, so deeply nested tables cannot exhaust the goroutine's.
func (w *walker) run() {
	for len(w.todo) > 0 && w.total <= w.limit {
		v := w.todo[len(w.todo)-1]
		w.todo = w.todo[:len(w.todo)-1]
		w.visit(v)
	}
	w.todo = nil
}

func (w *walker) visit(v lua.LValue) {
	switch v := v.(type) {
	case lua.LString:
		w.str(v)
	case lua.LNumber:
		w.total += sizeNumber
	case *lua.LTable:
		if !w.once(unsafe.Pointer(v)) {
			return
		}
		w.total += sizeTable
		if v.Metatable != nil {
			w.add(v.Metatable)
		}
		n := 0
		v.ForEach(func(k, val lua.LValue) {
			if w.total > w.limit {
				return
			}
			n++
			w.scalarOrLater(k)
			w.scalarOrLater(val)
		})
		array := min(n, v.Len())
		w.total += sizeArraySlot * int64(array)
		if hash := n - array; hash > 0 {
			w.total += sizeHashPart + sizeHashEntry*int64(hash)
		}
	case *lua.LFunction:
		if !w.once(unsafe.Pointer(v)) {
			return
		}
		w.total += sizeFunction + sizeUpvalue*int64(len(v.Upvalues))
		if v.Env != nil {
			w.add(v.Env)
		}
		for _, uv := range v.Upvalues {
			if uv != nil {
				w.add(uv.Value())
			}
		}
	case *lua.LUserData:
		if !w.once(unsafe.Pointer(v)) {
			return
		}
		w.total += sizeUserData
		if v.Metatable != nil {
			w.add(v.Metatable)
		}
		if v.Env != nil {
			w.add(v.Env)
		}
	}
}

// scalarOrLater counts strings and numbers at once (most table contents)
// and leaves the rest for the walk's stack.
func (w *walker) scalarOrLater(v lua.LValue) {
	switch v := v.(type) {
	case lua.LString:
		w.str(v)
	case lua.LNumber:
		w.total += sizeNumber
	case *lua.LNilType, lua.LBool:
	default:
		w.add(v)
	}
	// Keys of the array part are not stored; counting them as numbers
	// costs 8 bytes an element, within the estimate's slack.
}

func (w *walker) str(s lua.LString) {
	if len(s) >= sharedString && !w.once(unsafe.Pointer(unsafe.StringData(string(s)))) {
		return
	}
	w.total += sizeString + int64(len(s)+7)&^7
}
