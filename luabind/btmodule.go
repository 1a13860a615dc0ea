package luabind

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The statuses an action returns. They are strings so that a script that
// prints one shows its name.
const (
	statusSuccess = lua.LString("success")
	statusFailure = lua.LString("failure")
	statusRunning = lua.LString("running")
)

// actionDef is an action a script registered with bt.action.
type actionDef struct {
	name               string
	where              string // "FILE:LINE" of the bt.action call
	run, start, cancel *lua.LFunction
}

// conditionDef is a condition a script registered with bt.condition.
type conditionDef struct {
	name  string
	where string
	test  *lua.LFunction
}

// scorerDef is a scorer a script registered with bt.scorer.
type scorerDef struct {
	name  string
	where string
	score *lua.LFunction
}

// openBT builds the bt module (require("bt"), also the global bt).
func (e *Engine) openBT() {
	L := e.L
	bt := L.NewTable()
	bt.RawSetString("SUCCESS", statusSuccess)
	bt.RawSetString("FAILURE", statusFailure)
	bt.RawSetString("RUNNING", statusRunning)
	bt.RawSetString("action", L.NewFunction(e.luaAction))
	bt.RawSetString("condition", L.NewFunction(e.luaCondition))
	bt.RawSetString("scorer", L.NewFunction(e.luaScorer))
	bt.RawSetString("broadcast", L.NewFunction(e.luaBroadcast))
	bt.RawSetString("random", L.NewFunction(e.luaRandom))
	e.bt = bt
	L.SetGlobal("bt", bt)
}

// where is the "FILE:LINE" of the Lua code calling the current Go function.
func where(L *lua.LState) string { return strings.TrimSuffix(L.Where(1), ":") }

func (e *Engine) checkDefName(L *lua.LState, kind string) string {
	if !e.loading {
		L.RaiseError("bt.%s may only be called while the scripts load (at the top level of a script or a module it requires)", kind)
	}
	name := L.CheckString(1)
	switch {
	case strings.TrimSpace(name) != name || name == "":
		L.ArgError(1, "a "+kind+" name must be non-empty, without leading or trailing spaces")
	case strings.HasPrefix(name, "!"):
		L.ArgError(1, "a name cannot start with \"!\": a tree negates a condition with it")
	}
	return name
}

// luaAction is bt.action(name, fn) and bt.action(name, {start=, run=, cancel=}).
func (e *Engine) luaAction(L *lua.LState) int {
	name := e.checkDefName(L, "action")
	def := &actionDef{name: name, where: where(L)}
	switch v := L.Get(2).(type) {
	case *lua.LFunction:
		def.run = v
	case *lua.LTable:
		v.ForEach(func(k, val lua.LValue) {
			ks, _ := k.(lua.LString)
			fn, isFn := val.(*lua.LFunction)
			switch ks {
			case "start", "run", "cancel":
				if !isFn {
					L.ArgError(2, "bt.action "+quote(name)+": "+string(ks)+" must be a function, not a "+val.Type().String())
				}
			default:
				L.ArgError(2, "bt.action "+quote(name)+": unknown key "+quote(lua.LVAsString(k))+"; the long form has start, run and cancel")
			}
			switch ks {
			case "start":
				def.start = fn
			case "run":
				def.run = fn
			case "cancel":
				def.cancel = fn
			}
		})
		if def.run == nil {
			L.ArgError(2, "bt.action "+quote(name)+": the long form needs a run function")
		}
	default:
		L.ArgError(2, "a function, or a table {start = fn, run = fn, cancel = fn}")
	}
	if old, ok := e.actions[name]; ok {
		L.RaiseError("action %q is already registered at %s", name, old.where)
	}
	e.actions[name] = def
	e.defOrder = append(e.defOrder, def)
	return 0
}

// luaCondition is bt.condition(name, fn).
func (e *Engine) luaCondition(L *lua.LState) int {
	name := e.checkDefName(L, "condition")
	fn, ok := L.Get(2).(*lua.LFunction)
	if !ok {
		L.ArgError(2, "a function(ctx, params) returning true or false")
	}
	if old, ok := e.conditions[name]; ok {
		L.RaiseError("condition %q is already registered at %s", name, old.where)
	}
	def := &conditionDef{name: name, where: where(L), test: fn}
	e.conditions[name] = def
	e.defOrder = append(e.defOrder, def)
	return 0
}

// luaScorer is bt.scorer(name, fn): fn(ctx, params) returns a number, the
// score of the child of a score choice whose choice.score names it (params
// are that child's).
func (e *Engine) luaScorer(L *lua.LState) int {
	name := e.checkDefName(L, "scorer")
	fn, ok := L.Get(2).(*lua.LFunction)
	if !ok {
		L.ArgError(2, "a function(ctx, params) returning a number")
	}
	if old, ok := e.scorers[name]; ok {
		L.RaiseError("scorer %q is already registered at %s", name, old.where)
	}
	def := &scorerDef{name: name, where: where(L), score: fn}
	e.scorers[name] = def
	e.defOrder = append(e.defOrder, def)
	return 0
}

// luaBroadcast is bt.broadcast(name): the running agent sends the signal to
// every agent, itself included (Agent.Send("all", name)).
func (e *Engine) luaBroadcast(L *lua.LState) int {
	name := L.CheckString(1)
	if e.cur == nil {
		L.RaiseError("bt.broadcast(%q): no agent is running; call it from an action, a condition or spawn", name)
	}
	if err := e.cur.agent.Send("all", name); err != nil {
		L.RaiseError("bt.broadcast(%q): %s", name, err.Error())
	}
	return 0
}

func quote(s string) string { return "\"" + s + "\"" }
