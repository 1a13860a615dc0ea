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
// that changed nothing (files that do not load) sends nothing more. man,
// the files it read, is kept (FailedReload).
func (c *Conductor) afterFailedReload(saves []cluster.Item, man *cluster.ReloadManifest) error {
	g := c.g
	c.rec.failed = man
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

// FailedReload is the manifest of the files the last reload read when it
// failed (they do not load: the run goes on with Reloaded's files, or
// those it started with), nil when the last reload applied or none was.
// A checkpoint taken after it records both (btrun run's "files" and
// "failed" parts): a recovery from there opens the game from the files
// the run runs with, never the run's folder, which holds the files that
// failed; and -watch, which saw the failed files and tried them, reloads
// them again only once they change again, as one process's watcher does
// (Recovered with SeenFiles).
func (c *Conductor) FailedReload() *cluster.ReloadManifest { return c.rec.failed }

// SeenFiles is the files a run last read: run, those it runs with, with
// the files of failed (FailedReload; nil: none) in their place where
// failed names them. -watch compares the run's folder with it after a
// recovery (Recovered).
func SeenFiles(run, failed *cluster.ReloadManifest) *cluster.ReloadManifest {
	if failed == nil || run == nil {
		return run
	}
	out := *run
	out.Files = make([]cluster.ReloadFile, 0, len(run.Files)+len(failed.Files))
	read := make(map[string]bool, len(failed.Files))
	for _, f := range failed.Files {
		read[f.Path] = true
	}
	for _, f := range run.Files {
		if !read[f.Path] {
			out.Files = append(out.Files, f)
		}
	}
	out.Files = append(out.Files, failed.Files...)
	return &out
}

// RecoveredFailed tells a conductor that goes on from a checkpoint taken
// after a failed reload the files that reload read (the checkpoint's
// FailedReload), so that its own checkpoints record them until a reload
// applies.
func (c *Conductor) RecoveredFailed(man *cluster.ReloadManifest) { c.rec.failed = man }
