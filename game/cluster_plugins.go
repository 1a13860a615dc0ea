package game

import "fmt"

// Plugins in a cluster. One process sends each round's calls to a plugin
// as one batch in config order, so a plugin may keep state shared between
// agents and still give the same replies for any number of workers. A
// cluster gives each shard its own instance of a plugin, for its agents:
// that keeps the single run's replies only when the plugin promises that
// a reply depends on nothing but the call and the agent's own plugin state
// ([[plugins]] shardable = true). A plugin without that promise would run
// on the conductor, one batch of every shard's calls per round; until that
// is built, a cluster refuses it rather than give other results.

// checkClusterPlugins refuses a game whose plugins a cluster cannot run as
// one process does.
func (g *Game) checkClusterPlugins() error {
	for i, p := range g.cfg.Plugins {
		if !p.Shardable {
			return fmt.Errorf("%w: %s: plugins[%d] (%s) is not marked shardable: a cluster runs an instance of a plugin on each shard, which gives one process's results only for a plugin whose replies depend on nothing but the call and the agent's own plugin state; if %s keeps to that, add `shardable = true` to its [[plugins]] entry (running the others on the conductor is not built yet)",
				ErrClusterFeature, g.cfg.Path, i, p.Name, p.Name)
		}
	}
	return nil
}
