package luabind

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// The ctx object.
//
// ctx is a userdata (so scripts cannot rawset it), one per agent, created
// at Attach. A read goes down a chain of tables that Go brings up to date
// before each call, mostly by switching metatable pointers, which costs
// nothing:
//
//	ctx (userdata) --shared metatable, __index--> view
//	view (shared): time, dt, step, agent, state of the agent being called
//	  --metatable __index--> methods
//	methods (shared): jump, signal, send, var, setVar, stamp, clearStamp,
//	    since, gateSlot, log
//	  --metatable: the called agent's own table (a pointer switch)-->
//	own (per agent): id, tree, memory
//	  --metatable: the table of the agent's rule and firstRun (a pointer
//	    switch)-->
//	rule table (shared per rule and firstRun value): rule, firstRun
//	  --metatable __index--> missing (a Go function: ctx.agent at its first
//	    read, ctx.state at an agent's first use; rejects unknown names)
//
// Writes happen only when a value changes: time, dt and step when the
// called agent's differ from the last one's (agents stepped together share
// them, so about once per round), agent and state when the called agent
// changes (two writes per agent-step), state also when the cursor arrives
// at a rule. Both are written only once scripts use them: agent after the
// first read of ctx.agent (it is missing from the view until then, so the
// read reaches ctxMissing), state for agents whose scripts used ctx.state;
// scripts that use neither pay nothing (the trivial row of
// BenchmarkSeedTreeLua stays within 1.5 times its floor). What decided the
// layout:
//
//   - With thousands of agents, an agent's tables are out of the CPU cache
//     when its turn comes. ctx.agent and ctx.state, read in nearly every
//     call, are found in the view, which stays in cache, rather than in a
//     per-agent table that would be one more cache miss per agent-step:
//     on the example game's wanderers that took a sixth of the last-level
//     cache misses away (callgrind's cache model) for two writes per
//     agent-step. Fields read seldom (id, tree, memory) stay per agent.
//   - gopher-lua boxes the key of every __index *function* call into a new
//     string value: one allocation per read. Every read is a table hit
//     instead; the function at the end only reports typos.
//   - ctx.state is handed out when the first call at a rule is made, not on
//     first use, for the same reason: a hit in the view instead of a walk
//     down the chain into Go. Its table is the agent's one reused table
//     (reuseState), so handing it out costs no allocation. A parallel's
//     lanes each have a ctx.state of their own, so each lane has its own
//     reused table too.
//
// The price: ctx's fields are right during its own agent's calls; a ctx
// kept in a global and read during another agent's call shows that other
// agent's fields. Methods are not affected: they find their agent through
// the userdata.

// AgentData is the engine's per-agent value, stored with
// runtime.Agent.SetUserData: the agent's ctx userdata and its tables.
//
// GetField and SetField let Go code (the plugin host) read and write the
// top-level scalar fields of ctx.agent.
type AgentData struct {
	e      *Engine
	agent  *runtime.Agent
	ud     *lua.LUserData
	own    *lua.LTable // the agent's link of the chain
	memory *lua.LTable
	data   *lua.LTable // ctx.agent
	tree   *treeInfo

	// What own links to and holds now.
	rule     int32
	firstRun bool

	// state is the table ctx.state gives out in the agent's own context,
	// emptied and reused at each rule (see reuseState); laneStates the same
	// for each lane of its parallels, by lane slot (runtime.Agent.Lane).
	// usesState turns true when the agent's scripts first use ctx.state.
	state      reusedState
	laneStates []reusedState
	usesState  bool

	// game is the game's own data for the agent, which ctx.agent then is
	// (gameUD) instead of the data table; nil for most agents (gamedata.go).
	game   runtime.AgentData
	gameUD *lua.LUserData
}

// reusedState is the ctx.state table of one context (the agent's own, or a
// lane's), emptied and reused at each rule.
type reusedState struct {
	t      *lua.LTable
	reuses int // visits the table has served (reuseState)
}

