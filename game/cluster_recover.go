package game

import (
	"time"

	"github.com/btrun/btrun/cluster"
)

// A cluster that loses a process goes back to its last checkpoint and
// replays (docs/cluster.md, "Failures and recovery"). The conductor's
// side here: the checkpoint's keys; a checkpoint is written by the shards
// and the conductor (cluster_checkpoint.go); a new link (shards started or
// joined anew) takes the place of one that lost a shard.

// checkRecovery checks [cluster]'s recovery keys.
func checkRecovery(c *ClusterConfig, add func(key, format string, args ...any)) {
	if c.CheckpointEvery < 1 || c.CheckpointEvery > MaxSteps {
		add("checkpoint_every", "cluster.checkpoint_every = %d: must be from 1 to %d", c.CheckpointEvery, MaxSteps)
	}
	if d := c.Deadline.Duration; d < time.Second || d > time.Hour {
		add("deadline", "cluster.deadline = %q: must be from 1s to 1h", d.String())
	}
}

// Checkpoint is the run's state at the end of the last step, as its save
// file: the shards' agents gathered into the conductor's copies. (A run's
// checkpoints are WriteCheckpoint's, which gathers nothing.)
func (c *Conductor) Checkpoint() ([]byte, error) { return c.h.save(c.c) }

// Relink makes the conductor drive link's shards, which have started the
// game and hold nothing of the run yet: Load a checkpoint next. The old
// link is the caller's to close.
func (c *Conductor) Relink(link cluster.ConductorLink) {
	c.c = &cluster.Conductor{Host: c.h, Link: link, Layout: cluster.Cut(len(c.g.agents), link.Shards()), Balance: c.g.balancer()}
}
