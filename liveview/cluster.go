package liveview

import (
	"errors"
	"net/http"

	"github.com/btrun/btrun/game"
)

// A live view on a cluster's conductor (game.Game.Conducting): the agents
// it draws are the conductor's copies, refreshed after every step from
// their shards, and each agent's summary names its shard. What would move
// every shard back in time (time travel, an opened save) is refused with
// errInCluster; the game refuses the rest (game.ErrClusterDebug). A reload
// (the Reload button's Options.Reload, game.Game.ReloadAll, and the
// editor's save, game.DebugHost.Reload) reloads the whole cluster, as the
// game's journaled reload (game.Conductor.Reload).

// inCluster is the travel error and refusal text of a cluster.
const inCluster = "not available in a cluster: the live view of a cluster shows each step as it runs, and cannot go back"

func errInCluster(what string) error {
	return errorf(http.StatusConflict, "%s is %s", what, inCluster)
}

// shardOf is agent i's shard for its summary, nil outside a cluster.
func shardOf(shard int) *int {
	if shard < 0 {
		return nil
	}
	return &shard
}

// refusedInReplay reports whether err is a conductor's refusal of the
// page's input while the run replays its journal from a checkpoint
// (game.ReplayingError): nothing was applied, so a jump's refusal is the
// answer (409), not a warning beside a cursor that moved.
func refusedInReplay(err error) bool {
	var r *game.ReplayingError
	return errors.As(err, &r)
}
