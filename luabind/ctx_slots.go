package luabind

import (
	"errors"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// ctxGraft is ctx:graft(slot, tree): the agent's slot runs the game's tree
// from the next time it is entered. A tree that does not fit the agent's
// (a declaration it lacks) is an error at this line.
func (e *Engine) ctxGraft(L *lua.LState) int {
	st := checkCtx(L, "graft")
	slot, tree := L.CheckString(2), L.CheckString(3)
	if err := st.agent.Graft(slot, tree); err != nil {
		L.RaiseError("ctx:graft(%q, %q): %s", slot, tree, slotMsg(err))
	}
	return 0
}

// ctxUngraft is ctx:ungraft(slot): the slot goes back to its default tree
// (or fails, without one) from the next time it is entered.
func (e *Engine) ctxUngraft(L *lua.LState) int {
	st := checkCtx(L, "ungraft")
	slot := L.CheckString(2)
	if err := st.agent.Ungraft(slot); err != nil {
		L.RaiseError("ctx:ungraft(%q): %s", slot, slotMsg(err))
	}
	return 0
}

// slotMsg is a graft's error without the agent's prefix (the script's
// line says where).
func slotMsg(err error) string {
	var re *runtime.Error
	if errors.As(err, &re) {
		return re.Msg
	}
	return err.Error()
}
