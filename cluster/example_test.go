package cluster_test

import (
	"fmt"

	"github.com/btrun/btrun/cluster"
)

// Two shards' lines of a round, gathered by shard, come out in config
// order: the order one process would have written them in.
func ExampleMerge() {
	var shard0, shard1 cluster.Out
	shard1.Add(cluster.Place(cluster.PhaseRound, 3), 0, cluster.Item{Kind: cluster.Record, Data: []byte("agent 3 logs")})
	shard0.Add(cluster.Place(cluster.PhaseRound, 0), 0, cluster.Item{Kind: cluster.Record, Data: []byte("agent 0 logs")})
	shard0.Add(cluster.Place(cluster.PhaseRound, 0), 0, cluster.Item{Kind: cluster.Signal, Data: []byte("agent 0 signals")})
	shard0.Add(cluster.Place(cluster.PhaseRound, 1), 0, cluster.Item{Kind: cluster.Record, Data: []byte("agent 1 logs")})
	merged, err := cluster.Merge(nil, shard0.Items, shard1.Items)
	if err != nil {
		panic(err)
	}
	for _, it := range merged {
		fmt.Println(string(it.Data))
	}
	// Output:
	// agent 0 logs
	// agent 0 signals
	// agent 1 logs
	// agent 3 logs
}

// A layout cuts the agents into contiguous ranges of config order.
func ExampleCut() {
	l := cluster.Cut(100, 3)
	for k := range l.Shards() {
		lo, hi := l.Range(k)
		fmt.Printf("shard %d: agents %d..%d\n", k, lo, hi-1)
	}
	fmt.Println("agent 50 is on shard", l.Of(50))
	// Output:
	// shard 0: agents 0..33
	// shard 1: agents 34..66
	// shard 2: agents 67..99
	// agent 50 is on shard 1
}