// view is the shared table ctx reads start at, and what it holds now.
type view struct {
	t        *lua.LTable // time, dt, step, agent, state
	methods  *lua.LTable // its metatable's __index; links to the holder's own table
	holder   *AgentData
	time, dt float64
	step     uint64
	state    *lua.LTable // what t.state holds (nil: absent)

	// agentRead turns true at the first read of ctx.agent (which finds it
	// missing from the view, see ctxMissing); from then on t.agent is kept
	// up to date. Scripts that never read it pay no write per agent.
	agentRead bool
}

// treeInfo is what ctx needs of a tree: its name and, per rule and
// firstRun value, the rule table of the chain (built on first use).
type treeInfo struct {
	tree  *runtime.Tree
	name  lua.LValue
	rules [][2]*lua.LTable
}

// ruleTable is the chain's table for rule r and firstRun fr.
func (e *Engine) ruleTable(ti *treeInfo, r int32, fr bool) *lua.LTable {
	i := 0
	if fr {
		i = 1
	}
	t := ti.rules[r][i]
	if t == nil {
		t = e.L.CreateTable(0, 3)
		t.RawSetString(keyRule, lua.LString(ti.tree.Rules[r].Label))
		t.RawSetString(keyFirstRun, lua.LBool(fr))
		t.RawSetString("__index", t)
		t.Metatable = e.ctxKit.missing
		ti.rules[r][i] = t
	}
	return t
}

func (e *Engine) treeInfo(t *runtime.Tree) *treeInfo {
	ti, ok := e.trees[t]
	if !ok {
		ti = &treeInfo{tree: t, name: lua.LString(t.File), rules: make([][2]*lua.LTable, len(t.Rules))}
		e.trees[t] = ti
	}
	return ti
}

// composedInfo is treeInfo of the composite a runs (its template's tree
// with the trees grafted into its slots), named as its template is.
func (e *Engine) composedInfo(a *runtime.Agent) *treeInfo {
	t := a.Tree().Tree
	ti, ok := e.trees[t]
	if !ok {
		ti = e.treeInfo(t)
		ti.name = e.treeInfo(a.Template().Tree).name
	}
	return ti
}

// NameTree sets what ctx.tree shows for agents of t attached from now on
// (by default the tree's file path); btrun gives the config's tree name.
func (e *Engine) NameTree(t *runtime.Tree, name string) {
	e.treeInfo(t).name = lua.LString(name)
}

// Attach creates the agent's ctx, ctx.memory and ctx.agent and stores them
// in the agent's UserData. Attaching an agent twice is a no-op. Agents that
// are stepped without being attached are attached at their first call.
func (e *Engine) Attach(a *runtime.Agent) error {
	_, err := e.attach(a)
	return err
}

func (e *Engine) attach(a *runtime.Agent) (*AgentData, error) {
	if e.closed {
		return nil, ErrClosed
	}
	switch v := a.UserData().(type) {
	case nil:
	case *AgentData:
		if v.e == e {
			return v, nil
		}
		return nil, fmt.Errorf("%w: agent %s is attached to another engine", ErrAgent, a.ID())
	default:
		return nil, fmt.Errorf("%w: agent %s already holds user data of type %T", ErrAgent, a.ID(), v)
	}
	// Sized tables: L.NewTable preallocates a 32-slot array and a 32-entry
	// map, and a table made with no hash size gets a 32-entry map at its
	// first string key: about 5 KB a table, which for thousands of agents
	// was most of their memory. These sizes fit what a game usually keeps
	// (ctx.agent: a position, a heading, a few fields of its world).
	L := e.L
	st := &AgentData{
		e: e, agent: a, tree: e.treeInfo(a.Tree().Tree),
		own: L.CreateTable(0, 4), memory: L.CreateTable(0, 2), data: L.CreateTable(0, 8), rule: -1,
	}
	o := st.own
	// A Go map of up to eight entries is one group searched slot by slot
	// in insertion order: what is read most goes first.
	o.RawSetString("__index", o)
	o.RawSetString(keyMemory, st.memory)
	o.RawSetString(keyID, lua.LString(a.ID()))
	o.RawSetString(keyTree, st.tree.name)
	st.ud = &lua.LUserData{Value: st, Env: L.Env, Metatable: e.ctxKit.meta}
	a.SetUserData(st)
	e.attached[st] = struct{}{}
	return st, nil
}

