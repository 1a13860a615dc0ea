package game

import (
	"errors"
	"fmt"
	"io"

	"github.com/btrun/btrun/cluster"
)

// A game run by a cluster (docs/cluster.md): one Game is the conductor,
// others (in other processes, or goroutines) are its shards. Every one is
// opened from the same config; the conductor's trace and output are the
// run's, and they are those of the same game run in one process.

// Conductor is a Game conducting a cluster's shards over a link.
type Conductor struct {
	g *Game
	h *conductorHost
	c *cluster.Conductor

	inputs  cluster.Journal // nil: inputs are not journaled (cluster_inputs.go)
	pending []cluster.Input // journaled inputs a replay applies again

	files    cluster.FileStore // the reloads' files (cluster_reload.go)
	reloaded *ReloadReport     // the last reload's report
	fresh    bool              // the reload applied is a new one, not a replay
	reloads  uint64            // reloads journaled (cluster_reload_watch.go)
	between  uint64            // the step BetweenSteps ran before

	applied *cluster.ReloadManifest // the files of the last reload applied (cluster_reload_recover.go)
	home    *Config                 // the game opened from a copy of a checkpoint's files: its own config (cluster_reload_recover.go)
	stale   []string                // the run's files edited since the last replayed reload read them (cluster_reload_watch.go)
	seen    map[string]string       // what reloading stale read, by path: the watcher's late batch of it is no change
	rec     watchRecovery           // a recovery's files and replay, for -watch (cluster_watch_recover.go)
}

// Conduct makes g, opened and not started, the conductor of the link's
// shards: the run's trace goes to trace (nil: none; the shards must then
// write none, ShardOptions.Trace) and its output to out. Start it, then
// Run, then Finish and Stop.
func (g *Game) Conduct(link cluster.ConductorLink, trace, out io.Writer) (*Conductor, error) {
	h, err := newConductor(g, trace, out)
	if err != nil {
		return nil, err
	}
	c := &Conductor{g: g, h: h, c: &cluster.Conductor{Host: h, Link: link, Layout: cluster.Cut(len(g.agents), link.Shards()), Balance: g.balancer()}}
	g.cl.debug = &clusterDebug{c: c} // a live view's part, when one attaches (cluster_debug.go)
	return c, nil
}

// Start runs the game's start (the world's init, every agent's spawn) and
// writes what it wrote.
func (c *Conductor) Start() error { return c.h.start(c.c) }

// Run runs steps steps.
func (c *Conductor) Run(steps int) error {
	if c.g.debug != nil {
		if !c.h.copies() { // cluster_nocopy.go
			return fmt.Errorf("%w: a live view draws the conductor's copies of the agents, and a conductor opened with Options.Conductor holds none: open it without", ErrClusterFeature)
		}
		return c.runDebugged(steps) // cluster_debug.go
	}
	for range steps {
		if c.between != c.g.step+1 {
			if err := c.BetweenSteps(); err != nil { // cluster_reload_watch.go: the pace, -watch
				return err
			}
		}
		if err := c.replayDue(); err != nil { // cluster_inputs.go
			return err
		}
		if err := c.c.Step(c.g.step + 1); err != nil {
			return err
		}
	}
	return nil
}

// Save writes the run's save to path, as one process writes it.
func (c *Conductor) Save(path string) error {
	data, err := c.h.save(c.c)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSave, err)
	}
	if err := writeAtomic(path, data); err != nil {
		return fmt.Errorf("%w: %w", ErrSave, err)
	}
	return nil
}

// Load continues the run saved in data, on the conductor and every shard.
func (c *Conductor) Load(data []byte) error {
	if err := c.h.load(c.c, data); err != nil {
		return fmt.Errorf("%w: %w", ErrLoad, err)
	}
	return nil
}

// Finish ends the run as one process does: what the agents kept for the
// end (the output's folded repeats), then what closing them writes (an
// action running is cancelled). Save before.
func (c *Conductor) Finish() error {
	if err := c.c.Finish(c.g.step, 1); err != nil {
		return err
	}
	if err := c.h.finish(); err != nil {
		return err
	}
	return c.c.Finish(c.g.step, 2)
}

// Stop ends the shards and closes the link.
func (c *Conductor) Stop() error { return c.c.Stop() }

// Stats are the cluster's exchanges so far.
func (c *Conductor) Stats() cluster.Stats { return c.c.Stats() }

// Step is the number of steps done.
func (c *Conductor) Step() uint64 { return c.g.step }

// ShardOptions are a shard's settings that must match its conductor's.
type ShardOptions struct {
	Trace bool // the run writes a trace: the shard's agents' lines cross
	// Moves are how the shard measures its steps' cost, for a run that
	// moves agents (cluster_rebalance.go).
	Moves ShardMoves
	// Files is where the shard fetches the files of a reload that its
	// copy of the game's files does not hold (cluster_reload.go).
	Files cluster.FileStore
}

// ServeShard makes g, opened with Options.Shard = &ShardOf{k, shards} and
// not started, shard k of shards and serves its conductor over link until
// the conductor ends the run. The game made only that shard's agents.
func (g *Game) ServeShard(link cluster.ShardLink, k, shards int, opts ShardOptions) error {
	if k < 0 || k >= shards {
		return fmt.Errorf("game: shard %d of %d", k, shards)
	}
	lo, hi := cluster.Cut(len(g.agents), shards).Range(k)
	h, err := newShard(g, lo, hi, opts.Trace)
	if err != nil {
		return errors.Join(err, link.Close())
	}
	if err := h.await(); err != nil { // the conductor hears it (cluster_startfail.go); the start waits for the conductor's init (cluster_init49.go)
		if rerr := (&cluster.Shard{Host: startFailed{err}, Link: link}).Run(); rerr != nil && !errors.Is(rerr, err) {
			return errors.Join(err, rerr)
		}
		return err
	}
	h.files = opts.Files
	return opts.Moves.serve(h, link)
}
