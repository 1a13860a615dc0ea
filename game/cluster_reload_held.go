package game

import (
	"errors"
	"fmt"
	"slices"
)

// A reload asked for during a replay (docs/cluster.md, "Reloads"): after
// a recovery the conductor replays the journal's inputs from the
// checkpoint on, and a reload journaled then (the live view's Reload or
// editor's save, an inputs file's line the journal does not hold) would
// come in the journal before inputs of later steps that it already
// holds: a later replay would meet them out of order, and the replay
// would apply the lost run's inputs to files that run did not have. So
// such a reload waits, as -watch's changes do (cluster_watch_recover.go):
// Reload answers a *ReloadWaitsError, and the reload is applied at the
// next step boundary after the replay's end (BetweenSteps), journaled as
// any reload, with what every reload that waited asked for. A developer
// who presses Reload while a resumed run replays sees the reload once the
// run is where it was, as the page's answer says.

// ReloadWaitsError is the answer to a reload asked for while the
// conductor replays its journal: it is not applied now, but after step
// Until, the replay's end. It is an ErrReload (nothing changed yet).
type ReloadWaitsError struct{ Until uint64 }

func (e *ReloadWaitsError) Error() string {
	return fmt.Sprintf("game: the run replays its journal from a checkpoint up to step %d: the reload waits, and applies after that step", e.Until)
}

// Is makes a waiting reload an ErrReload: nothing changed yet.
func (e *ReloadWaitsError) Is(target error) bool { return target == ErrReload }

// reloadNow answers a reload asked for between two steps: during a
// replay it waits (holdReload's answer); once the replay is over, the
// game reads the run's folder first (settle: the page's moment comes
// before BetweenSteps, which would do it).
func (c *Conductor) reloadNow(opts ReloadOptions) error {
	if c.replaying() {
		return c.holdReload(opts)
	}
	if c.rec.since != nil {
		c.settle()
	}
	return nil
}

// holdReload keeps opts for the replay's end, merged with what waits.
func (c *Conductor) holdReload(opts ReloadOptions) error {
	h := c.rec.held
	if h == nil {
		h = &ReloadOptions{}
		c.rec.held = h
	}
	h.Changed = mergeNames(h.Changed, opts.Changed)
	h.Plugins = mergeNames(h.Plugins, opts.Plugins)
	end := c.rec.to
	if n := len(c.pending); n > 0 {
		end = max(end, c.pending[n-1].Step)
	}
	return &ReloadWaitsError{Until: end}
}

// mergeNames is a with the names of b it lacks, in order.
func mergeNames(a, b []string) []string {
	for _, n := range b {
		if !slices.Contains(a, n) {
			a = append(a, n)
		}
	}
	return a
}

// reloadHeld applies the reload that waited for the replay's end, if one
// did: called between two steps once the replay is over.
func (c *Conductor) reloadHeld() error {
	opts := c.rec.held
	if opts == nil || c.replaying() {
		return nil
	}
	c.rec.held = nil
	if _, err := c.Reload(*opts); err != nil && !errors.Is(err, ErrReload) {
		return err
	}
	return nil
}

// WaitingReload is the reload that waits for the replay's end (nil for
// none): a conductor that loses a shard before then gives it to the next
// link's (WaitReload), whose replay it waits for in turn.
func (c *Conductor) WaitingReload() *ReloadOptions {
	if c.rec.held == nil {
		return nil
	}
	opts := *c.rec.held
	return &opts
}

// WaitReload makes opts wait for the replay's end, as a reload asked for
// during it does (a lost link's WaitingReload). Call it after Replay and
// Recovered.
func (c *Conductor) WaitReload(opts ReloadOptions) { c.holdReload(opts) }