// Detach forgets the agent: its UserData is cleared and its Lua values
// become garbage. Close the agent first (runtime.Agent.Close) so that a
// running Lua action gets its cancel call.
func (e *Engine) Detach(a *runtime.Agent) {
	if st, ok := a.UserData().(*AgentData); ok && st.e == e {
		a.SetUserData(nil)
		delete(e.attached, st)
		e.guard.mem.pending.Store(true) // the agent's tables are freed
		st.agent = nil
		if e.ctxKit.view.holder == st {
			e.ctxKit.view.holder = nil
		}
	}
}

// agentData is the hot path's lookup of an agent's data.
func (e *Engine) agentData(a *runtime.Agent) (*AgentData, error) {
	if st, ok := a.UserData().(*AgentData); ok && st.e == e {
		return st, nil
	}
	return e.attach(a)
}

// Data returns the agent's data, attaching it if needed.
func (e *Engine) Data(a *runtime.Agent) (*AgentData, error) { return e.agentData(a) }

// Ctx is the agent's ctx userdata, as scripts see it.
func (st *AgentData) Ctx() *lua.LUserData { return st.ud }

// Memory is ctx.memory.
func (st *AgentData) Memory() *lua.LTable { return st.memory }

// Table is ctx.agent: the game's data for this agent. When the game
// attached its own data (AttachData), ctx.agent is that (AgentValue) and
// this table stays empty.
func (st *AgentData) Table() *lua.LTable { return st.data }

// State is ctx.state of the agent's current rule (during a call in a
// parallel's lane: the lane's), or nil when no Lua call was made since the
// cursor arrived there.
func (st *AgentData) State() *lua.LTable {
	t, _ := st.agent.RuleValue().(*lua.LTable)
	return t
}

// GetField reads the top-level field name of ctx.agent. Numbers come back as
// float64, strings as string, booleans as bool; a missing field, or one that
// holds a table, function or userdata, reports false.
func (st *AgentData) GetField(name string) (any, bool) {
	if st.game != nil {
		return st.game.Field(name).Scalar()
	}
	switch v := st.data.RawGetString(name).(type) {
	case lua.LNumber:
		return float64(v), true
	case lua.LString:
		return string(v), true
	case lua.LBool:
		return bool(v), true
	}
	return nil, false
}

// SetField writes the top-level field name of ctx.agent: a float64 (or any
// Go integer or float32, stored as a number), string or bool; nil deletes
// the field. Other types are an error.
func (st *AgentData) SetField(name string, v any) error {
	rv, ok := runtime.ScalarValue(v)
	if !ok {
		return fmt.Errorf("luabind: agent field %q: cannot store a %T; fields hold float64, string, bool or nil", name, v)
	}
	if st.game != nil {
		return st.game.SetField(name, rv)
	}
	var lv lua.LValue = lua.LNil
	switch rv.Kind {
	case runtime.NumberValue:
		lv = lua.LNumber(rv.Num)
	case runtime.StringValue:
		lv = lua.LString(rv.Str)
	case runtime.BoolValue:
		lv = lua.LBool(rv.Bool)
	}
	st.data.RawSetString(name, lv)
	return nil
}

// NumberField reads the top-level field name of ctx.agent when it holds a
// number: GetField without boxing the float64 in an interface (the plugin
// host reads fields this way).
func (st *AgentData) NumberField(name string) (float64, bool) {
	if st.game != nil {
		v := st.game.Field(name)
		return v.Num, v.Kind == runtime.NumberValue
	}
	n, ok := st.data.RawGetString(name).(lua.LNumber)
	return float64(n), ok
}

