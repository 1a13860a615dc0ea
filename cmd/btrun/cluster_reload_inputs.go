package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/internal/readfile"
)

// An inputs file's `AFTER reload [PATH FROM]` line: the game's files
// loaded again between two steps, as -watch does when they change, after
// an edit the line scripts (FROM's content written over PATH), so that a
// run reloads at a chosen step whatever the clock. One process reloads
// with Game.Reload, a cluster with Conductor.Reload (journaled, applied
// everywhere, then a checkpoint: cluster_reload.go). A reload comes first
// among the lines of its step, so that the checkpoint after it holds no
// other input of that step.

// reloadFirst refuses a reload line after another line of its step.
func reloadFirst(in runInput, before []runInput) error {
	if in.op == "reload" && len(before) > 0 {
		if last := before[len(before)-1]; last.after == in.after && last.op != "reload" {
			return fmt.Errorf("a reload comes first among the lines of its step (after step %d)", in.after)
		}
	}
	return nil
}

// scriptedEdit writes from's content over path, both relative to the
// config's folder ("" for none).
func scriptedEdit(cfg *game.Config, path, from string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	data, err := readfile.Read(cfg.Abs(from), 1<<30, "file of a reload")
	if err != nil {
		return nil, fmt.Errorf("reload %s from %s: %w", path, from, err)
	}
	if err := os.WriteFile(cfg.Abs(path), data, 0o644); err != nil {
		return nil, fmt.Errorf("reload %s from %s: %w", path, from, err)
	}
	return []string{filepath.ToSlash(path)}, nil
}

// Reload is a reload line for one process.
func (g gameInputs) Reload(path, from string) error {
	changed, err := scriptedEdit(g.cfg, path, from)
	if err != nil {
		return err
	}
	_, err = g.Game.Reload(game.ReloadOptions{Changed: changed, Plugins: pluginOf(g.Game.PluginOf(path))})
	return err
}

// pluginOf is the plugins a reload line builds again: the one whose Go
// sources it edits (Game.PluginOf), as -watch builds it again.
func pluginOf(name string) []string {
	if name == "" {
		return nil
	}
	return []string{name}
}

// conductorInputs is a cluster's conductor as an inputTarget: a reload
// line is followed by the run's checkpoint (cluster_reload.go).
type conductorInputs struct {
	*game.Conductor
	s *clusterSession
}

func (c conductorInputs) Reload(path, from string) error {
	changed, err := scriptedEdit(c.s.r.cfg, path, from)
	if err != nil {
		return err
	}
	n := c.Reloads()
	_, rerr := c.Conductor.Reload(game.ReloadOptions{Changed: changed, Plugins: pluginOf(c.Conductor.PluginOf(path))})
	if rerr != nil && !errors.Is(rerr, game.ErrReload) {
		return rerr // the cluster's: a lost shard, say (the run recovers)
	}
	if err := c.s.afterReload(c.Conductor, n, c.s.until); err != nil {
		return err
	}
	return rerr
}

// A resumed run's inputs file goes on after the lines its checkpoint and
// journal hold (inputFeed.skip), each applied exactly once. The journal
// also holds inputs no line is: the live view's commands, and a reload
// -watch or the page journaled whose checkpoint was not taken (the
// conductor lost during it). Matching one of those to a later line would
// pass that line by, never applied (and every line after it, when none
// matches): so a journaled input passes by only up to the line it is, and
// a reload is a line's only if it reloaded what the line names.

// find is the index, from the first line not sent, of the line that is
// the journaled input j, or -1 when no line is.
func (f *inputFeed) find(j *cluster.Input) int {
	for k := f.next; k < len(f.ins); k++ {
		if f.ins[k].is(j) {
			return k
		}
	}
	return -1
}

// reloads reports whether the journaled reload j is the reload line: what
// it reloaded is what the line names (PATH, or nothing for a bare
// reload), and no plugin by name but the one whose sources PATH is (the
// page's Reload names them all, with no file).
func (in *runInput) reloads(j *cluster.Input) bool {
	man, err := cluster.DecodeReload(j.Data)
	if err != nil {
		return false
	}
	if in.to == "" {
		return len(man.Changed) == 0 && len(man.Plugins) == 0
	}
	if len(man.Plugins) > 1 {
		return false
	}
	return len(man.Changed) == 1 && man.Changed[0] == filepath.ToSlash(in.to)
}
