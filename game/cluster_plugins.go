package game

import (
	"fmt"
	"slices"
	"strings"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/plugins/host"
	"github.com/btrun/btrun/plugins/sdk"
)

// Plugins in a cluster. One process sends each round's calls to a plugin
// as one batch in config order, so a plugin may keep state shared between
// agents (a counter, a reservation table) and still give the same replies
// for any number of workers. A cluster keeps that: a plugin runs on the
// conductor, and each round the shards' calls to it cross up (one request
// per shard and plugin, its agents' calls in config order), the conductor
// joins them by place into the one batch one process sends (cluster.Merge
// has put the shards' requests in config order), runs it, and sends each
// shard the replies to its calls (one answer per shard and plugin), with
// which its agents resume. Failures, timeouts and restarts happen on the
// conductor, where one process has them, and what they write is written
// at the round's end, as one process writes it.
//
// A plugin marked `shardable = true` (its author's promise that a reply
// depends only on the call and the agent's own plugin state) runs on each
// shard instead, for its agents: its calls do not cross.
//
// A plugin's per-agent state is the state bytes of the agent's rule (the
// host keeps none of its own), saved with the agent on its shard.

// shardPlugin is what the shards get at plugin i's path in place of its
// program (ClusterFiles): its declarations, when it runs on the conductor
// and declares no cancel hook (a synchronous call, which does not travel:
// a shard runs its own instance of such a plugin for its cancel hooks), so
// that shards start no process for it; nil when the program must go.
func (g *Game) shardPlugin(i int, d *sdk.Description) ([]byte, error) {
	if g.cfg.Plugins[i].Shardable {
		return nil, nil
	}
	for _, a := range d.Actions {
		if a.HasCancel {
			return nil, nil
		}
	}
	b, err := host.Declarations(d)
	if err != nil {
		return nil, fmt.Errorf("game: the files for the shards: %w", err)
	}
	return b, nil
}

// relayPrefix starts the name of a request or answer that carries a
// plugin's calls or replies (then the plugin's name); the gates' is
// gateAnswer.
const relayPrefix = "plugin "

// relayPlugins makes a shard's plugins that are not shardable relayed:
// their calls go to the conductor (host.Set.Relay).
func (g *Game) relayPlugins() error {
	if g.plugins == nil {
		return nil
	}
	for _, p := range g.cfg.Plugins {
		if !p.Shardable {
			if err := g.plugins.Relay(p.Name); err != nil {
				return fmt.Errorf("game: %w", err)
			}
		}
	}
	return nil
}

// isRelayed reports whether a request or answer carries plugin calls or
// replies.
func isRelayed(it cluster.Item) bool { return strings.HasPrefix(it.Name, relayPrefix) }

// relayUp adds the round's calls to relayed plugins as requests, one per
// plugin, at the place of the plugin's first caller: the shards' ranges
// are contiguous, so the conductor's merge puts every shard's calls of a
// plugin in config order. Rank 2 + the plugin's index keeps them apart
// from the gates' request (rank 1) at the same place.
func (h *shardHost) relayUp(out *cluster.Out) error {
	g := h.g
	held, err := g.plugins.Held(nil)
	if err != nil {
		return err
	}
	for _, p := range held {
		ga := g.byPtr[p.First]
		if ga == nil {
			return fmt.Errorf("game: plugin %s: the round's first call is of no agent of the game", p.Plugin)
		}
		out.Add(cluster.Place(cluster.PhaseRound, int64(ga.idx)), 2+uint64(g.pluginIndex(p.Plugin)),
			cluster.Item{Kind: cluster.Request, Agent: ga.idx, Name: relayPrefix + p.Plugin, Data: p.Data})
	}
	return nil
}

// pluginIndex is the config's index of the named plugin.
func (g *Game) pluginIndex(name string) int {
	for i, p := range g.cfg.Plugins {
		if p.Name == name {
			return i
		}
	}
	return len(g.cfg.Plugins)
}

// relayAnswers gives the relayed plugins the replies among answers and
// returns the others (the gates').
func (h *shardHost) relayAnswers(answers []cluster.Item) ([]cluster.Item, error) {
	if !slices.ContainsFunc(answers, isRelayed) {
		return answers, nil // the gates' alone: nothing to copy
	}
	rest := answers[:0:0]
	for _, a := range answers {
		name, ok := strings.CutPrefix(a.Name, relayPrefix)
		if !ok {
			rest = append(rest, a)
			continue
		}
		if h.g.plugins == nil {
			return nil, fmt.Errorf("game: replies of plugin %q in a game without plugins", name)
		}
		if err := h.g.plugins.Answer(name, a.Data); err != nil {
			return nil, fmt.Errorf("game: agent %d's shard: %w", a.Agent, err)
		}
	}
	return rest, nil
}

// Resolve ends a round as one process does: the gates (resolveGates),
// then one batch per plugin of every shard's calls, each shard answered
// for its own.
func (h *conductorHost) Resolve(_ uint32, reqs []cluster.Item) ([]cluster.Item, error) {
	if !slices.ContainsFunc(reqs, isRelayed) {
		return h.resolveGates(reqs) // the gates' alone: nothing to copy
	}
	gates := reqs[:0:0]
	var parts []host.Part
	var partOf []int // the request of each part
	for i, r := range reqs {
		name, ok := strings.CutPrefix(r.Name, relayPrefix)
		if !ok {
			gates = append(gates, r)
			continue
		}
		parts = append(parts, host.Part{Plugin: name, Data: r.Data})
		partOf = append(partOf, i)
	}
	answers, err := h.resolveGates(gates)
	if err != nil || len(parts) == 0 {
		return answers, err
	}
	g := h.g
	if g.plugins == nil {
		return nil, fmt.Errorf("game: calls to plugin %q in a game without plugins", parts[0].Plugin)
	}
	if err := g.plugins.RunRelayed(parts); err != nil {
		return nil, fmt.Errorf("game: step %d: %w", g.step, err)
	}
	// What the plugins said in the round (a crash, a restart due) is
	// written now, between the round's lines and the next round's.
	if err := h.writeOwn(); err != nil {
		return nil, err
	}
	for k, p := range parts {
		r := reqs[partOf[k]]
		answers = append(answers, cluster.Item{Kind: cluster.Answer, Agent: r.Agent, Peer: -1, Name: r.Name, Data: p.Answer})
	}
	return answers, nil
}
