package game

import (
	"context"
	"errors"
	"fmt"

	"github.com/btrun/btrun/plugins/host"
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
		Unbatched:       g.opts.Unbatched,
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
// own debug chatter is dropped. Restarts are counted in steps, so the host
// calls it only on the game's goroutine (what go-plugin's goroutines read
// from the plugins' pipes is held until Advance, a round's end or Close:
// host.Options.Logger): it writes the output and reads g.step without a
// lock. Long lines are cut without the whole-text copy (cutLine).
func (g *Game) pluginLog(level, msg string) {
	if level == "debug" {
		return
	}
	if g.out.log != nil {
		g.out.lineAt(pluginLevel(level), g.Time(g.step), "plugins", cutLine(msg))
		return
	}
	g.out.line(g.Time(g.step), "plugins", level+": "+cutLine(msg))
}

func (g *Game) closePlugins() error {
	if g.plugins == nil {
		return nil
	}
	return g.plugins.Close()
}
