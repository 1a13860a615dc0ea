package cluster

import "sort"

// Layout is which shard holds which agents: contiguous ranges of config
// order, shard k holding places Start[k] .. Start[k+1]-1.
type Layout struct {
	Start []int32 // len shards+1; Start[shards] is the number of agents
}

// Cut cuts agents into shards contiguous ranges as even as can be, the
// first ones one larger (100 on 3: 34, 33, 33).
func Cut(agents, shards int) Layout {
	shards = max(shards, 1)
	l := Layout{Start: make([]int32, shards+1)}
	base, extra := agents/shards, agents%shards
	at := 0
	for k := range shards {
		l.Start[k] = int32(at)
		at += base
		if k < extra {
			at++
		}
	}
	l.Start[shards] = int32(agents)
	return l
}

// Shards is the number of shards.
func (l Layout) Shards() int { return len(l.Start) - 1 }

// Agents is the number of agents.
func (l Layout) Agents() int { return int(l.Start[len(l.Start)-1]) }

// Range is shard k's places, [lo, hi).
func (l Layout) Range(k int) (lo, hi int32) { return l.Start[k], l.Start[k+1] }

// Of is the shard holding the agent at place p (-1: none).
func (l Layout) Of(p int32) int {
	if p < 0 || p >= l.Start[len(l.Start)-1] {
		return -1
	}
	return sort.Search(len(l.Start)-1, func(k int) bool { return l.Start[k+1] > p })
}
