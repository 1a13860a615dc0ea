package game

import (
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestCluster_shardStartErrorEndsTheRun: a world whose init writes into
// every agent's table runs in one process, and stops a shard's start (the
// shard finds only its own agents' tables): the conductor's first step
// ends with that Lua error, and the shard's ServeShard returns it.
func TestCluster_shardStartErrorEndsTheRun(t *testing.T) {
	dir := writeGame(t, map[string]string{
		"config.toml": `[run]
steps = 2
[scripts]
paths = ["ai"]
world = "ai/world.lua"
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 4
`,
		"ai/t.xml": `<behaviorTree><action id="root" name="bt.wait"><parameter name="wait.seconds">1</parameter></action></behaviorTree>`,
		"ai/world.lua": `local world = {}
function world.init(game)
  for _, id in ipairs(game.ids) do game.agents[id].n = 1 end
end
return world
`,
	})
	cfg, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	single, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer single.Close()
	if err := single.Start(); err != nil {
		t.Fatalf("in one process: %v", err)
	}
	const shards = 2
	cg, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer cg.Close()
	link, ends := cluster.NewLocal(shards)
	c, err := cg.Conduct(link, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, shards)
	for k := range shards {
		sg, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard, Shard: &ShardOf{K: k, N: shards}})
		if err != nil {
			t.Fatal(err)
		}
		defer sg.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = sg.ServeShard(ends[k], k, shards, ShardOptions{})
		}()
	}
	err = c.Start() // the start asks the shards for their lines: their first exchange
	if err == nil {
		err = c.Run(1)
	}
	if err == nil || !strings.Contains(err.Error(), "attempt to index") {
		t.Errorf("the start: %v; want the shards' start error", err)
	}
	c.Stop()
	wg.Wait()
	for k, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "attempt to index") {
			t.Errorf("shard %d: %v", k, err)
		}
	}
}
