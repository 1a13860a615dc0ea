package luabind

import (
	"fmt"
	"sort"
	"strings"

	"github.com/btrun/btrun/runtime"
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
	params             []runtime.ParamSpec // the long form's params = {...}; nil when not given
	// The long form's on = {Signal = fn, ...}: handlers called when the
	// agent receives the signal while the action runs (handlers.go), and
	// their signals sorted by name.
	on      map[string]*lua.LFunction
	onNames []string
}

// conditionDef is a condition a script registered with bt.condition.
type conditionDef struct {
	name   string
	where  string
	test   *lua.LFunction
	params []runtime.ParamSpec
}

// scorerDef is a scorer a script registered with bt.scorer.
type scorerDef struct {
	name  string
	where string
	score *lua.LFunction
}

// hookDef is an enter or exit hook a script registered with bt.hook.
type hookDef struct {
	name  string
	where string
	call  *lua.LFunction
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
	bt.RawSetString("hook", L.NewFunction(e.luaHook))
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
			case "params":
				def.params = declaredParams(L, "bt.action "+quote(name), val)
				return
			case "on":
				def.on, def.onNames = signalHandlers(L, "bt.action "+quote(name), val)
				return
			case "start", "run", "cancel":
				if !isFn {
					L.ArgError(2, "bt.action "+quote(name)+": "+string(ks)+" must be a function, not a "+val.Type().String())
				}
			default:
				L.ArgError(2, "bt.action "+quote(name)+": unknown key "+quote(lua.LVAsString(k))+"; the long form has start, run, cancel, on and params")
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
		L.ArgError(2, "a function, or a table {start = fn, run = fn, cancel = fn, on = {...}, params = {...}}")
	}
	if old, ok := e.actions[name]; ok {
		L.RaiseError("action %q is already registered at %s", name, old.where)
	}
	e.actions[name] = def
	e.defOrder = append(e.defOrder, def)
	return 0
}

// signalHandlers reads a long form's on = {Signal = function(ctx, params,
// data) ... end, ...}: the handlers, by signal name, and the names sorted.
func signalHandlers(L *lua.LState, what string, v lua.LValue) (map[string]*lua.LFunction, []string) {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.ArgError(2, what+": on must be a table of signal handlers {Signal = function(ctx, params, data) ... end}, not a "+v.Type().String())
	}
	on := map[string]*lua.LFunction{}
	var names []string
	t.ForEach(func(k, val lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok || name == "" {
			L.ArgError(2, what+": on is keyed by signal names (strings), not a "+k.Type().String())
		}
		fn, ok := val.(*lua.LFunction)
		if !ok {
			L.ArgError(2, what+": on["+quote(string(name))+"] must be a function(ctx, params, data), not a "+val.Type().String())
		}
		on[string(name)] = fn
		names = append(names, string(name))
	})
	sort.Strings(names)
	return on, names
}

// luaCondition is bt.condition(name, fn) and bt.condition(name, {test =
// fn, params = {...}}).
func (e *Engine) luaCondition(L *lua.LState) int {
	name := e.checkDefName(L, "condition")
	def := &conditionDef{name: name, where: where(L)}
	switch v := L.Get(2).(type) {
	case *lua.LFunction:
		def.test = v
	case *lua.LTable:
		v.ForEach(func(k, val lua.LValue) {
			switch k {
			case lua.LString("test"):
				fn, ok := val.(*lua.LFunction)
				if !ok {
					L.ArgError(2, "bt.condition "+quote(name)+": test must be a function, not a "+val.Type().String())
				}
				def.test = fn
			case lua.LString("params"):
				def.params = declaredParams(L, "bt.condition "+quote(name), val)
			default:
				L.ArgError(2, "bt.condition "+quote(name)+": unknown key "+quote(lua.LVAsString(k))+"; the long form has test and params")
			}
		})
		if def.test == nil {
			L.ArgError(2, "bt.condition "+quote(name)+": the long form needs a test function")
		}
	default:
		L.ArgError(2, "a function(ctx, params) returning true or false, or a table {test = fn, params = {...}}")
	}
	if old, ok := e.conditions[name]; ok {
		L.RaiseError("condition %q is already registered at %s", name, old.where)
	}
	e.conditions[name] = def
	e.defOrder = append(e.defOrder, def)
	return 0
}

// declaredParams reads a long form's params: the rule parameters the action
// or condition reads, so that the reference and `btrun validate` know them
// (validate reports a rule's parameter that nothing reads). Each entry is a
// name ({"chase.speed", ...}) or a name with a description
// ({["chase.speed"] = "metres per second, default 3"}).
func declaredParams(L *lua.LState, what string, v lua.LValue) []runtime.ParamSpec {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.ArgError(2, what+": params must be a table of parameter names, not a "+v.Type().String())
	}
	out := []runtime.ParamSpec{}
	var named []runtime.ParamSpec
	t.ForEach(func(k, val lua.LValue) {
		switch k := k.(type) {
		case lua.LNumber:
			s, ok := val.(lua.LString)
			if !ok || s == "" {
				L.ArgError(2, what+": params lists parameter names (strings), not a "+val.Type().String())
			}
			out = append(out, runtime.ParamSpec{Name: string(s)})
		case lua.LString:
			s, ok := val.(lua.LString)
			if !ok || k == "" {
				L.ArgError(2, what+": params["+quote(string(k))+"] must be a description (a string), not a "+val.Type().String())
			}
			named = append(named, runtime.ParamSpec{Name: string(k), Doc: string(s)})
		default:
			L.ArgError(2, what+": params holds names or name = description entries")
		}
	})
	sort.Slice(named, func(i, j int) bool { return named[i].Name < named[j].Name })
	return append(out, named...)
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

// luaHook is bt.hook(name, fn): fn(ctx, params, how) runs when a rule
// whose enter or exit attribute names it starts ("enter") or is left (how
// it was left: "success", "failure", "abort", ...). params are the rule's.
// A hook returns nothing; an error in it is the step's (enter) or goes to
// the agent's log (exit).
func (e *Engine) luaHook(L *lua.LState) int {
	name := e.checkDefName(L, "hook")
	fn, ok := L.Get(2).(*lua.LFunction)
	if !ok {
		L.ArgError(2, "a function(ctx, params, how)")
	}
	if old, ok := e.hooks[name]; ok {
		L.RaiseError("hook %q is already registered at %s", name, old.where)
	}
	def := &hookDef{name: name, where: where(L), call: fn}
	e.hooks[name] = def
	e.defOrder = append(e.defOrder, def)
	return 0
}

// luaBroadcast is bt.broadcast(name [, data]): the running agent sends the
// signal to every agent, itself included (Agent.Send("all", name, data)).
func (e *Engine) luaBroadcast(L *lua.LState) int {
	name := L.CheckString(1)
	if e.cur == nil {
		L.RaiseError("bt.broadcast(%q): no agent is running; call it from an action, a condition or spawn", name)
	}
	data := dataArg(L, 2, fmt.Sprintf("bt.broadcast(%q, data)", name))
	if err := e.cur.agent.Send("all", name, data); err != nil {
		L.RaiseError("bt.broadcast(%q): %s", name, err.Error())
	}
	return 0
}

func quote(s string) string { return "\"" + s + "\"" }
