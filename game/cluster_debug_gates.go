package game

import (
	"fmt"
	"slices"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// The gates a live view's jump releases (cluster/debug_gates.go): the
// agent's shard finds them (the gates its copy had the agent hold before
// the jump and not after, released at the agent's step and time, as one
// process's Agent.Jump releases them) and replies with them; the
// conductor and every other shard apply them to their copies of the gates
// by the agent's place, so that every copy holds what one process's gates
// hold.

// gatesBefore is what the agent at place p holds before a jump on its
// shard (nil in a game without gates).
func (g *Game) gatesBefore(p int32) []int32 {
	if g.gates == nil {
		return nil
	}
	return g.gatesHeld(p)
}

// noteJumpReleases adds to out, after the jump of the agent at place p,
// the releases of the gates it held before (DebugGates), if any.
func (g *Game) noteJumpReleases(out *cluster.Out, order uint64, p int32, before []int32) {
	if len(before) == 0 {
		return
	}
	a := g.agents[p].a
	after := g.gatesHeld(p)
	part := runtime.GatePart{Take: -1}
	for _, gi := range before {
		if !slices.Contains(after, gi) {
			part.Releases = append(part.Releases, runtime.GateRelease{Gate: gi, Step: a.StepCount(), Time: a.Time()})
		}
	}
	if len(part.Releases) == 0 {
		return
	}
	data := encodeGateParts([]int32{p}, []runtime.GatePart{part})
	out.Add(order, uint64(p), cluster.Item{Kind: cluster.DebugNote, Agent: p, Peer: -1, Name: cluster.DebugGates, Data: data})
}

// applyJumpReleases applies the releases of the jump of the agent at
// place p (noteJumpReleases' Data) to this process's copy of the gates,
// unless it holds the agent (its jump released them here already).
func (g *Game) applyJumpReleases(p int32, data []byte) error {
	if p < 0 || int(p) >= len(g.agents) {
		return fmt.Errorf("game: the gates released by the jump of agent %d, which the game does not have", p)
	}
	if g.gates == nil {
		return fmt.Errorf("game: the gates released by agent %d's jump, in a game without gates", p)
	}
	if g.cl.holds(p) {
		return nil
	}
	ga := g.agents[p]
	peers, parts, err := decodeGateParts(data)
	if err != nil {
		return fmt.Errorf("game: the gates agent %d's jump released: %w", p, err)
	}
	if len(peers) != 1 || peers[0] != p || parts[0].Take >= 0 {
		return fmt.Errorf("game: the gates agent %d's jump released: %d parts, the first of place %d", p, len(peers), firstPlace(peers))
	}
	if err := g.gates.EndRoundParts([]*runtime.Agent{ga.a}, []bool{false}, peers, parts); err != nil {
		return fmt.Errorf("game: the gates agent %d's jump released: %w", p, err)
	}
	return nil
}
