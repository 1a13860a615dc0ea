package cluster_test

import (
	"fmt"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/internal/model"
)

// BenchmarkCluster_local: the model's steps on shards over the in-process
// transport, with the messages and bytes a step costs.
func BenchmarkCluster_local(b *testing.B) {
	for _, shards := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("shards=%d", shards), func(b *testing.B) {
			link, ends := cluster.NewLocal(shards)
			mc := model.Start(&model.World{N: 1000}, link, ends)
			defer mc.Stop()
			b.ResetTimer()
			for i := range b.N {
				if err := mc.C.Step(uint64(i + 1)); err != nil {
					b.Fatal(err)
				}
			}
			tr := link.Traffic()
			b.ReportMetric(float64(tr.Sent+tr.Received)/float64(b.N), "msgs/step")
			b.ReportMetric(float64(tr.SentBytes+tr.ReceivedBytes)/float64(b.N), "bytes/step")
		})
	}
}
