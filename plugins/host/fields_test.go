package host_test

import (
	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/plugins/host"
)

// The Lua binding's agent data (ctx.agent) is what a game's agents carry:
// the host must be able to read and write plugin fields through it, numbers
// without an allocation.
var (
	_ host.FieldAccess  = (*luabind.AgentData)(nil)
	_ host.NumberFields = (*luabind.AgentData)(nil)
)
