package game

// In-memory saves of the whole game, for the live view's time travel and
// for hot reload: the bytes of a save file (docs/saves.md), kept in memory
// instead of written to disk.

// SaveState returns the whole run as a save would write it: settings,
// schedule progress, the world's state and every agent. Call it between
// steps. It fails as a save fails (a cursor without an id, a Lua value a
// save cannot hold, more than MaxSaveSize bytes).
func (g *Game) SaveState() ([]byte, error) { return g.encodeSave() }

// RestoreState puts the run back in the state SaveState returned: all or
// nothing, as Load. Running actions get their cancel call (a restore
// replaces the agents' state); warnings about trees edited since the state
// was saved are dropped (the same game's state never has any).
func (g *Game) RestoreState(data []byte) error {
	_, err := g.decodeSave(data)
	return err
}
