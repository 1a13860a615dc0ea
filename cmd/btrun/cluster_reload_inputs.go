package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	_, err = g.Game.Reload(game.ReloadOptions{Changed: changed})
	return err
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
	_, rerr := c.Conductor.Reload(game.ReloadOptions{Changed: changed})
	if rerr != nil && !errors.Is(rerr, game.ErrReload) {
		return rerr // the cluster's: a lost shard, say (the run recovers)
	}
	if err := c.s.afterReload(c.Conductor, n, c.s.until); err != nil {
		return err
	}
	return rerr
}
