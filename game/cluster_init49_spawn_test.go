package game

import (
	"fmt"
	"testing"
)

// TestCluster_spawnSignalsOpenTheFirstStepAsInOneProcess: what the spawns
// send (to one agent, to all) waits for the first step's deliveries ahead
// of what that step sends, as in one process, even when the world's first
// tick delivers to an agent of the sender's shard before any agent steps
// (the shard took the spawns' signals with that delivery, and they came
// before another shard's earlier spawn's), with and without copies.
func TestCluster_spawnSignalsOpenTheFirstStepAsInOneProcess(t *testing.T) {
	files := refuseGame()
	files["ai/world.lua"] = `local world = {}
function world.spawn(ctx)
  local bt = require("bt")
  if ctx.id == "k-1" then ctx:send("t-1", "Hello", "from spawn") end
  if ctx.id == "t-3" then bt.broadcast("Spawned", "s") end
end
function world.tick(game) game.signal("t-2", "W" .. game.step) end
return world`
	config := writeGame(t, files)
	wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, config, 0), Options{}, 2, true)
	for _, copies := range []bool{false, true} {
		for shards := 1; shards <= 3; shards++ {
			tc := openCluster(t, clusterSetup{name: config, shards: shards, copies: copies})
			tc.steps(1, 2)
			tc.wantSolo(fmt.Sprintf("copies %v, %d shards", copies, shards), wantTrace, wantOut, wantSave)
		}
	}
}
