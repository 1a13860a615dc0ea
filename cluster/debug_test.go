package cluster_test

import (
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/internal/model"
)

// TestDebug_commandsNeedAShardThatTakesThem: a live view's command for an
// agent no shard holds is refused before anything is sent, and a shard
// whose host takes no commands ends the run with a clear error rather
// than applying nothing silently.
func TestDebug_commandsNeedAShardThatTakesThem(t *testing.T) {
	w := &model.World{N: agents}
	link, ends := cluster.NewLocal(2)
	mc := model.Start(w, link, ends)
	if err := mc.Steps(1, 3); err != nil {
		t.Fatal(err)
	}
	err := mc.C.Debug(3, []cluster.Item{{Kind: cluster.DebugNote, Agent: agents, Name: cluster.DebugJump, Text: "x"}})
	if err == nil || !strings.Contains(err.Error(), "which no shard holds") {
		t.Errorf("a command for agent %d of %d: %v", agents, agents, err)
	}
	err = mc.C.Debug(3, []cluster.Item{{Kind: cluster.DebugNote, Agent: -1, Name: cluster.DebugRelay}})
	if err == nil || !strings.Contains(err.Error(), "a live view's commands, which this shard does not take") {
		t.Errorf("commands to shards that take none: %v", err)
	}
	if err := mc.Stop(); err == nil || !strings.Contains(err.Error(), "which this shard does not take") {
		t.Errorf("the shards' end: %v", err)
	}
}
