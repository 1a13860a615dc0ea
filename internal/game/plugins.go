package game

import (
	"context"
	"errors"
	"fmt"

	"github.com/btrun/btrun/plugins/host"
	"github.com/btrun/btrun/runtime"
)

// ErrPluginStart marks plugins that could not be started: the run cannot go
// on (exit 1), unlike a problem in the config, trees or scripts (exit 2).
var ErrPluginStart = errors.New("game: a plugin could not be started")

// ErrPluginBuild marks plugins that a reload could not build or start
// again: the reload is not applied, and the running builds serve on.
var ErrPluginBuild = errors.New("game: a plugin could not be rebuilt")

// startPlugins starts the config's plugins (building Go packages on first
// use); nil without plugins.
func (g *Game) startPlugins() (*host.Set, error) {
	if len(g.cfg.Plugins) == 0 {
		return nil, nil
	}
	specs := make([]host.Spec, len(g.cfg.Plugins))
	for i, p := range g.cfg.Plugins {
		specs[i] = host.Spec{Name: p.Name, Path: p.Path, Dir: g.cfg.Dir}
	}
	ctx, cancel := g.stoppable()
	defer cancel()
	set, err := host.Start(ctx, specs, host.Options{
		CallTimeout: g.cfg.Run.PluginCallTimeout.Duration,
		Logger:      g.pluginLog,
		Progress:    g.out.notice,
		// Restarts counted in steps: a crashed plugin is back one step
		// later (then 2, 4, ... up to 64 steps while it keeps failing), at
		// the same step in every run, however fast the steps go.
		RestartMinSteps: 1,
		RestartMaxSteps: 64,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPluginStart, err)
	}
	return set, nil
}

// stoppable is a context that Options.Stop cancels: a stop cancels a
// plugin build or start under way (at Open, or in a reload).
func (g *Game) stoppable() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-g.opts.Stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// pluginLog shows what plugins say at info level and above; go-plugin's
// own debug chatter is dropped. It runs on the plugins' goroutines, so long
// lines are cut without the whole-text copy (cutLine).
func (g *Game) pluginLog(level, msg string) {
	if level == "debug" {
		return
	}
	g.out.line(g.Time(g.step), "plugins", level+": "+cutLine(msg))
}

// stepAgents steps the active agents at time t in SPEC §8's rounds: each
// agent runs until its step ends or it reaches a plugin call, the round's
// calls go to each plugin as one batch, the waiting agents resume in config
// order; without plugins that is one plain pass. It returns the number of
// agent-steps.
func (g *Game) stepAgents(t float64) int {
	g.active = g.active[:0]
	g.activeGA = g.activeGA[:0]
	for _, ga := range g.agents {
		if !ga.stopped {
			g.active = append(g.active, ga.a)
			g.activeGA = append(g.activeGA, ga)
		}
	}
	if g.plugins == nil {
		for _, ga := range g.activeGA {
			st, err := ga.a.StepAt(t)
			g.record(ga, st, err)
		}
		return len(g.activeGA)
	}
	var err error
	g.outcomes, err = host.StepAllInto(g.outcomes, g.active, func(a *runtime.Agent) (runtime.Status, error) {
		return a.StepAt(t)
	}, g.plugins)
	for i, ga := range g.activeGA {
		o := g.outcomes[i]
		if err != nil && o.Err == nil && o.Status == runtime.Paused {
			o.Err = err
		}
		g.record(ga, o.Status, o.Err)
	}
	return len(g.activeGA)
}

func (g *Game) closePlugins() error {
	if g.plugins == nil {
		return nil
	}
	return g.plugins.Close()
}
