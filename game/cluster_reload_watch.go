package game

import (
	"errors"
	"path/filepath"
	"slices"

	"github.com/btrun/btrun/cluster"
)

// A conductor between two steps does what one process's Run does there
// beside stepping (pace.go's betweenSteps): with run.realtime (or
// Options.Realtime) it keeps the pace, and with Watch it reloads what
// changed, for the whole cluster (Conductor.Reload: journaled, then
// applied on every process).
//
// A conductor opened from a copy of a checkpoint's files (SetFilesCopy:
// it goes back over a journaled reload) watches the run's folder all the
// same, whose files are the developer's: what the watcher sees while the
// game reads the copy waits (a reload then would read the copy), and once
// the last journaled reload is replayed and the game reads the run's
// folder again, what changed there since that reload read it (an edit made
// while no watcher ran, the process lost, or during the replay) is
// reloaded at the next step's start, with the watcher's batch if one is
// ready, as one process reloads an edit between two steps. Any recovery
// does the same over the checkpoint's files (cluster_watch_recover.go).

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
	if c.rec.since != nil && !c.replaying() { // the replay after a recovery is over (cluster_watch_recover.go)
		c.settle()
	}
	if err := c.reloadHeld(); err != nil { // cluster_reload_held.go: a reload asked for during the replay
		return err
	}
	if g.watcher == nil {
		return nil
	}
	if c.home != nil || c.replaying() { // on a copy, or replaying: what the watcher saw waits
		select {
		case batch := <-g.watcher.w.Changes():
			c.hold(batch)
		default:
		}
		return nil
	}
	if len(c.stale) > 0 {
		return c.reloadStale()
	}
	select {
	case n := <-g.watcher.w.Notices():
		g.out.notice(n.Text(displayPath(g.cfg, n.Path)))
		return c.h.writeOwn()
	case batch := <-g.watcher.w.Changes():
		if batch = c.unseen(batch); len(batch) == 0 {
			return nil
		}
		return c.reloadBatch(batch)
	default:
		return nil
	}
}

// reloadStale reloads the run's files that changed since the last
// replayed reload read them, with the watcher's batch if one is ready; the
// watcher's batch of the same edits, which may come later, is then no
// change (unseen).
func (c *Conductor) reloadStale() error {
	batch := c.stale
	c.stale = nil
	select {
	case more := <-c.g.watcher.w.Changes():
		batch = append(batch, more...)
	default:
	}
	slices.Sort(batch)
	batch = slices.Compact(batch)
	c.seen = make(map[string]string, len(batch))
	for _, p := range batch {
		h, _ := hashFile(p) // "" for a file gone: not seen
		c.seen[p] = h
	}
	return c.reloadBatch(batch)
}

// unseen is the watcher's batch without the files reloadStale reloaded
// whose content is still the one it read: the watcher saw the edit it
// reloaded, late.
func (c *Conductor) unseen(batch []string) []string {
	if len(c.seen) == 0 {
		return batch
	}
	out := batch[:0:0]
	for _, p := range batch {
		h, ok := c.seen[p]
		delete(c.seen, p)
		if ok && h != "" {
			if now, err := hashFile(p); err == nil && now == h {
				continue
			}
		}
		out = append(out, p)
	}
	return out
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
	if err := c.g.watchAt(c.home); err != nil { // the run's folder, also from a copy (SetFilesCopy)
		return err
	}
	if !say {
		c.g.cl.out.Reset()
	}
	return c.h.writeOwn()
}

// changedSince lists the files of man (but the config, which a reload
// does not read, and the paths in skip: the plugins' programs) whose
// content in cfg's folder is not the one man names, and the paths of held
// (what the watcher saw meanwhile) but those of man's files whose content
// is man's: absolute paths, as the watcher reports them.
func changedSince(cfg *Config, man *cluster.ReloadManifest, skip map[string]bool, held []string) []string {
	root, err := filesRoot(cfg, man.Config)
	if err != nil {
		return held
	}
	var out []string
	same := map[string]bool{}
	for _, f := range man.Files {
		if f.Path == man.Config || skip[f.Path] || !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if h, err := hashFile(p); err != nil || h != f.Hash {
			out = append(out, p) // gone or edited: the reload says which
		} else {
			same[p] = true
		}
	}
	for _, p := range held {
		if !same[p] {
			out = append(out, p) // a plugin's source, a new script: the reload reads them
		}
	}
	return out
}
