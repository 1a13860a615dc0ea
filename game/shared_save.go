package game

import (
	"fmt"

	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/runtime/savecodec"
)

// The world's game.shared in saves (docs/saves.md): what the world
// published for every Lua state to read as bt.shared. One process
// publishes it after each tick, so what reads it before the next tick (the
// handlers of the signals the tick sends before it publishes, of a Go
// program's or the live view's signals between steps, a spawn, the tick
// itself reading its own game.shared) reads what the last tick left. A
// save holds it, after the world's save(), and a load gives it back to the
// world's game.shared, then lets the world's load(t) run and publishes
// game.shared again to every Lua state, before anything else runs.

// sharedVersion is the first save format version that holds game.shared.
const sharedVersion = 9

// savedShared is the game.shared a save holds, in the one encoding of
// game.shared (luabind.EncodeShared: a table reached twice stays one, keys
// and order as bt.shared has them; one byte for nil); has is false for a save
// made before sharedVersion, which holds none.
type savedShared struct {
	b   []byte
	has bool
}

// encodeShared writes the world's game.shared as one blob: nil's for a
// game whose world publishes nothing, or has no world.
func (g *Game) encodeShared(e *savecodec.Encoder) error {
	b, err := g.sharedBytes()
	if err != nil {
		return fmt.Errorf("the world's game.shared: %w", err)
	}
	e.Blob(b)
	return nil
}

// sharedBytes is the world's game.shared in its one encoding (nil's
// without a world): the save's, the checkpoint's and the step
// start's.
func (g *Game) sharedBytes() ([]byte, error) {
	if g.lua == nil || g.lua.game == nil {
		return luabind.NilShared(), nil
	}
	return g.lua.engine.EncodeShared(g.lua.game.RawGetString("shared"))
}

// readShared reads the game.shared of a save of the given format version.
func readShared(d *savecodec.Decoder, version uint64) savedShared {
	if version < sharedVersion {
		return savedShared{}
	}
	return savedShared{b: d.Blob(), has: true}
}

// checkShared checks the game can take a saved game.shared: bytes of its
// encoding, and only a world script publishes one.
func (g *Game) checkShared(s savedShared) error {
	if err := luabind.CheckShared(s.b); err != nil {
		return err
	}
	if !luabind.SharedIsNil(s.b) && (g.lua == nil || g.lua.world == nil) {
		return fmt.Errorf("the save holds the world's game.shared, but this config has no world script")
	}
	return nil
}

// restoreShared gives the world's game.shared the saved one, before the
// world's load(t) runs (which has the last word). A save of before
// sharedVersion leaves game.shared as it is. The bytes are checked
// (checkShared) or the old state's own (carriedShared): RestoreShared,
// which leaves game.shared as it was on bytes it cannot read, reads them.
func (g *Game) restoreShared(s savedShared) {
	if !s.has || g.lua == nil || g.lua.game == nil {
		return
	}
	_ = g.lua.engine.RestoreShared(g.lua.game, s.b) // checked: see above
}

// carriedShared is the old Lua state's game.shared for a hot reload to
// carry into the new one, whose init ran again. One that cannot be encoded
// (a function in it: SetShared refuses it too) is not carried, with a
// warning: the new state keeps what its init published until the next
// tick.
func (g *Game) carriedShared(old *loadout, rep *ReloadReport) savedShared {
	if old.lua == nil || old.lua.game == nil {
		return savedShared{}
	}
	b, err := old.lua.engine.EncodeShared(old.lua.game.RawGetString("shared"))
	if err != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("game.shared is not carried over (its init's stays until the next tick): %v", err))
		return savedShared{}
	}
	return savedShared{b: b, has: true}
}
