package luabind

import (
	"fmt"
	"strings"

	"github.com/btrun/btrun/luabind/internal/callhook"
	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// Register adds every action, condition and scorer the scripts registered,
// with origin "lua FILE:LINE", and the inline-Lua built-ins (inline.go) to
// reg.
// A name that reg already holds (a built-in, a plugin's) is an error naming
// both origins; all such errors come back in one runtime.ErrorList.
func (e *Engine) Register(reg *runtime.Registry) error {
	if e.closed {
		return ErrClosed
	}
	var errs runtime.ErrorList
	add := func(err error) {
		if err != nil {
			errs = append(errs, &runtime.Error{Msg: err.Error(), Err: fmt.Errorf("%w: %w", ErrDuplicate, err)})
		}
	}
	for _, d := range e.defOrder {
		if err := reserved(reg, d); err != nil {
			errs = append(errs, &runtime.Error{Msg: err.Error(), Err: err})
			continue
		}
		switch d := d.(type) {
		case *actionDef:
			add(reg.AddAction(runtime.ActionDef{Name: d.name, Origin: runtime.Origin{Kind: "lua", Where: d.where}, Bind: e.bindAction(d), Params: d.params, Handles: d.onNames}))
		case *conditionDef:
			add(reg.AddCondition(runtime.ConditionDef{Name: d.name, Origin: runtime.Origin{Kind: "lua", Where: d.where}, Bind: e.bindCondition(d), Params: d.params}))
		case *scorerDef:
			add(reg.AddScorer(runtime.ScorerDef{Name: d.name, Origin: runtime.Origin{Kind: "lua", Where: d.where}, Bind: e.bindScorer(d)}))
		case *hookDef:
			add(reg.AddHook(runtime.HookDef{Name: d.name, Origin: runtime.Origin{Kind: "lua", Where: d.where}, Bind: e.bindHook(d)}))
		}
	}
	add(reg.AddAction(runtime.ActionDef{Name: InlineName, Origin: inlineOrigin, Bind: e.bindInlineAction,
		Doc: "runs the Lua statements of `lua.run` (they see ctx, params and bt); success unless they return a status",
		Params: []runtime.ParamSpec{{Name: ParamRun, Type: "Lua statements", Required: true,
			Doc: "compiled once per rule when the tree is bound: a syntax error is a bind error at the rule"}}}))
	add(reg.AddCondition(runtime.ConditionDef{Name: InlineName, Origin: inlineOrigin, Bind: e.bindInlineCondition,
		Doc: "the value of the Lua expression `lua.test` (it sees ctx, params and bt), which must be true or false",
		Params: []runtime.ParamSpec{{Name: ParamTest, Type: "a Lua expression", Required: true,
			Doc: "compiled once per rule when the tree is bound"}}}))
	add(reg.AddHook(e.inlineHookDef())) // inline_hook.go
	return errs.Err()
}

// reserved rejects script names starting with "bt.", which SPEC §5 keeps
// for the built-ins. A name that collides with a registered one is left to
// the registry, whose error names both origins.
func reserved(reg *runtime.Registry, d any) error {
	kind, name, where := "action", "", ""
	switch d := d.(type) {
	case *actionDef:
		name, where = d.name, d.where
		if _, ok := reg.LookupAction(name); ok {
			return nil
		}
	case *conditionDef:
		kind, name, where = "condition", d.name, d.where
		if _, ok := reg.LookupCondition(name); ok {
			return nil
		}
	case *scorerDef:
		kind, name, where = "scorer", d.name, d.where
		if _, ok := reg.LookupScorer(name); ok {
			return nil
		}
	case *hookDef:
		kind, name, where = "hook", d.name, d.where
		if _, ok := reg.LookupHook(name); ok {
			return nil
		}
	}
	if !strings.HasPrefix(name, "bt.") {
		return nil
	}
	return fmt.Errorf("%w: %s %q from lua %s: names starting with \"bt.\" are reserved for the built-ins", ErrDuplicate, kind, name, where)
}

func (e *Engine) bindAction(d *actionDef) func(*runtime.Site) (runtime.Action, error) {
	return func(s *runtime.Site) (runtime.Action, error) {
		b := luaAction{e: e, def: d, params: e.paramsFor(s)}
		if d.start == nil && d.cancel == nil {
			return &b, nil
		}
		return &luaLifecycle{b}, nil
	}
}

func (e *Engine) bindCondition(d *conditionDef) func(*runtime.Site) (runtime.Condition, error) {
	return func(s *runtime.Site) (runtime.Condition, error) {
		return &luaCondition{e: e, def: d, params: e.paramsFor(s)}, nil
	}
}

func (e *Engine) bindScorer(d *scorerDef) func(*runtime.Site) (runtime.Scorer, error) {
	return func(s *runtime.Site) (runtime.Scorer, error) {
		return &luaScorer{e: e, def: d, params: e.paramsFor(s)}, nil
	}
}

func (e *Engine) bindHook(d *hookDef) func(*runtime.Site) (runtime.Hook, error) {
	return func(s *runtime.Site) (runtime.Hook, error) {
		return &luaHook{e: e, def: d, params: e.paramsFor(s)}, nil
	}
}

// luaHook is a Lua hook bound to one rule: fn(ctx, params, how), on the
// agent's own Lua state.
type luaHook struct {
	e      *Engine
	def    *hookDef
	params *lua.LTable
}

func (h *luaHook) Call(a *runtime.Agent, _ runtime.Params, how string) error {
	st, err := h.e.agentData(a)
	if err != nil {
		return err
	}
	_, err = h.e.callAgentWith(h.def.call, st, h.params, lua.LString(how))
	return err
}

// luaAction is a short-form Lua action bound to one rule.
type luaAction struct {
	e      *Engine
	def    *actionDef
	params *lua.LTable
}

func (b *luaAction) Run(a *runtime.Agent, _ runtime.Params) (runtime.Status, error) {
	st, err := b.e.agentData(a)
	if err != nil {
		return 0, err
	}
	ret, err := b.e.callAgent(b.def.run, st, b.params, 1)
	if err != nil {
		return 0, err
	}
	if s, ok := ret.(lua.LString); ok {
		switch s {
		case statusRunning:
			return runtime.Running, nil
		case statusSuccess:
			return runtime.Success, nil
		case statusFailure:
			return runtime.Failure, nil
		}
	}
	return 0, badResult(b.def.run, fmt.Sprintf("the run function of action %q", b.def.name), ret,
		"an action returns bt.SUCCESS, bt.FAILURE or bt.RUNNING")
}

// HandledSignals is runtime.SignalHandler: the signals of the long form's
// on = {...} (none for other actions, which then have no handler).
func (b *luaAction) HandledSignals() []string { return b.def.onNames }

// HandleSignal is runtime.SignalHandler: the long form's handler for the
// signal, called as fn(ctx, params, data) (data is nil when the signal
// carried none, else the receiver's own copy). It returns bt.SUCCESS or
// bt.FAILURE to finish the action, nil or bt.RUNNING to let it go on.
func (b *luaAction) HandleSignal(a *runtime.Agent, _ runtime.Params, signal string, data runtime.Value) (runtime.Status, error) {
	fn := b.def.on[signal]
	if fn == nil {
		return 0, nil
	}
	st, err := b.e.agentData(a)
	if err != nil {
		return 0, err
	}
	ret, err := b.e.callAgentWith(fn, st, b.params, b.e.dataValue(data))
	if err != nil {
		return 0, err
	}
	switch ret {
	case lua.LNil, statusRunning:
		return 0, nil
	case statusSuccess:
		return runtime.Success, nil
	case statusFailure:
		return runtime.Failure, nil
	}
	return 0, badResult(fn, fmt.Sprintf("the %s handler of action %q", signal, b.def.name), ret,
		"a handler returns bt.SUCCESS or bt.FAILURE to finish its action, or nothing (or bt.RUNNING) to let it go on")
}

// luaLifecycle is a long-form Lua action: start and cancel may be nil.
type luaLifecycle struct{ luaAction }

func (b *luaLifecycle) Start(a *runtime.Agent, _ runtime.Params) error {
	if b.def.start == nil {
		return nil
	}
	st, err := b.e.agentData(a)
	if err != nil {
		return err
	}
	_, err = b.e.callAgent(b.def.start, st, b.params, 0)
	return err
}

func (b *luaLifecycle) Cancel(a *runtime.Agent, _ runtime.Params) error {
	if b.def.cancel == nil {
		return nil
	}
	st, err := b.e.agentData(a)
	if err != nil {
		return err
	}
	_, err = b.e.callAgent(b.def.cancel, st, b.params, 0)
	return err
}

// luaCondition is a Lua condition bound to one rule.
type luaCondition struct {
	e      *Engine
	def    *conditionDef
	params *lua.LTable
}

func (c *luaCondition) Test(a *runtime.Agent, _ runtime.Params) (bool, error) {
	st, err := c.e.agentData(a)
	if err != nil {
		return false, err
	}
	ret, err := c.e.callAgent(c.def.test, st, c.params, 1)
	if err != nil {
		return false, err
	}
	if v, ok := ret.(lua.LBool); ok {
		return bool(v), nil
	}
	return false, badResult(c.def.test, fmt.Sprintf("condition %q", c.def.name), ret, "a condition returns true or false")
}

// luaScorer is a Lua scorer bound to one child of a score choice.
type luaScorer struct {
	e      *Engine
	def    *scorerDef
	params *lua.LTable
}

func (c *luaScorer) Score(a *runtime.Agent, _ runtime.Params) (float64, error) {
	st, err := c.e.agentData(a)
	if err != nil {
		return 0, err
	}
	ret, err := c.e.callAgent(c.def.score, st, c.params, 1)
	if err != nil {
		return 0, err
	}
	if v, ok := ret.(lua.LNumber); ok {
		return float64(v), nil // the runtime refuses NaN and infinities
	}
	return 0, badResult(c.def.score, fmt.Sprintf("scorer %q", c.def.name), ret, "a scorer returns a number")
}

// callAgent is the hot path: fn(ctx, params) for one agent, protected and
// bounded, with ctx brought up to date first. It allocates nothing.
func (e *Engine) callAgent(fn *lua.LFunction, st *AgentData, params *lua.LTable, nret int) (lua.LValue, error) {
	return e.callAgentArgs(fn, st, params, nret, nil)
}

// callAgentWith is callAgent with one more argument and one result: a
// signal handler's fn(ctx, params, data).
func (e *Engine) callAgentWith(fn *lua.LFunction, st *AgentData, params *lua.LTable, arg lua.LValue) (lua.LValue, error) {
	return e.callAgentArgs(fn, st, params, 1, arg)
}

func (e *Engine) callAgentArgs(fn *lua.LFunction, st *AgentData, params *lua.LTable, nret int, arg lua.LValue) (lua.LValue, error) {
	if e.closed {
		return lua.LNil, ErrClosed
	}
	st.sync()
	e.calls++
	L := e.L
	if h := callhook.Hook; h != nil {
		h(callhook.Call{L: L, Fn: fn, Ctx: st.ud, Params: params, Arg: arg})
	}
	L.Push(fn)
	L.Push(st.ud)
	L.Push(params)
	nargs := 2
	if arg != nil {
		L.Push(arg)
		nargs = 3
	}
	prev := e.cur
	e.cur = st
	e.guard.enter()
	err := L.PCall(nargs, nret, nil)
	stopped := e.guard.leave()
	e.cur = prev
	if len(e.dataCopies) > 0 && prev == nil { // tables of ctx.agent read by the call (gamedata_copies.go)
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
	L.Pop(1)
	return ret, nil
}

// badResult is the error for a function that returned the wrong kind of
// value, at the line where the function is defined (Lua does not say which
// return statement ran).
func badResult(fn *lua.LFunction, what string, got lua.LValue, want string) error {
	file, line := funcPos(fn)
	desc := got.Type().String()
	switch got.(type) {
	case lua.LString, lua.LNumber, lua.LBool:
		desc = fmt.Sprintf("%s %q", desc, got.String())
	}
	if line > 0 {
		what += " (defined here)"
	}
	return &ScriptError{File: file, Line: line, Err: ErrResult,
		Msg: fmt.Sprintf("%s returned %s; %s", what, desc, want)}
}
