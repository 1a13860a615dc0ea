package game

import (
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/luabind"
)

// The world's game.shared after a cluster's load or a checkpoint's
// restore (shared_save.go): the conductor runs the world and holds
// game.shared, and the shards' Lua states have it as bt.shared only from
// the conductor, at each step's start (shardHost.Begin). A load or a
// restore gives the conductor the saved game.shared (a reload, the
// carried one, after the world's init ran again everywhere); the shards
// get it with their agents' saves, in the sharedItem, and publish it once their
// agents are restored (as one process publishes it after the agents'
// restores, with the world's load): what reads bt.shared before the next
// tick publishes again (the handlers of the signals of inputs replayed at
// the checkpoint's step, and of the signals the tick sends before it
// publishes) reads what the saved run had.

// sharedItem names the Load item that carries game.shared (as Begin's
// shared data).
const sharedItem = "shared"

// sharedItems is the conductor's game.shared as the one item every shard
// gets with a load; none for a game without a world.
func (g *Game) sharedItems() ([]cluster.Item, error) {
	if g.lua == nil || g.lua.game == nil {
		return nil, nil
	}
	data, err := g.sharedBytes() // shared_save.go: the save's encoding
	if err != nil {
		return nil, fmt.Errorf("game: game.shared for the shards: %w", err)
	}
	return []cluster.Item{{Kind: cluster.AgentSave, Agent: -1, Peer: -1, Name: sharedItem, Data: data}}, nil
}

// isSharedItem reports whether it is the sharedItem.
func isSharedItem(it *cluster.Item) bool {
	return it.Kind == cluster.AgentSave && it.Agent == -1 && it.Name == sharedItem
}

// takeSharedItem publishes the game.shared of the sharedItem among saves
// to every Lua state of the shard; without one, nothing changes.
func (h *shardHost) takeSharedItem(saves []cluster.Item) error {
	for i := range saves {
		if isSharedItem(&saves[i]) {
			return h.g.takeShared(saves[i].Data)
		}
	}
	return nil
}

// takeShared makes shared, game.shared from the conductor (sharedBytes), bt.shared in every Lua state of the shard. It is decoded
// once, into tables built in game.shared's order (a table reached twice
// one table), which SetShared copies into each state as one process copies
// game.shared itself.
func (g *Game) takeShared(shared []byte) error {
	if g.lua == nil {
		return nil
	}
	lv, err := g.lua.engine.DecodeShared(shared)
	if err != nil {
		return fmt.Errorf("game: shared data from the conductor: %w", err)
	}
	for _, s := range append([]*scripts{g.lua}, g.extraScripts()...) {
		if err := s.engine.SetShared(lv); err != nil {
			return fmt.Errorf("game: shared data from the conductor: %w", err)
		}
	}
	g.lua.shared = !luabind.SharedIsNil(shared)
	return nil
}
