package luabind

import (
	"fmt"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// Inline Lua hooks: enter="bt.lua" runs the rule's lua.enter and
// exit="bt.lua" its lua.exit, Lua statements that see ctx, params, bt and
// how (as a bt.hook function's arguments), so that a small hook is written
// in the tree (or from the live view's editor) without a script file.
//
//	<sequence id='guard' enter='bt.lua' exit='bt.lua'>
//	  <parameter name='lua.enter'>ctx.memory.alert = true</parameter>
//	  <parameter name='lua.exit'>ctx.memory.alert = nil; ctx:log('left: ' .. how)</parameter>
//	  ...
//
// Like the inline action and condition, the code is compiled once when
// the tree is bound: a syntax error is a bind error at the rule.

// The parameters the inline hook reads.
const (
	ParamEnter = "lua.enter"
	ParamExit  = "lua.exit"
)

const hookPrefix = "local ctx, params, how = ...; "

// inlineHookDef is the registry's definition of the inline hook.
func (e *Engine) inlineHookDef() runtime.HookDef {
	return runtime.HookDef{Name: InlineName, Origin: inlineOrigin, Bind: e.bindInlineHook,
		Doc: "runs the Lua statements of `lua.enter` when it is the rule's enter hook, and of `lua.exit` when it is its exit hook; they see ctx, params, bt and `how` (\"enter\", or how the rule was left)",
		Params: []runtime.ParamSpec{
			{Name: ParamEnter, Type: "Lua statements", Doc: "run when the rule starts; required with enter=\"bt.lua\""},
			{Name: ParamExit, Type: "Lua statements", Doc: "run when the rule is left; required with exit=\"bt.lua\""},
		}}
}

func (e *Engine) bindInlineHook(s *runtime.Site) (runtime.Hook, error) {
	r := &s.Tree.Rules[s.Rule]
	h := &inlineHook{e: e, params: e.paramsFor(s)}
	if r.Enter == s.Name {
		p, err := e.inlineProto(s, ParamEnter, hookPrefix, "\n")
		if err != nil {
			return nil, err
		}
		h.enter = e.L.NewFunctionFromProto(p)
	}
	if r.Exit == s.Name {
		p, err := e.inlineProto(s, ParamExit, hookPrefix, "\n")
		if err != nil {
			return nil, err
		}
		h.exit = e.L.NewFunctionFromProto(p)
	}
	return h, nil
}

type inlineHook struct {
	e           *Engine
	enter, exit *lua.LFunction
	params      *lua.LTable
}

func (h *inlineHook) Call(a *runtime.Agent, _ runtime.Params, how string) error {
	fn := h.exit
	if how == "enter" {
		fn = h.enter
	}
	if fn == nil { // not reached: bind compiled the code of each attribute naming it
		return fmt.Errorf("%s: no code for %q", InlineName, how)
	}
	st, err := h.e.agentData(a)
	if err != nil {
		return err
	}
	_, err = h.e.callAgentWith(fn, st, h.params, lua.LString(how))
	return err
}
