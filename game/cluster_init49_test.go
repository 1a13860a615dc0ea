package game

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// initRefuseGame is refuseGame whose world's init fills the last agent
// (t-4, on the last shard) until it refuses, then sends a signal to all
// that t-4 cannot hold (so no agent gets it), fills t-2 (on a middle
// shard) and a signal to all that t-2 refuses, sends data that does not
// fit k-2's signal line, and goes on by what was refused: how many fills
// t-4 took decides a last signal and game.shared, which every spawn
// reads (spawn logs it and sends t-1 a signal from k-1). The ticks keep
// signalling so that the agents' stimuli after the start matter.
func initRefuseGame() map[string]string {
	files := refuseGame()
	files["ai/world.lua"] = `local world = {}
local function try(game, to, name, data)
  local ok, err = pcall(game.signal, to, name, data)
  game.log("init", to, name, ok, err)
  return ok
end
function world.init(game)
  local n = 0
  while n < 10 and try(game, "t-4", "F" .. n, string.rep("f", 20000)) do n = n + 1 end
  local big = try(game, "all", "Big", string.rep("b", 10000))
  try(game, "t-2", "A", string.rep("a", 40000))
  local mid = try(game, "all", "Mid", string.rep("m", 30000))
  try(game, "k-2", "Hurt", { hp = "lots" })
  try(game, "all", "Hurt", { hp = 4 })
  if not big and not mid then
    game.signal("k-1", "Hurt", { hp = n })
    game.shared = { fills = n, big = big }
  else
    game.shared = { fills = -1 }
  end
  game.log("init done", n)
end
function world.spawn(ctx)
  local bt = require("bt")
  ctx:log("spawn sees fills " .. tostring(bt.shared and bt.shared.fills))
  if ctx.id == "k-1" then ctx:send("t-1", "Hello", "from spawn") end
  if ctx.id == "t-3" then bt.broadcast("Spawned", string.rep("s", 8000)) end
end
function world.tick(game)
  local s = game.step
  game.log("tick", s)
  local ok, err = pcall(game.signal, "t-" .. (s % 4 + 1), "W" .. s, string.rep("w", 9000))
  game.log("tick", s, ok, err)
end
return world`
	return files
}

// TestCluster_worldInitSignalsOverfillAsInOneProcess: the world's init
// that overfills a receiver on one shard, then sends signals to all that
// a receiver on another shard refuses, and goes on by what was refused,
// is refused, delivered, written and continued as in one process: each
// signal of the init is checked by its receivers' shards in one process's
// order (or by the conductor's copies), and every process's init takes
// the same answers, so that the spawns read the same game.shared. On 1, 2
// and 3 shards, with and without copies, with workers on the shards.
func TestCluster_worldInitSignalsOverfillAsInOneProcess(t *testing.T) {
	config := writeGame(t, initRefuseGame())
	const steps = 6
	wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, config, 0), Options{}, steps, true)
	for _, want := range []string{
		`world init t-4 F2 true`,
		`world init t-4 F3 false ai/world.lua:3: game.signal("t-4", "F3", data): agent t-4: cannot hold signal "F3"`,
		`world init all Big false ai/world.lua:3: game.signal("all", "Big", data): agent t-4: cannot hold`,
		`world init all Mid false ai/world.lua:3: game.signal("all", "Mid", data): agent t-2: cannot hold`,
		`world init k-2 Hurt false`,
		`world init all Hurt true`,
		`world init done 3`,
		`spawn sees fills 3`,
		`t-1 <- signal Hello`,
	} {
		if !strings.Contains(wantOut, want) {
			t.Fatalf("one process's output has no %q (the game does not test what it should):\n%s", want, wantOut)
		}
	}
	for _, copies := range []bool{false, true} {
		for shards := 1; shards <= 3; shards++ {
			for _, workers := range []int{1, 2} {
				tc := openCluster(t, clusterSetup{name: config, shards: shards, workers: workers, copies: copies})
				tc.steps(1, steps)
				tc.wantSolo(fmt.Sprintf("copies %v, %d shards, %d workers", copies, shards, workers), wantTrace, wantOut, wantSave)
			}
		}
	}
}

