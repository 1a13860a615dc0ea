package luabind

import (
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
	lua "github.com/yuin/gopher-lua"
)

// The world's game.shared in a game's save: what the world published for
// every Lua state to read as bt.shared (SetShared), so that a restored run
// gives what reads bt.shared or game.shared before the world's next tick
// what the saved run had.

// EncodeShared writes v, the world's game.shared, as one Value of a save.
// Its tables are walked on their own, apart from the world's save() and
// the agents' tables (a world may return a table it publishes too, and
// each is written whole). A table that game.shared reaches twice, which
// bt.shared allows, cannot be saved, as in every saved Lua value: the save
// fails, naming both places. nil writes one byte.
func (e *Engine) EncodeShared(enc *savecodec.Encoder, v lua.LValue) error {
	if v == lua.LNil {
		enc.ValueNil()
		return nil
	}
	var s saveTables
	s.reset()
	w := s.begin(e, enc, saveOwner{name: "the world's game.shared", root: v, path: "game.shared"})
	if !w.value(v, 0) {
		return s.explain(e, w.owner)
	}
	return nil
}

// RestoreShared makes game.shared of the world's game table what a save
// holds (EncodeShared's v). A table game.shared holds already is refilled
// in place, keeping its identity and its metatable, as ctx.agent is (the
// world may keep it in a local and publish it at every tick); the tables
// it holds are new. Anything else is replaced.
func (e *Engine) RestoreShared(game *lua.LTable, v runtime.Value) {
	if t, ok := game.RawGetString("shared").(*lua.LTable); ok && v.Kind == runtime.TableValue {
		enc := savecodec.NewEncoder()
		runtime.EncodeValue(enc, v)
		d := savecodec.NewDecoder(enc.Bytes(), enc.Strings())
		_, n := runtime.DecodeValueHead(d)
		e.refill(t, d, n)
		return
	}
	game.RawSetString("shared", e.luaValue(v))
}
