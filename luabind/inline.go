package luabind

import (
	"errors"
	"fmt"
	"strings"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// Inline Lua in tree files, in the spirit of CryEngine's ExecuteLua,
// AssertLua and LuaGate, in the Drag[en]gine format's own terms: a built-in
// action and a built-in condition, both named bt.lua, that read their code
// from a rule parameter.
//
//	<action id='heal' name='bt.lua'>                     <!-- ExecuteLua -->
//	  <parameter name='lua.run'>ctx.agent.hp = ctx.agent.hp + 10</parameter>
//	</action>
//	<sequence id='hurt'>                                  <!-- LuaGate -->
//	  <parameter name='lua.test'>ctx.agent.hp &lt; 30</parameter>
//	  <condition>bt.lua</condition>
//	  ...
//
// lua.run is a chunk of statements; it sees ctx, params and bt, and its
// result is success unless it returns a status. lua.test is one expression
// that must give true or false. Both are compiled once per rule when the
// tree is bound, so a syntax error is a bind error at the rule's position
// (`btrun validate` lists them with the rest).

// InlineName is the name of the inline-Lua action and condition.
const InlineName = "bt.lua"

// The parameters the inline-Lua built-ins read.
const (
	ParamRun  = "lua.run"
	ParamTest = "lua.test"
)

var inlineOrigin = runtime.Origin{Kind: "builtin", Where: "luabind"}

const (
	runPrefix  = "local ctx, params = ...; "
	testPrefix = "local ctx, params = ...; return ("
)

// inlineProto compiles inline code once per distinct source.
func (e *Engine) inlineProto(s *runtime.Site, param, prefix, suffix string) (*lua.FunctionProto, error) {
	code, ok := s.Params.Get(param)
	if !ok || strings.TrimSpace(code) == "" {
		what := "Lua statements to run"
		if param == ParamTest {
			what = "a Lua expression giving true or false"
		}
		return nil, s.Errorf("%s needs parameter %q: %s", InlineName, param, what)
	}
	src := prefix + code + suffix
	if p, ok := e.inline[src]; ok {
		return p, nil
	}
	c, err := e.compileSource(param, []byte(src))
	if err != nil {
		var se *ScriptError
		if errors.As(err, &se) {
			if se.Line == 1 && se.Col > len(prefix) {
				se.Col -= len(prefix)
			}
			if lines := strings.Count(code, "\n") + 1; se.Line > lines {
				se.Line, se.Col = lines, 0
				se.Msg += " (at the end of the code)"
			}
		}
		return nil, s.Errorf("%s: %v", InlineName, err)
	}
	e.inline[src] = c.proto
	return c.proto, nil
}

func (e *Engine) bindInlineAction(s *runtime.Site) (runtime.Action, error) {
	p, err := e.inlineProto(s, ParamRun, runPrefix, "\n")
	if err != nil {
		return nil, err
	}
	return &inlineAction{e: e, fn: e.L.NewFunctionFromProto(p), params: e.paramsFor(s)}, nil
}

func (e *Engine) bindInlineCondition(s *runtime.Site) (runtime.Condition, error) {
	p, err := e.inlineProto(s, ParamTest, testPrefix, "\n)")
	if err != nil {
		return nil, err
	}
	return &inlineCondition{e: e, fn: e.L.NewFunctionFromProto(p), params: e.paramsFor(s)}, nil
}

type inlineAction struct {
	e      *Engine
	fn     *lua.LFunction
	params *lua.LTable
}

func (x *inlineAction) Run(a *runtime.Agent, _ runtime.Params) (runtime.Status, error) {
	st, err := x.e.agentData(a)
	if err != nil {
		return 0, err
	}
	ret, err := x.e.callAgent(x.fn, st, x.params, 1)
	if err != nil {
		return 0, err
	}
	switch ret {
	case lua.LNil, statusSuccess:
		return runtime.Success, nil
	case statusFailure:
		return runtime.Failure, nil
	case statusRunning:
		return runtime.Running, nil
	}
	return 0, badResult(x.fn, fmt.Sprintf("%s code %s", InlineName, ParamRun), ret,
		"it returns nothing (success), bt.SUCCESS, bt.FAILURE or bt.RUNNING")
}

type inlineCondition struct {
	e      *Engine
	fn     *lua.LFunction
	params *lua.LTable
}

func (x *inlineCondition) Test(a *runtime.Agent, _ runtime.Params) (bool, error) {
	st, err := x.e.agentData(a)
	if err != nil {
		return false, err
	}
	ret, err := x.e.callAgent(x.fn, st, x.params, 1)
	if err != nil {
		return false, err
	}
	if v, ok := ret.(lua.LBool); ok {
		return bool(v), nil
	}
	return false, badResult(x.fn, fmt.Sprintf("%s expression %s", InlineName, ParamTest), ret, "it must give true or false")
}
