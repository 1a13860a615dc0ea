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
// holds every agent today, so every one changes its list as one process
// does (an added agent comes last; the places after a removed one move up
// one), and the layout follows: an added agent joins the last shard's
// range, a removed one leaves its shard's.
//
// An added agent's spawn runs the world script's spawn(ctx), which only
// the conductor keeps current (it runs the world's tick): so the
// conductor adds it first, with the world's spawn and what it writes, and
// the shard that steps it takes its state from the conductor's save of
// it. A removed agent is closed by its shard (its running action
// cancelled, with what the hooks write); the other processes only forget
// it. A game with gates refuses RemoveAgent in a cluster: the gates its
// agent holds would be released on its shard's copy of the gates only.
//
// A run that goes back to a checkpoint holding other agents than its
// config (or Load of such a save) needs every process's game opened with
// Options.AgentsFromSave; the layout is then cut again for the save's
// agents.

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
// refusal, or its close's error (it is removed), is an *InputError; a game
// with gates refuses it (ErrClusterFeature).
func (c *Conductor) RemoveAgent(id string) error {
	g := c.g
	switch {
	case g.byID[id] == nil:
		return &InputError{Reason: fmt.Sprintf("game: no agent %q", id)}
	case g.gates != nil:
		return fmt.Errorf("%w: removing agent %s from a game with gates (the gates it holds would be released on its shard only)", ErrClusterFeature, id)
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
	r := c.g.cl
	r.lo, r.hi = ga.idx, ga.idx+1 // the conductor holds none: its Save's range, for this save only
	defer func() { r.lo, r.hi = 0, 0 }()
	var out cluster.Out
	if err := (&shardHost{g: c.g}).Save(&out); err != nil {
		return nil, err
	}
	if len(out.Items) != 1 {
		return nil, fmt.Errorf("game: %d saves of agent %s", len(out.Items), ga.a.ID())
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

// relayout cuts the layout again for the game's agents after a Load whose
// save holds other agents than the layout's (Options.AgentsFromSave).
func (c *Conductor) relayout() error {
	want := cluster.Cut(len(c.g.agents), c.c.Layout.Shards())
	if slices.Equal(want.Start, c.c.Layout.Start) {
		return nil
	}
	_, err := c.c.ChangeAgents(c.g.step, cluster.Item{}, want)
	return err
}

// ChangeAgents is a shard's part of an agent added or removed (and its new
// range [lo, hi)).
func (h *shardHost) ChangeAgents(ch *cluster.Item, lo, hi int32, out *cluster.Out) error {
	g := h.g
	switch ch.Kind {
	case cluster.AgentAdd:
		if err := h.addAgent(ch); err != nil {
			return err
		}
	case cluster.AgentRemove:
		if err := h.removeAgent(ch, out); err != nil {
			return err
		}
	}
	if hi > int32(len(g.agents)) {
		return fmt.Errorf("game: a shard's range %d..%d of %d agents", lo, hi-1, len(g.agents))
	}
	g.cl.lo, g.cl.hi = lo, hi
	g.activeStale = true
	if ch.Kind == cluster.AgentAdd && g.cl.holds(ch.Agent) {
		// Its state is the conductor's, after the world's spawn.
		return (&conductorHost{g: g}).takeSaves([]cluster.Item{{Kind: cluster.AgentSave, Agent: ch.Agent, Data: ch.Data}})
	}
	return nil
}

// addAgent adds an agent as the conductor did, without the world's spawn
// (the conductor ran it; the agent's save carries what it did).
func (h *shardHost) addAgent(ch *cluster.Item) error {
	g := h.g
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
	if ga := g.byID[ch.Text]; ga.idx != ch.Agent {
		return fmt.Errorf("game: agent %s added at place %d on a shard, %d on the conductor", ch.Text, ga.idx, ch.Agent)
	}
	return nil
}

// removeAgent closes and removes the agent where the shard holds it (its
// lines and signals to out, its close's error as an AgentRemove item), or
// forgets it.
func (h *shardHost) removeAgent(ch *cluster.Item, out *cluster.Out) error {
	g := h.g
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
