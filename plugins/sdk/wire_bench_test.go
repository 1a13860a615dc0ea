package sdk

import (
	"context"
	"fmt"
	"testing"
)

// Benchmarks of a batched round's work in each process, without gRPC and
// in one process, so that callgrind counts them exactly (docs/performance.md,
// "Plugin calls in batches"): 10,000 calls of an action that reads a
// number field and writes it back, sent as 4 chunks of 2,500 as the host
// streams a round of that size.

const benchCalls, benchChunks = 10000, 4

// benchChunkBatches are the round's chunks as the host queues them.
func benchChunkBatches() [benchChunks]*Batch {
	var out [benchChunks]*Batch
	per := benchCalls / benchChunks
	for c := range out {
		b := &Batch{Sites: []Site{{Name: "bench.move", Rule: "root"}}}
		for i := range per {
			b.Calls = append(b.Calls, Request{Kind: KindAction, Agent: fmt.Sprintf("agent-%d", c*per+i+1),
				Time: 1, Dt: 0.1, Fields: []Value{{Kind: ValueNumber, Num: float64(i)}}})
		}
		out[c] = b
	}
	return out
}

// BenchmarkWire_plugin is the plugin's side of a round: each chunk decoded
// (batchPick), run (the dispatcher) and its replies encoded.
func BenchmarkWire_plugin(b *testing.B) {
	d, err := newDispatcher(&Plugin{Name: "bench", Actions: []Action{{Name: "bench.move", Reads: []string{"x"}, Writes: []string{"x"},
		Run: func(c *Call) (Status, error) {
			x, _ := c.FieldFloat("x")
			dx, err := c.Params.Float("move.dx", 1)
			if err != nil {
				return 0, err
			}
			return Success, c.SetField("x", x+dx)
		}}}})
	if err != nil {
		b.Fatal(err)
	}
	s := &grpcServer{impl: d}
	var chunks [benchChunks][]byte
	for c, batch := range benchChunkBatches() {
		if chunks[c], err = (&batchRequest{b: batch}).marshal(); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, data := range chunks {
			pick := batchPick{s: s}
			if err := pick.unmarshal(data); err != nil {
				b.Fatal(err)
			}
			if _, err := s.runBatch(ctx, pick.in); err != nil {
				b.Fatal(err)
			}
			s.putBatch(pick.in)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchCalls), "ns/call")
}

// BenchmarkWire_host is the host's side of a round's encoding: each chunk's
// request encoded and its replies decoded (grpcClient.RunBatch without the
// round trip).
func BenchmarkWire_host(b *testing.B) {
	batches := benchChunkBatches()
	var replies [benchChunks][]byte
	for c, batch := range batches {
		reps := make([]Reply, len(batch.Calls))
		for i := range reps {
			reps[i] = Reply{Status: Success, Writes: []Value{{Kind: ValueNumber, Num: float64(i) + 1}}}
		}
		var err error
		if replies[c], err = encodeReplies(reps, 0); err != nil {
			b.Fatal(err)
		}
	}
	var reqs [benchChunks]batchRequest
	var outs [benchChunks]batchReplies
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for c := range batches {
			reqs[c].b = batches[c]
			if _, err := reqs[c].marshal(); err != nil {
				b.Fatal(err)
			}
			reqs[c].keep()
			if err := outs[c].unmarshal(replies[c]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchCalls), "ns/call")
}
