package game

import (
	"fmt"
	"slices"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// Agents added and removed between two steps of a cluster's run, as inputs
// from outside (journaled, then applied; cluster_inputs.go). Every process
// lists every agent (a shard's directory, cluster_range.go), and every one
// changes its list as one process does (an added agent comes last; the
// places after a removed one move up one), and the layout follows: an
// added agent joins the last shard's range, a removed one leaves its
// shard's, and no other agent changes shards. Only the shard whose range
// holds the agent makes or closes a runtime agent; the others change
// their directory.
//
// An added agent's spawn runs the world script's spawn(ctx), which only
// the conductor keeps current (it runs the world's tick): so the
// conductor adds it first, with the world's spawn and what it writes, and
// the shard that steps it restores it from the conductor's save of it
// (restoreAgents). A removed agent is closed by its shard (its running
// action cancelled, with what the hooks write); the others only forget
// it. In a game with gates, its shard closes it first and every process
// applies the gates its close released (cluster_remove.go).
//
// A run that goes back to a checkpoint holding other agents than the
// processes list (or Load of such a save) needs every process's game
// opened with Options.AgentsFromSave: the conductor then gives every shard
// the save's list of agents and its range of a new cut (AgentList) before
// their saves.

// AddAgent adds an agent with id id running tree, between two steps, as
// Game.AddAgent does in one process (the world's spawn, its lines; the
// agent steps last in the order, from the next step on), journaled first.
// data must be nil: a Go value cannot cross to the agent's shard. A
// refusal is an *InputError.
func (c *Conductor) AddAgent(id, tree string, data runtime.AgentData) error {
	g := c.g
	refuse := func(format string, args ...any) error { return &InputError{Reason: fmt.Sprintf(format, args...)} }
	switch {
	case data != nil:
		return fmt.Errorf("%w: adding agent %s with Go data (AgentData): it cannot cross to the agent's shard", ErrClusterFeature, id)
	case id == "" || id == "all" || id == "self":
		return refuse("game: agent id %q: an id is not empty, and not all or self", id)
	case g.byID[id] != nil:
		return refuse("game: an agent %q is already in the game", id)
	case g.trees[tree] == nil:
		return refuse("game: agent %q: unknown tree %q; the game's trees are %s", id, tree, quoteList(g.TreeNames()))
	case len(g.agents) >= MaxAgents:
		return refuse("game: a game has at most %d agents", MaxAgents)
	}
	return c.journal(cluster.Input{Kind: cluster.InputAdd, To: id, Name: tree})
}

// RemoveAgent removes the agent with id id, between two steps, as
// Game.RemoveAgent does in one process (its running action cancelled,
// what its hooks write; signals to it dropped), journaled first. A
// refusal, or its close's error (it is removed), is an *InputError. In a
// game with gates, the gates it held are released in every process's copy
// of them (cluster_remove.go).
func (c *Conductor) RemoveAgent(id string) error {
	g := c.g
	switch {
	case g.byID[id] == nil:
		return &InputError{Reason: fmt.Sprintf("game: no agent %q", id)}
	}
	return c.journal(cluster.Input{Kind: cluster.InputRemove, To: id})
}

// applyAdd adds the agent on the conductor (the world's spawn runs here,
// and what it writes and the signals it sends follow), then on every
// shard: the last one's range takes it, with the conductor's save of it.
func (c *Conductor) applyAdd(in *cluster.Input) (told, err error) {
	g := c.g
	r := g.cl
	clear(r.entries)
	r.entries = r.entries[:0]
	_, addErr := g.AddAgent(in.To, in.Name, nil)
	if err := g.flushTrace(); err != nil {
		return nil, err
	}
	r.ownLines()
	entries := slices.Clone(r.entries) // the spawn's lines, and its signals as deliveries
	clear(r.entries)
	r.entries = r.entries[:0]
	if addErr == nil {
		ga := g.byID[in.To]
		save, err := c.agentSave(ga)
		if err != nil {
			return nil, err
		}
		if !c.h.copies() {
			g.forgetCopy(ga) // its shard holds it (cluster_nocopy.go)
		}
		layout := cluster.Layout{Start: slices.Clone(c.c.Layout.Start)}
		layout.Start[len(layout.Start)-1] = int32(len(g.agents))
		change := cluster.Item{Kind: cluster.AgentAdd, Agent: ga.idx, Peer: -1, Text: in.To, Name: in.Name, Data: save}
		if _, err := c.c.ChangeAgents(g.step, change, layout); err != nil {
			return nil, err
		}
	}
	if len(entries) > 0 {
		if err := c.c.DeliverInput(g.step, entries); err != nil {
			return nil, err
		}
	}
	if addErr != nil {
		return &InputError{Reason: addErr.Error()}, nil
	}
	return nil, nil
}

// agentSave is the conductor's save of one agent, as a shard saves its own.
func (c *Conductor) agentSave(ga *gameAgent) ([]byte, error) {
	var out cluster.Out
	if err := c.g.agentSaves(ga.idx, ga.idx+1, &out); err != nil {
		return nil, err
	}
	return out.Items[0].Data, nil
}

// applyRemove has the agent's shard close and remove it (writing what its
// hooks did) and the others forget it, then forgets it on the conductor.
func (c *Conductor) applyRemove(in *cluster.Input) (told, err error) {
	g := c.g
	ga := g.byID[in.To]
	if ga == nil {
		return &InputError{Reason: fmt.Sprintf("game: no agent %q", in.To)}, nil
	}
	p := ga.idx
	layout := cluster.Layout{Start: slices.Clone(c.c.Layout.Start)}
	for k := 1; k < len(layout.Start); k++ {
		if layout.Start[k] > p {
			layout.Start[k]--
		}
	}
	if g.gates != nil {
		return c.applyRemoveGated(ga, layout)
	}
	closeErr, err := c.c.ChangeAgents(g.step, cluster.Item{Kind: cluster.AgentRemove, Agent: p, Peer: -1, Text: in.To}, layout)
	if err != nil {
		return nil, err
	}
	g.removeAgent(ga) // the conductor's copy: the shard closed the agent
	g.agentsChanged()
	if closeErr != "" {
		return &InputError{Reason: closeErr}, nil
	}
	return nil, nil
}

// ChangeAgents is a shard's part of an agent added or removed, or of a
// list of agents taken (and its new range [lo, hi)).
func (h *shardHost) ChangeAgents(ch *cluster.Item, lo, hi int32, out *cluster.Out) error {
	g := h.g
	if ch.Kind == cluster.AgentList {
		return h.takeList(ch.Data, lo, hi)
	}
	if ch.Kind == cluster.AgentAdd {
		if err := h.addAgent(ch, ch.Agent >= lo && ch.Agent < hi); err != nil {
			return err
		}
	}
	if ch.Kind == cluster.AgentClose {
		if err := h.closeAgent(ch, out); err != nil {
			return err
		}
	}
	if ch.Kind == cluster.AgentRemove {
		if err := h.removeAgent(ch, out); err != nil {
			return err
		}
	}
	if err := h.takeRange(lo, hi); err != nil {
		return err
	}
	if ch.Kind == cluster.AgentAdd && g.cl.holds(ch.Agent) {
		// Its state is the conductor's, after the world's spawn.
		return h.restoreAgents([]cluster.Item{{Kind: cluster.AgentSave, Agent: ch.Agent, Data: ch.Data}})
	}
	return nil
}

// takeRange makes [lo, hi) the places whose agents the shard holds. Only
// an agent added or a list taken changes which agents those are: the
// caller made them.
func (h *shardHost) takeRange(lo, hi int32) error {
	g := h.g
	if lo < 0 || hi < lo || hi > int32(len(g.agents)) {
		return fmt.Errorf("game: a shard's range %d..%d of %d agents", lo, hi-1, len(g.agents))
	}
	for _, ga := range g.agents[lo:hi] {
		if ga.a == nil {
			return fmt.Errorf("game: a shard's range %d..%d holds agent %s, which it does not have", lo, hi-1, g.agentID(ga))
		}
	}
	g.cl.lo, g.cl.hi = lo, hi
	g.held.lo, g.held.hi = lo, hi
	g.activeStale = true
	return nil
}

// addAgent adds an agent as the conductor did: made (without the world's
// spawn: the conductor ran it, and the agent's save carries what it did)
// where the shard will hold it, else only listed.
func (h *shardHost) addAgent(ch *cluster.Item, holds bool) error {
	g := h.g
	if int(ch.Agent) != len(g.agents) {
		return fmt.Errorf("game: agent %s added at place %d on the conductor, %d on a shard", ch.Text, ch.Agent, len(g.agents))
	}
	if !holds {
		tree, ok := g.treeIndex(ch.Name)
		switch {
		case !ok:
			return fmt.Errorf("game: agent %s added on a shard: unknown tree %q", ch.Text, ch.Name)
		case ch.Text == "" || g.byID[ch.Text] != nil:
			return fmt.Errorf("game: agent %q added on a shard, which has it", ch.Text)
		}
		h.listOther(ch.Text, tree)
		return nil
	}
	var world *lua.LTable
	if g.lua != nil {
		world, g.lua.game = g.lua.game, nil
	}
	_, err := g.AddAgent(ch.Text, ch.Name, nil)
	if g.lua != nil {
		g.lua.game = world
	}
	if err == nil {
		err = g.flushTrace()
	}
	g.cl.trace.Reset() // what it wrote is the conductor's to write
	g.cl.out.Reset()
	if err != nil {
		return fmt.Errorf("game: adding agent %s on a shard: %w", ch.Text, err)
	}
	if g.lua != nil && g.lua.game != nil {
		g.worldAdd(g.byID[ch.Text])
	}
	return nil
}

// listOther lists an agent another shard holds: its id and tree, no
// runtime agent (cluster_range.go).
func (h *shardHost) listOther(id string, tree int32) {
	g := h.g
	ga := g.listAgent(id, tree, nil)
	ga.kind = g.kindOf(g.treeName(ga), id)
	g.opening = append(g.opening, id)
	if g.workers != nil {
		g.workerOf = append(g.workerOf, 0) // never stepped here
	}
	if g.lua != nil && g.lua.game != nil {
		g.worldAdd(ga)
	}
	g.activeStale = true
}

// removeAgent closes and removes the agent where the shard holds it (its
// lines and signals to out, its close's error as an AgentRemove item), or
// forgets it.
func (h *shardHost) removeAgent(ch *cluster.Item, out *cluster.Out) error {
	g := h.g
	if ch.Name == closedRemove {
		return h.forgetClosed(ch)
	}
	ga := g.byID[ch.Text]
	if ga == nil || ga.idx != ch.Agent {
		return fmt.Errorf("game: removing agent %s at place %d, which the shard does not have there", ch.Text, ch.Agent)
	}
	if !g.cl.holds(ga.idx) {
		g.removeAgent(ga)
		g.agentsChanged()
		return nil
	}
	err := g.RemoveAgent(ch.Text)
	order, hi := cluster.Place(cluster.PhaseDelivery, 0), uint64(ch.Agent)
	if terr := g.take(out, order, hi); terr != nil {
		return terr
	}
	if err != nil {
		out.Add(order, hi, cluster.Item{Kind: cluster.AgentRemove, Agent: ch.Agent, Peer: -1, Text: err.Error()})
	}
	return nil
}
