package game

import (
	"bytes"

	"github.com/btrun/btrun/cluster"
)

// afterFailedReload follows a reload that failed on the conductor. One
// process's failed reload may have changed agents already (the exits of
// started rules edited out above kept places run before anything can
// fail; agents that lost their place are restarted before the carry is
// planned again): so the shards' agents are given the copies' state and
// the gates' when an agent's save differs from the one its shard sent
// (saves, by place), whose restores send nothing (restoreAgentsTo). What
// the copies' hooks sent is carried into the next step's first deliveries
// (carrySent), where one process delivers it: it waits on the conductor,
// so a checkpoint taken now holds it (cluster_checkpoint.go). A failure
// that changed nothing (files that do not load) sends nothing more.
func (c *Conductor) afterFailedReload(saves []cluster.Item) error {
	g := c.g
	var out cluster.Out
	if err := g.agentSaves(0, int32(len(g.agents)), &out); err != nil {
		return err
	}
	same := len(out.Items) == len(saves)
	for i := 0; same && i < len(saves); i++ {
		same = saves[i].Agent == out.Items[i].Agent && bytes.Equal(saves[i].Data, out.Items[i].Data)
	}
	if !same {
		if err := c.h.loadShards(c.c); err != nil { // cluster_range.go: the agents' saves, the gates
			return err
		}
	}
	return c.carrySent()
}
