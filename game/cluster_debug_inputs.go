package game

import (
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// The live view's inputs to a cluster's agents, between steps: a signal
// from "debugger", a jump, a variable's edit. Each is checked against the
// conductor's copy of the agent (fresh since the last step), as one
// process checks it, then journaled and applied as the other inputs from
// outside are (cluster_debug_journal.go): on the agent's shard, where one
// process would apply it (an action a jump cancels is cancelled there, a
// handler runs there with the agent's Lua state and plugins); the lines it
// writes are written at once, the signals its handlers send join the next
// step's queue in the order the inputs came, and the copy is refreshed. A
// replay (a lost shard, a resumed run) applies it again after its step;
// during a replay the page's inputs are refused (cluster_pagereplay.go).

// clusterHost is the conductor's DebugHost: the game's, with the inputs
// sent to the shards and time travel refused.
type clusterHost struct {
	*debugHost
	d *clusterDebug
}

// debugHostFor is the DebugHost a debugger attached to g gets.
func (g *Game) debugHostFor() DebugHost {
	if g.cl != nil && g.cl.debug != nil {
		return clusterHost{g.host(), g.cl.debug}
	}
	return g.host()
}

// SendSignal delivers a signal from "debugger" to an agent now, on its
// shard, at the current step (debugHost.SendSignal).
func (h clusterHost) SendSignal(agent, signal string, data runtime.Value) error {
	g := (*Game)(h.debugHost)
	ga, err := g.debugAgent(agent)
	if err != nil {
		return err
	}
	if err := runtime.CheckData(data); err != nil {
		return fmt.Errorf("game: signal %q to %s: %w", signal, agent, err)
	}
	if err := g.refuses(signal, data, ga); err != nil {
		return fmt.Errorf("game: signal %q to %s: %w", signal, agent, err)
	}
	if err := h.d.c.refuseDuringReplay("signal"); err != nil { // cluster_pagereplay.go
		return err
	}
	b, err := g.cl.encodeValue(data)
	if err != nil {
		return err
	}
	return h.d.c.journal(cluster.Input{Kind: cluster.InputDebugSignal, To: agent, Name: signal, Data: b})
}

// JumpAgent moves an agent's cursor to the rule with the given id now, on
// its shard (debugHost.JumpAgent).
func (h clusterHost) JumpAgent(agent, id string) error {
	g := (*Game)(h.debugHost)
	ga, err := g.debugAgent(agent)
	if err != nil {
		return err
	}
	if _, ok := ga.a.Tree().Tree.RuleIndex(id); !ok {
		return fmt.Errorf("game: agent %s: its tree has no rule with id %q", agent, id)
	}
	if err := h.d.c.refuseDuringReplay("jump"); err != nil {
		return err
	}
	return h.d.c.journal(cluster.Input{Kind: cluster.InputDebugJump, To: agent, Name: id})
}

// SetAgentVar sets an agent's declared variable now, on its shard
// (debugHost.SetAgentVar).
func (h clusterHost) SetAgentVar(agent, name string, v runtime.VarValue) error {
	g := (*Game)(h.debugHost)
	ga, err := g.debugAgent(agent)
	if err != nil {
		return err
	}
	t := ga.a.Tree().Tree
	if i, ok := t.VarIndex(name); !ok || t.Vars[i].Type != v.Type {
		return fmt.Errorf("game: agent %s: no %s variable %q", agent, v.Type, name)
	}
	if err := h.d.c.refuseDuringReplay("variable edit"); err != nil {
		return err
	}
	e := savecodec.NewEncoder()
	writeVarValue(e, v)
	return h.d.c.journal(cluster.Input{Kind: cluster.InputDebugSetVar, To: agent, Name: name, Data: e.Bytes()})
}

// before readies a command: the shards relay (a command may come before
// the first step), and what the conductor wrote itself goes first.
func (d *clusterDebug) before() error {
	if err := d.relay(); err != nil {
		return err
	}
	return d.c.h.writeOwn()
}

// What moves a cluster back in time is refused. The editor's writes are
// the conductor's files, which its reloads send (cluster_livereload.go).

func (h clusterHost) Quietly(func() error) error { return h.refused("time travel") }
func (h clusterHost) ReplayStep() error          { return h.refused("time travel") }
func (h clusterHost) Rewind([]byte) error        { return h.refused("rewinding") }
func (h clusterHost) CutTrace(int64) error       { return h.refused("taking the trace back") }
func (h clusterHost) LoadSave(string) ([]string, error) {
	return nil, h.refused("opening a save")
}

func (clusterHost) refused(what string) error {
	return fmt.Errorf("%w: %s (the live view of a cluster shows each step as it runs)", ErrClusterDebug, what)
}
