package game

import (
	"errors"
	"fmt"
	"slices"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// An agent removed from a cluster's game with gates. In one process,
// Game.RemoveAgent closes the agent, and its close releases every gate it
// held (at its step and time: the cooldown runs from then, and the hold
// counts towards the longest); the agents after it move up one place.
// Every process of a cluster keeps a copy of the gates, naming the holders
// it does not hold by their place, so every copy must do both: the
// releases, which only the agent's shard can find (it alone steps the
// agent), and the new places.
//
// So the removal takes two messages (cluster.Conductor.CloseAgent, then
// ChangeAgents): the agent's shard closes it as one process does (its
// cancel and exit hooks, what they write and send) and replies with the
// close's gate releases as one gate part; then every process applies that
// part by the agent's place to its copy of the gates (the shard that
// closed it has already), forgets the agent, and renames the holders held
// elsewhere by their new places (forgetGated).

// closedRemove names an AgentRemove item whose agent its shard closed
// already (CloseAgent): its Data is the close's gate releases.
const closedRemove = "closed"

// applyRemoveGated is applyRemove in a game with gates: the agent at
// ga's place is closed on its shard, then removed from every process with
// its gate releases; layout is the cut without it.
func (c *Conductor) applyRemoveGated(ga *gameAgent, layout cluster.Layout) (told, err error) {
	g := c.g
	p, id := ga.idx, g.agentID(ga)
	closeErr, releases, err := c.c.CloseAgent(g.step, p, id)
	if err != nil {
		return nil, err
	}
	rm := cluster.Item{Kind: cluster.AgentRemove, Agent: p, Peer: -1, Text: id, Name: closedRemove, Data: releases}
	if _, err := c.c.ChangeAgents(g.step, rm, layout); err != nil {
		return nil, err
	}
	if err := g.forgetGated(ga, releases, false); err != nil { // the conductor's copy of the gates
		return nil, err
	}
	g.agentsChanged()
	if closeErr != "" {
		return &InputError{Reason: closeErr}, nil
	}
	return nil, nil
}

// closeAgent is a shard's part of CloseAgent: where it holds the agent,
// it closes it as Game.RemoveAgent does (without forgetting it), adding
// what the close wrote and sent to out, its error as an AgentRemove item,
// and the gates it released as one gate part in an AgentClose item.
func (h *shardHost) closeAgent(ch *cluster.Item, out *cluster.Out) error {
	g := h.g
	ga := g.byID[ch.Text]
	if ga == nil || ga.idx != ch.Agent {
		return fmt.Errorf("game: closing agent %s at place %d, which the shard does not have there", ch.Text, ch.Agent)
	}
	if !g.cl.holds(ga.idx) {
		return nil
	}
	var before []int32
	if g.gates != nil {
		before = g.gatesHeld(ga.idx)
	}
	err := ga.a.Close()
	err = errors.Join(err, g.writeChanges(ga, g.step, g.Time(g.step))) // what its hooks did
	g.out.flushRepeat(ch.Text)                                         // as Game.RemoveAgent
	order, hi := cluster.Place(cluster.PhaseDelivery, 0), uint64(ch.Agent)
	if terr := g.take(out, order, hi); terr != nil {
		return terr
	}
	if err != nil {
		out.Add(order, hi, cluster.Item{Kind: cluster.AgentRemove, Agent: ch.Agent, Peer: -1, Text: err.Error()})
	}
	if len(before) == 0 {
		return nil
	}
	// The close released at the agent's step and time every gate it held:
	// those it holds no more (a close leaves every rule).
	after := g.gatesHeld(ga.idx)
	part := runtime.GatePart{Take: -1}
	for _, gi := range before {
		if !slices.Contains(after, gi) {
			part.Releases = append(part.Releases, runtime.GateRelease{Gate: gi, Step: ga.a.StepCount(), Time: ga.a.Time()})
		}
	}
	if len(part.Releases) > 0 {
		data := encodeGateParts([]int32{ch.Agent}, []runtime.GatePart{part})
		out.Add(order, hi, cluster.Item{Kind: cluster.AgentClose, Agent: ch.Agent, Peer: -1, Data: data})
	}
	return nil
}

// forgetClosed is a shard's part of the removal of an agent that
// CloseAgent closed: the close's releases applied (unless this shard
// closed it), the agent forgotten.
func (h *shardHost) forgetClosed(ch *cluster.Item) error {
	g := h.g
	ga := g.byID[ch.Text]
	if ga == nil || ga.idx != ch.Agent {
		return fmt.Errorf("game: removing agent %s at place %d, which the shard does not have there", ch.Text, ch.Agent)
	}
	if err := g.forgetGated(ga, ch.Data, g.cl.holds(ga.idx)); err != nil {
		return err
	}
	g.agentsChanged()
	return nil
}

// forgetGated forgets agent ga, closed already, in a game with gates:
// unless closedHere, the gate part of its close (releases, from
// encodeGateParts) is applied to this process's copy of the gates first;
// then the holders of the gates are named by their places without it.
func (g *Game) forgetGated(ga *gameAgent, releases []byte, closedHere bool) error {
	p, id := ga.idx, g.agentID(ga)
	if g.gates == nil {
		g.removeAgent(ga)
		return nil
	}
	if !closedHere && len(releases) > 0 {
		peers, parts, err := decodeGateParts(releases)
		if err != nil {
			return fmt.Errorf("game: the gates agent %s released: %w", id, err)
		}
		if len(peers) != 1 || peers[0] != p || parts[0].Take >= 0 {
			return fmt.Errorf("game: the gates agent %s (place %d) released: %d parts, the first of place %d", id, p, len(peers), firstPlace(peers))
		}
		if err := g.gates.EndRoundParts([]*runtime.Agent{ga.a}, []bool{false}, peers, parts); err != nil {
			return fmt.Errorf("game: the gates agent %s released: %w", id, err)
		}
	}
	state := g.gates.State(g.placeOf)
	g.removeAgent(ga)
	for i := range state {
		hs := state[i].Holders[:0]
		for _, h := range state[i].Holders {
			switch {
			case h.Place == p:
				return fmt.Errorf("game: agent %s, removed, still holds gate %d in this process's copy of the gates", id, i)
			case h.Place > p:
				h.Place--
			}
			hs = append(hs, h)
		}
		state[i].Holders = hs
	}
	return g.gates.SetState(state, func(place int32) *runtime.Agent {
		if place < 0 || int(place) >= len(g.agents) {
			return nil
		}
		return g.agents[place].a
	})
}

// gatesHeld lists the gates (by their index in the game's Gates) that the
// agent at place p holds in this process's copy of the gates.
func (g *Game) gatesHeld(p int32) []int32 {
	var held []int32
	for i, st := range g.gates.State(g.placeOf) {
		for _, h := range st.Holders {
			if h.Place == p {
				held = append(held, int32(i))
				break
			}
		}
	}
	return held
}

// placeOf is the place of an agent this process has.
func (g *Game) placeOf(a *runtime.Agent) int32 { return g.byPtr[a].idx }

func firstPlace(peers []int32) int32 {
	if len(peers) == 0 {
		return -1
	}
	return peers[0]
}
