package model

import (
	"fmt"
	"slices"

	"github.com/btrun/btrun/cluster"
)

// Moves (cluster.Mover): a model shard holds only its range, so releasing
// drops the agents it gives away and adopting makes them from their saves.

// Release gives away the agents outside [lo, hi) as their saves.
func (s *Shard) Release(lo, hi int32, out *cluster.Out) error {
	keep := s.Agents[:0:0]
	for _, a := range s.Agents {
		if a.Place >= lo && a.Place < hi {
			keep = append(keep, a)
			continue
		}
		out.Add(cluster.Place(cluster.PhaseSave, int64(a.Place)), 0, cluster.Item{Kind: cluster.AgentSave, Agent: a.Place, Data: a.save()})
	}
	s.Agents = keep
	return nil
}

// Adopt makes the agents of saves and holds [lo, hi).
func (s *Shard) Adopt(lo, hi int32, saves []cluster.Item) error {
	for _, it := range saves {
		a := &Agent{Place: it.Agent}
		if err := a.load(it.Data); err != nil {
			return err
		}
		s.Agents = append(s.Agents, a)
	}
	slices.SortFunc(s.Agents, func(a, b *Agent) int { return int(a.Place - b.Place) })
	for i, a := range s.Agents {
		if a.Place != lo+int32(i) {
			return fmt.Errorf("model: shard of %d..%d holds agent %d at %d", lo, hi-1, a.Place, i)
		}
	}
	if int(hi-lo) != len(s.Agents) {
		return fmt.Errorf("model: shard of %d..%d holds %d agents", lo, hi-1, len(s.Agents))
	}
	s.Lo = lo
	return nil
}