// SetNumberField sets the top-level field name of ctx.agent to a number
// without an allocation.
func (st *AgentData) SetNumberField(name string, v float64) error {
	if st.game != nil {
		return st.game.SetField(name, runtime.Number(v))
	}
	st.data.RawSetString(name, st.e.nums.box(v))
	return nil
}

// sync links the chain to st's agent before a call into Lua.
func (st *AgentData) sync() {
	e := st.e
	v := &e.ctxKit.view
	a := st.agent
	if v.holder != st {
		v.holder = st
		v.methods.Metatable = st.own
		if v.agentRead {
			v.t.RawSetString(keyAgent, st.AgentValue())
		}
	}
	if x := a.Time(); x != v.time {
		v.time = x
		v.t.RawSetString(keyTime, e.nums.box(x))
	}
	if x := a.Dt(); x != v.dt {
		v.dt = x
		v.t.RawSetString(keyDt, e.nums.box(x))
	}
	if x := a.StepCount(); x != v.step {
		v.step = x
		v.t.RawSetString(keyStep, e.nums.box(float64(x)))
	}
	if t := a.Tree().Tree; t != st.tree.tree { // a slot took another tree: the agent runs another composite
		st.tree, st.rule = e.composedInfo(a), -1
	}
	if r, fr := a.Rule(), a.FirstRun(); r != st.rule || fr != st.firstRun {
		st.rule, st.firstRun = r, fr
		st.own.Metatable = e.ruleTable(st.tree, r, fr)
	}
	tb, _ := a.RuleValue().(*lua.LTable)
	if tb == nil && st.usesState {
		// The cursor arrived at a rule since the last call, and this
		// agent's scripts use ctx.state: its emptied state table is handed
		// out now rather than on first use, so that reading ctx.state is a
		// hit in the view instead of a walk down the chain to a Go function.
		tb = e.reuseState(st, a.Lane())
		a.SetRuleValue(tb)
	}
	if tb != v.state {
		v.state = tb
		if tb != nil {
			v.t.RawSetString(keyState, tb)
		} else {
			v.t.RawSetString(keyState, lua.LNil)
		}
	}
}

// The keys of ctx's tables, the very strings the compiler keeps for the
// same constants (gopher-lua patch "internconst"): a script's ctx.time is
// then found by comparing pointers, not bytes.
var (
	keyAgent, keyState, keyTime = lua.InternString("agent"), lua.InternString("state"), lua.InternString("time")
	keyDt, keyStep, keyMemory   = lua.InternString("dt"), lua.InternString("step"), lua.InternString("memory")
	keyID, keyTree, keyRule     = lua.InternString("id"), lua.InternString("tree"), lua.InternString("rule")
	keyFirstRun                 = lua.InternString("firstRun")
)

// ctxKit holds what all ctx objects share.
type ctxKit struct {
	meta    *lua.LTable // the metatable of every ctx
	missing *lua.LTable // the end of the chain
	view    view
}

func (k *ctxKit) init(e *Engine) {
	L := e.L
	methods := L.NewTable()
	for name, fn := range map[string]lua.LGFunction{
		"jump": e.ctxJump, "signal": e.ctxSignal, "send": e.ctxSend,
		"var": e.ctxVar, "setVar": e.ctxSetVar, "get": e.ctxGet, "set": e.ctxSet, // ctx_vars.go
		"stamp": e.ctxStamp, "clearStamp": e.ctxClearStamp, "since": e.ctxSince,
		"log": e.ctxLog, "gateSlot": e.ctxGateSlot,
		"stimulus": e.ctxStimulus, "forget": e.ctxForget,
		"graft": e.ctxGraft, "ungraft": e.ctxUngraft,
	} {
		methods.RawSetString(name, L.NewFunction(fn))
	}
	k.missing = L.NewTable()
	k.missing.RawSetString("__index", L.NewFunction(e.ctxMissing))
	methods.Metatable = k.missing
	hot := L.CreateTable(0, 8)
	for _, name := range []string{keyAgent, keyState, keyTime, keyDt, keyStep} {
		hot.RawSetString(name, lua.LFalse) // the order of the group's slots, most read first
	}
	hot.RawSetString(keyAgent, lua.LNil)
	hot.RawSetString(keyState, lua.LNil)
	hotMeta := L.CreateTable(0, 1)
	hotMeta.RawSetString("__index", methods)
	hot.Metatable = hotMeta
	k.view = view{t: hot, methods: methods, time: math.NaN(), dt: math.NaN(), step: math.MaxUint64}
	k.meta = L.NewTable()
	k.meta.RawSetString("__index", hot)
	k.meta.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("ctx is read-only (ctx.%s = ...); keep values in ctx.state, ctx.memory or ctx.agent", lua.LVAsString(L.Get(2)))
		return 0
	}))
	k.meta.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		if st, ok := L.CheckUserData(1).Value.(*AgentData); ok && st.agent != nil {
			L.Push(lua.LString("ctx " + st.agent.ID()))
		} else {
			L.Push(lua.LString("ctx (detached)"))
		}
		return 1
	}))
	k.meta.RawSetString("__metatable", lua.LString("ctx"))
}