// TestCluster_worldInitSignalsReplayedFromTheStart: a run recovered from
// its start (its checkpoint of step 0, before any step, as btrun writes
// one) runs the world's init again on new shards, another number of
// them: the same answers, and one process's trace, output and save.
func TestCluster_worldInitSignalsReplayedFromTheStart(t *testing.T) {
	config := writeGame(t, initRefuseGame())
	const steps = 6
	wantTrace, wantOut, wantSave := soloRun(t, movingConfig(t, config, 0), Options{}, steps, true)
	for _, shards := range []int{3, 1} {
		for _, copies := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/copies=%v", shards, copies), func(t *testing.T) {
				run := t.Name()
				store := cluster.SharedMemStore(run)
				a := openCluster(t, clusterSetup{name: config, shards: 2, copies: copies})
				if _, err := a.conductor().WriteCheckpoint(store, run, cluster.Checkpoint{Seq: 1, Until: steps}); err != nil {
					t.Fatal(err)
				}
				traceAt, outAt := a.trace.Len(), a.out.Len()
				a.steps(1, 3) // lost with the conductor
				a.stop()
				cp, ok, err := store.Latest()
				if err != nil || !ok {
					t.Fatalf("the run's checkpoint: %+v, %v, %v", cp, ok, err)
				}
				b := openCluster(t, clusterSetup{name: config, shards: shards, copies: copies})
				if err := b.conductor().RestoreCheckpoint(store, run, cp); err != nil {
					t.Fatal(err)
				}
				b.trace.Reset()
				b.out.Reset()
				b.trace.Write(a.trace.Bytes()[:traceAt])
				b.out.Write(a.out.Bytes()[:outAt])
				b.steps(1, steps)
				b.wantSolo("", wantTrace, wantOut, wantSave)
			})
		}
	}
}

// TestCluster_worldInitSignalsThatDifferStopTheStart: an init that sends
// signals by what it finds in game.agents (a shard finds its own agents'
// tables, a conductor without copies none) sends other signals in each
// process: the start stops with an error naming the shard, on ServeShard
// as on the conductor, rather than delivering what no process would (a
// script that catches the error stops the start too).
func TestCluster_worldInitSignalsThatDifferStopTheStart(t *testing.T) {
	files := refuseGame()
	files["ai/world.lua"] = `local world = {}
function world.init(game)
  for _, id in ipairs(game.ids) do
    if game.agents[id] then pcall(game.signal, id, "Mine") end
  end
end
return world`
	config := writeGame(t, files)
	const shards = 2
	for _, copies := range []bool{false, true} {
		s := clusterSetup{name: config, shards: shards, copies: copies}
		cg := s.open(t, io.Discard, 1, nil, !copies)
		link, ends := cluster.NewLocal(shards)
		c, err := cg.Conduct(link, nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, shards)
		for k := range shards {
			sg := s.open(t, io.Discard, 1, &ShardOf{K: k, N: shards}, false)
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[k] = sg.ServeShard(ends[k], k, shards, ShardOptions{})
			}()
		}
		const want = "an init must send the same signals in every process"
		err = c.Start()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "the shard of agents") {
			t.Errorf("copies %v: the start: %v; want the shards' error", copies, err)
		}
		c.Stop()
		wg.Wait()
		for k, err := range errs {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("copies %v: shard %d: %v", copies, k, err)
			}
		}
	}
}

// kindCounter counts the messages the conductor sends, by kind.
type kindCounter struct {
	cluster.ConductorLink
	sent map[cluster.Kind]int
}

func (l *kindCounter) Send(k int, m *cluster.Message) error {
	l.sent[m.Kind]++
	return l.ConductorLink.Send(k, m)
}

// TestCluster_worldInitWithoutSignalsCostsNothing: a start whose world's
// init sends no signal sends each shard its StartLines only, as before;
// one whose init sends signals sends an input check a signal to every
// shard, a deliver to the shards holding the receivers of each signal
// that was not refused, and one more input check with the answers.
func TestCluster_worldInitWithoutSignalsCostsNothing(t *testing.T) {
	quiet := refuseGame()
	quiet["ai/world.lua"] = `local world = {}
function world.init(game) game.log("init", #game.ids); game.shared = { n = #game.ids } end
return world`
	for _, c := range []struct {
		files  map[string]string
		checks int // input checks a shard
	}{{quiet, 0}, {initRefuseGame(), 10 + 1}} {
		config := writeGame(t, c.files)
		for _, copies := range []bool{false, true} {
			for shards := 1; shards <= 3; shards++ {
				counter := &kindCounter{sent: map[cluster.Kind]int{}}
				openCluster(t, clusterSetup{name: config, shards: shards, copies: copies, link: func(l cluster.ConductorLink) cluster.ConductorLink {
					counter.ConductorLink = l
					return counter
				}})
				want := map[cluster.Kind]int{cluster.StartLines: shards}
				if c.checks > 0 {
					want[cluster.InputCheck] = shards * c.checks
					if copies {
						want[cluster.InputCheck] = shards // the answers only: the copies checked and delivered
					} else if counter.sent[cluster.Deliver] < 6 {
						t.Errorf("copies %v, %d shards: %d deliver messages", copies, shards, counter.sent[cluster.Deliver])
					}
					delete(counter.sent, cluster.Deliver)
				}
				if fmt.Sprint(counter.sent) != fmt.Sprint(want) {
					t.Errorf("copies %v, %d shards, %d checks: the start sent %v, want %v", copies, shards, c.checks, counter.sent, want)
				}
			}
		}
	}
}
