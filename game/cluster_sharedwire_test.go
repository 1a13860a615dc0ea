package game

import (
	"fmt"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// wireSharedGame is sharedGame whose world publishes, in game.shared, what
// SetShared keeps and signal data does not: keys inserted out of their
// sorted order, a boolean key, fractional keys, one table at two places
// (and holding itself), and more than a signal's worth of data (a list of
// 6000 numbers that changes every step). The agents, spread over the
// shards, log pairs(bt.shared)'s order, whether both places hold one table
// and the list's length and sum.
func wireSharedGame() map[string]string {
	files := sharedGame()
	files["config.toml"] = files["config.toml"] + "[[agents]]\ntree = \"t\"\nname = \"u\"\ncount = 3\n"
	files["ai/world.lua"] = `local world = {}
function world.tick(game)
  local p = {x = game.step}
  p.self = p
  local big = {}
  for i = 1, 6000 do big[i] = i * game.step + 0.5 end
  if game.step % 5 == 3 then
    game.shared = nil
  else
    game.shared = {zeta = game.step, [true] = "yes", [2.5] = -0.0, alpha = p, [game.step + 0.25] = 1, mid = p, big = big}
  end
end
return world
`
	files["ai/watch.lua"] = `local bt = require("bt")
local function seen(ctx, what)
  local s = bt.shared
  if not s then
    ctx:log(what .. " none")
    return
  end
  local keys = {}
  for k in pairs(s) do keys[#keys + 1] = tostring(k) end
  local sum = 0
  for _, v in ipairs(s.big) do sum = sum + v end
  ctx:log(what .. " keys=" .. table.concat(keys, ",") .. " one=" .. tostring(rawequal(s.alpha, s.mid)) ..
    " self=" .. tostring(rawequal(s.alpha.self, s.alpha)) .. " x=" .. s.alpha.x .. " big=" .. #s.big .. "/" .. sum)
end
bt.action("watch", {
  run = function(ctx) seen(ctx, "run") return bt.RUNNING end,
  on = {
    poke = function(ctx) seen(ctx, "poke") end,
  },
})
`
	return files
}

// TestClusterSharedWire_theShardsSeeWhatOneProcessPublishes: a cluster's
// shards get game.shared at each step's start in the encoding of saves,
// which keeps what one process's bt.shared keeps: pairs() walks the keys
// in the order the world set them (not sorted), boolean and fractional
// keys, one table at two places, and a value bigger than signal data may
// be. On 1, 2 and 3 shards, with and without copies, the run is one
// process's, byte for byte.
func TestClusterSharedWire_theShardsSeeWhatOneProcessPublishes(t *testing.T) {
	config := writeGame(t, wireSharedGame())
	const steps = 7
	wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, config, 0), Options{}, steps, true)
	if !strings.Contains(wantOut, "keys=zeta,true,2.5,alpha,2.25,mid,big one=true self=true x=2 big=6000/") {
		t.Fatalf("one process's run shows no bt.shared as published:\n%s", wantOut)
	}
	for _, copies := range []bool{false, true} {
		for _, shards := range []int{1, 2, 3} {
			tc := openCluster(t, clusterSetup{name: config, shards: shards, copies: copies})
			tc.steps(1, steps)
			if b, err := tc.ch.g.sharedBytes(); err != nil || len(b) <= runtime.MaxDataSize {
				t.Fatalf("game.shared takes %d bytes (%v), want more than signal data may", len(b), err)
			}
			tc.wantSolo(fmt.Sprintf("%d shards, copies %v", shards, copies), wantTrace, wantOut, wantSave)
			tc.stop()
		}
	}
}

// TestClusterSharedWire_aSaveAtEveryStepAndACheckpointKeepIt: a cluster
// saved after any step (or checkpointed) and loaded (or restored) on 1, 2
// or 3 shards ends as one process's run: the save and the checkpoint hold
// game.shared with its table at two places, which used to fail them.
func TestClusterSharedWire_aSaveAtEveryStepAndACheckpointKeepIt(t *testing.T) {
	config := writeGame(t, wireSharedGame())
	const steps = 7
	wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, config, 0), Options{}, steps, true)
	for cut := 1; cut < steps; cut++ {
		for _, how := range []string{"load", "checkpoint"} {
			if how == "checkpoint" && cut != 4 {
				continue
			}
			for _, shards := range []int{1, 2, 3} {
				copies := shards == 2
				t.Run(fmt.Sprintf("%s@%d/%d", how, cut, shards), func(t *testing.T) {
					run := t.Name()
					store := cluster.SharedMemStore(run)
					a := openCluster(t, clusterSetup{name: config, shards: 2, copies: copies})
					a.steps(1, cut)
					var data []byte
					if how == "load" {
						data = a.save()
					} else if _, err := a.conductor().WriteCheckpoint(store, run, cluster.Checkpoint{Seq: 1, Until: steps}); err != nil {
						t.Fatal(err)
					}
					traceAt, outAt := a.trace.Len(), a.out.Len()
					a.steps(cut+1, cut+1) // what the restore goes back from
					a.stop()

					b := openCluster(t, clusterSetup{name: config, shards: shards, copies: copies})
					b.steps(1, 1)
					if how == "load" {
						b.load(data)
					} else {
						cp, ok, err := store.Latest()
						if err != nil || !ok {
							t.Fatalf("the run's checkpoint: %v, %v", ok, err)
						}
						if err := b.conductor().RestoreCheckpoint(store, run, cp); err != nil {
							t.Fatal(err)
						}
					}
					b.trace.Reset()
					b.out.Reset()
					b.trace.Write(a.trace.Bytes()[:traceAt])
					b.out.Write(a.out.Bytes()[:outAt])
					b.steps(cut+1, steps)
					b.wantSolo("", wantTrace, wantOut, wantSave)
				})
			}
		}
	}
}