const ctxNames = "id, tree, rule, time, dt, step, firstRun, state, memory, agent, and the methods jump, signal, send, var, setVar, stamp, clearStamp, since, stimulus, forget, gateSlot, log"

// ctxMissing is the end of the ctx look-up chain: ctx.agent at its first
// read (from then on sync keeps it in the view), ctx.state at an agent's
// first use of it (from then on sync hands it out at each rule), or an
// unknown name.
func (e *Engine) ctxMissing(L *lua.LState) int {
	key := lua.LVAsString(L.Get(2))
	if key != "state" && key != "agent" {
		L.RaiseError("ctx has no field %q; ctx has %s", key, ctxNames)
	}
	st := e.cur
	if st == nil || st.agent == nil {
		L.RaiseError("ctx.%s is only available while one of its agent's actions or conditions runs", key)
	}
	if key == "agent" {
		v := &e.ctxKit.view
		v.agentRead = true
		v.t.RawSetString(keyAgent, st.AgentValue())
		L.Push(st.AgentValue())
		return 1
	}
	t := e.reuseState(st, st.agent.Lane())
	st.usesState = true
	st.agent.SetRuleValue(t)
	e.ctxKit.view.state = t
	e.ctxKit.view.t.RawSetString(keyState, t)
	L.Push(t)
	return 1
}

// reuseState empties the ctx.state table of the agent's context (lane -1:
// its own; else a lane's slot) for the rule that now uses it. One table
// per context, reused, rather than a new one at every arrival: a new table
// is about ten allocations (its maps, its key list, a box per key) and
// more garbage to collect. Each lane has its own because its rule's state
// lives on while the other lanes run.
//
// A reused table is emptied as a new table is, key list included (gopher-lua
// keeps every key a table once had in a list for next, which orders
// pairs()). It is replaced by a fresh one when its storage could hold on to
// too much: when the rule left more than maxReusedKeys entries, or a key
// that is neither a string nor a small array index (a table used as a key,
// 1.5, 1e6: gopher-lua pads its array part up to large indices, and keeps
// it when the key is set to nil again), and in any case after
// maxStateReuses visits (smallTable).
func (e *Engine) reuseState(st *AgentData, lane int) *lua.LTable {
	rs := st.reusedState(lane)
	t := rs.t
	if t != nil {
		rs.reuses++
		// The table is emptied as a new table is (resetTable): without the
		// keys it held before in its key list, pairs() would walk the keys
		// this visit sets in the order an earlier visit first set them, and
		// a run restored from a save (whose ctx.state is made anew) would
		// walk them in another order than the run that was saved.
		if !smallTable(t, maxReusedKeys) || rs.reuses >= maxStateReuses || !resetTable(t) {
			t = nil
		}
	}
	if t == nil {
		t = e.L.CreateTable(0, maxReusedKeys)
		rs.t = t
		rs.reuses = 0
	}
	return t
}

