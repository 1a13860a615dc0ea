package game

import (
	"errors"
	"slices"
)

// A conductor between two steps does what one process's Run does there
// beside stepping (pace.go's betweenSteps): with run.realtime (or
// Options.Realtime) it keeps the pace, and with Watch it reloads what
// changed, for the whole cluster (Conductor.Reload: journaled, then
// applied on every process).

// BetweenSteps keeps the pace and applies the watcher's changes, as Run
// does before each step in one process; Conductor.Run calls it before
// each step unless the caller did for that step. A reload that was not
// applied is not an error (the output says why, as one process's does);
// an error is the cluster's.
func (c *Conductor) BetweenSteps() error {
	g := c.g
	c.between = g.step + 1
	if g.pacer != nil {
		g.pacer.wait(g.opts.Stop)
	}
	if g.watcher == nil {
		return nil
	}
	select {
	case n := <-g.watcher.w.Notices():
		g.out.notice(n.Text(displayPath(g.cfg, n.Path)))
		return c.h.writeOwn()
	case batch := <-g.watcher.w.Changes():
		return c.reloadBatch(batch)
	default:
		return nil
	}
}

// reloadBatch reloads the files of a watcher's batch of changes, as
// Game.reloadChanged does.
func (c *Conductor) reloadBatch(batch []string) error {
	g := c.g
	src := g.watcher.sources.Load()
	var opts ReloadOptions
	for _, p := range batch {
		if name := src.plugin(p); name != "" && !slices.Contains(opts.Plugins, name) {
			opts.Plugins = append(opts.Plugins, name)
		}
		opts.Changed = append(opts.Changed, displayPath(g.cfg, p))
	}
	if _, err := c.Reload(opts); err != nil && !errors.Is(err, ErrReload) {
		return err
	}
	return nil
}

// Reloads is the number of reloads journaled so far, applied or not: a
// run that checkpoints after each (btrun run -shards) never replays one
// from files that changed since.
func (c *Conductor) Reloads() uint64 { return c.reloads }

// Watch watches the game's files (Game.Watch) for BetweenSteps; say
// false keeps its line ("watching ...") out of the output, for a
// conductor that takes a lost one's place in the run.
func (c *Conductor) Watch(say bool) error {
	if err := c.g.Watch(); err != nil {
		return err
	}
	if !say {
		c.g.cl.out.Reset()
	}
	return c.h.writeOwn()
}
