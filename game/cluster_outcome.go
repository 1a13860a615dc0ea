package game

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// A conductor has no runtime agents, so its Outcome (advance.go) reads the
// status its directory keeps for each agent, which the shards tell it. A
// shard's Report gathers, in config order, the agents whose status differs
// from their last step's, or whose step erred, and sends them as one record
// of stream "outcome" after its reports: each agent's place (uvarint), its
// status (a byte), and its error's text (uvarint length, then the text).
// An agent whose status stays the same sends nothing (a game that picks,
// report_pick.go, passes over it too), so a step costs a few bytes per
// agent whose status changed, and one item per shard.

// outcomeStream is the Record stream of the agents' outcomes.
const outcomeStream = "outcome"

// noteOutcome adds ga to the shard's outcome record when its status is not
// prev or its step erred.
func (g *Game) noteOutcome(ga *gameAgent, prev runtime.Status) {
	if ga.status == prev && ga.err == nil {
		return
	}
	r := g.cl
	r.outcome = binary.AppendUvarint(r.outcome, uint64(ga.idx))
	r.outcome = append(r.outcome, byte(ga.status))
	if ga.err == nil {
		r.outcome = append(r.outcome, 0)
		return
	}
	text := ga.err.Error()
	r.outcome = binary.AppendUvarint(r.outcome, uint64(len(text)))
	r.outcome = append(r.outcome, text...)
}

// takeOutcomes adds the outcome record gathered since the last take to out,
// at order (the last reported agent's place in the report phase).
func (g *Game) takeOutcomes(out *cluster.Out, order uint64) {
	r := g.cl
	if len(r.outcome) == 0 {
		return
	}
	out.Add(order, 0, cluster.Item{Kind: cluster.Record, Text: outcomeStream, Data: out.Keep(r.outcome)})
	r.outcome = r.outcome[:0]
}

// applyOutcomes sets the directory's status of every agent of an outcome
// record.
func (g *Game) applyOutcomes(data []byte) error {
	for len(data) > 0 {
		p, n := binary.Uvarint(data)
		if n <= 0 || p >= uint64(len(g.agents)) || len(data) < n+2 {
			return fmt.Errorf("game: an outcome record names no agent (%d bytes left)", len(data))
		}
		st := runtime.Status(data[n])
		data = data[n+1:]
		size, m := binary.Uvarint(data)
		if m <= 0 || st < runtime.Success || st > runtime.Errored || size > uint64(len(data)-m) {
			return fmt.Errorf("game: the outcome of agent %d: a status %d with %d bytes of error text", p, st, size)
		}
		ga := g.agents[p]
		ga.status, ga.err = st, nil
		if size > 0 {
			ga.err = errors.New(string(data[m : m+int(size)]))
		}
		data = data[m+int(size):]
	}
	return nil
}