// reusedState is the reused ctx.state of the agent's own context (lane -1)
// or of a lane.
func (st *AgentData) reusedState(lane int) *reusedState {
	if lane < 0 {
		return &st.state
	}
	if lane >= len(st.laneStates) {
		st.laneStates = append(st.laneStates, make([]reusedState, st.agent.Tree().LaneSlots()-len(st.laneStates))...)
	}
	return &st.laneStates[lane]
}

// maxReusedKeys is the most keys a ctx.state table may have held to be
// reused: gopher-lua keeps string keys in a Go map, which stays a single
// group of eight slots up to eight keys.
const maxReusedKeys = 8

// maxStateReuses bounds how many visits one ctx.state table serves.
const maxStateReuses = 64

// checkCtx returns the agent of a method call's self.
func checkCtx(L *lua.LState, method string) *AgentData {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if st, ok := ud.Value.(*AgentData); ok {
			if st.agent == nil {
				L.RaiseError("ctx:%s: the agent was detached", method)
			}
			return st
		}
	}
	L.RaiseError("ctx:%s: call it as a method, with a colon: ctx:%s(...)", method, method)
	return nil
}

func (e *Engine) ctxJump(L *lua.LState) int {
	st := checkCtx(L, "jump")
	id := L.CheckString(2)
	if err := st.agent.Jump(id); err != nil {
		if errors.Is(err, runtime.ErrUnknownID) {
			L.RaiseError("ctx:jump(%q): the tree has no rule with that id", id)
		}
		L.RaiseError("ctx:jump(%q): %s", id, err.Error())
	}
	return 0
}

// ctxSignal is ctx:signal(name [, data]): the agent sends itself a signal,
// applied at once.
func (e *Engine) ctxSignal(L *lua.LState) int {
	st := checkCtx(L, "signal")
	name := L.CheckString(2)
	data := dataArg(L, 3, fmt.Sprintf("ctx:signal(%q, data)", name))
	if err := st.agent.Send("self", name, data); err != nil {
		L.RaiseError("ctx:signal(%q): %s", name, err.Error())
	}
	return 0
}

// ctxSend is ctx:send(to, name [, data]).
func (e *Engine) ctxSend(L *lua.LState) int {
	st := checkCtx(L, "send")
	to, name := L.CheckString(2), L.CheckString(3)
	data := dataArg(L, 4, fmt.Sprintf("ctx:send(%q, %q, data)", to, name))
	if err := st.agent.Send(to, name, data); err != nil {
		L.RaiseError("ctx:send(%q, %q): %s", to, name, err.Error())
	}
	return 0
}

// ctxStimulus is ctx:stimulus(name): the data of the last signal name the
// agent received (true when it carried none; a table is a copy of its
// own) and its age in seconds, or nil when the agent holds none.
func (e *Engine) ctxStimulus(L *lua.LState) int {
	st := checkCtx(L, "stimulus")
	name := L.CheckString(2)
	data, age, ok := st.agent.Stimulus(name)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	if data.Kind == runtime.NilValue {
		L.Push(lua.LTrue)
	} else {
		L.Push(e.dataValue(data))
	}
	L.Push(e.nums.box(age))
	return 2
}

// ctxForget is ctx:forget(name): the agent drops its stimulus of the
// signal; true when it held one.
func (e *Engine) ctxForget(L *lua.LState) int {
	st := checkCtx(L, "forget")
	L.Push(lua.LBool(st.agent.Forget(L.CheckString(2))))
	return 1
}

func (e *Engine) ctxVar(L *lua.LState) int {
	st := checkCtx(L, "var")
	name := L.CheckString(2)
	v, err := st.agent.Var(name)
	if errors.Is(err, runtime.ErrBadValue) {
		L.RaiseError("ctx:var(%q): %s", name, notBoolean(st, name, "ctx:get reads"))
	}
	if err != nil {
		L.RaiseError("ctx:var(%q): %s", name, undeclared("variable", name, st))
	}
	L.Push(lua.LBool(v))
	return 1
}

