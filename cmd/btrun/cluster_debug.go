package main

import (
	"github.com/btrun/btrun/game"
)

// startDebug serves the live view of the conductor's game g (`btrun run
// -shards N -debug ADDR`): it lists and draws every shard's agents, from
// the conductor's copies (docs/debug.md). Its notice goes to standard
// error: the output stream is the run's, counted for its checkpoints. A
// run with a live view is not replayed after a lost shard (the page would
// see its steps again): the loss ends it.
func (s *clusterSession) startDebug(g *game.Game) (stop func(), err error) {
	return startDebug(g, s.r.debug, s.stderr, nil)
}
