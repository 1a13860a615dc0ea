// Package callhook lets a measuring harness see the calls luabind makes
// into Lua on its hot path (luabind/internal/luapeers records the example
// game's calls through it, to replay them on other Lua engines). It is
// internal: no game sets it, and while Hook is nil a call costs one load
// and one comparison more.
package callhook

import lua "github.com/yuin/gopher-lua"

// Call is one call of a script's function for an agent.
type Call struct {
	L      *lua.LState
	Fn     *lua.LFunction
	Ctx    *lua.LUserData // the agent's ctx (its Value is the *luabind.AgentData)
	Params *lua.LTable    // the rule's params
	Arg    lua.LValue     // a third argument (a signal's data, a hook's how), or nil
}

// Hook, when set, is called before each such call, on the goroutine of the
// engine making it. Set it before the engines are made and leave it alone
// while they step.
var Hook func(Call)