func (e *Engine) ctxSetVar(L *lua.LState) int {
	st := checkCtx(L, "setVar")
	name := L.CheckString(2)
	if _, ok := st.agent.Tree().Tree.VarIndex(name); !ok { // the name first: it is the likelier mistake
		L.RaiseError("ctx:setVar(%q): %s", name, undeclared("variable", name, st))
	}
	v, ok := L.Get(3).(lua.LBool)
	if !ok {
		L.ArgError(3, "true or false expected, got "+L.Get(3).Type().String())
	}
	if err := st.agent.SetVar(name, bool(v)); err != nil {
		L.RaiseError("ctx:setVar(%q): %s", name, notBoolean(st, name, "ctx:set writes"))
	}
	return 0
}

func (e *Engine) ctxStamp(L *lua.LState) int {
	st := checkCtx(L, "stamp")
	name := L.CheckString(2)
	if err := st.agent.SetStamp(name); err != nil {
		L.RaiseError("ctx:stamp(%q): %s", name, undeclared("timestamp", name, st))
	}
	return 0
}

func (e *Engine) ctxClearStamp(L *lua.LState) int {
	st := checkCtx(L, "clearStamp")
	name := L.CheckString(2)
	if err := st.agent.ClearStamp(name); err != nil {
		L.RaiseError("ctx:clearStamp(%q): %s", name, undeclared("timestamp", name, st))
	}
	return 0
}

func (e *Engine) ctxSince(L *lua.LState) int {
	st := checkCtx(L, "since")
	name := L.CheckString(2)
	d, set, err := st.agent.Since(name)
	if err != nil {
		L.RaiseError("ctx:since(%q): %s", name, undeclared("timestamp", name, st))
	}
	if !set {
		L.Push(lua.LNil)
	} else {
		L.Push(e.nums.box(d))
	}
	return 1
}

// ctxGateSlot is ctx:gateSlot(name): the agent's place (1, 2, ...) among
// the holders of a gate, in the order they took it, as of the last round's
// end; nil when it does not hold the gate.
func (e *Engine) ctxGateSlot(L *lua.LState) int {
	st := checkCtx(L, "gateSlot")
	name := L.CheckString(2)
	n, err := st.agent.GateSlot(name)
	if err != nil {
		L.RaiseError("ctx:gateSlot(%q): %s", name, undeclared("gate", name, st))
	}
	if n == 0 {
		L.Push(lua.LNil)
	} else {
		L.Push(lua.LNumber(n))
	}
	return 1
}

func (e *Engine) ctxLog(L *lua.LState) int {
	st := checkCtx(L, "log")
	if L.GetTop() == 2 { // one string, the common case: logged as it is, with no copy
		if s, ok := L.Get(2).(lua.LString); ok && L.GetMetaField(s, "__tostring") == lua.LNil {
			st.agent.Log(string(s))
			return 0
		}
	}
	var b strings.Builder
	for i := 2; i <= L.GetTop(); i++ {
		if i > 2 {
			b.WriteByte(' ')
		}
		b.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	st.agent.Log(b.String())
	return 0
}

func undeclared(kind, name string, st *AgentData) string {
	t := st.agent.Tree().Tree
	msg := fmt.Sprintf("the tree %s declares no %s %q", t.File, kind, name)
	var known []string
	switch kind {
	case "variable":
		for _, v := range t.Vars {
			known = append(known, v.Name)
		}
	case "gate":
		for _, g := range t.Gates {
			known = append(known, g.Name)
		}
	default:
		for _, s := range t.Stamps {
			known = append(known, s.Name)
		}
	}
	if s := runtime.Suggest(name, known); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}

// EngineOf is the engine an agent is attached to, or nil: a game with
// several Lua states (one per worker thread) finds each agent's own.
func EngineOf(a *runtime.Agent) *Engine {
	if st, ok := a.UserData().(*AgentData); ok {
		return st.e
	}
	return nil
}

// Current is the agent whose call (action, condition, scorer, spawn) the
// engine is making, or nil.
func (e *Engine) Current() *runtime.Agent {
	if e.cur == nil {
		return nil
	}
	return e.cur.agent
}
