package host

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/btrun/btrun/plugins/sdk"
)

// A large batch is sent as a pipeline of chunks: while the plugin runs one
// chunk, the host encodes the next and decodes the replies to the one
// before. Sent whole, host and plugin took turns (the host encoding, then
// the plugin decoding, running and encoding, then the host decoding), and
// of two cores a round of 10,000 calls used 1.17.
//
// The chunks are the batch's calls in order, each with all of the batch's
// sites, and their replies land at their calls' places: the agents resume
// in the same order with the same replies, so runs stay deterministic. The
// batch succeeds or fails as a whole, as it did sent at once: the first
// chunk's error fails every call of the round, and the watchdog times the
// whole pipeline as one call (plugin.do around it).

// chunkCalls is the size of a chunk, about: a batch of fewer than twice
// as many calls goes whole. A chunk is still large enough for the plugin
// to split over its cores (sdk's parallelMin, 512). A variable for the
// tests, which make small batches go in chunks.
var chunkCalls = 2048

const (
	// maxChunks bounds the chunks of a batch: each costs a round trip.
	maxChunks = 4
	// chunksInFlight is how many chunks are sent and not yet answered at
	// once: one in the plugin, one on its way in or out.
	chunksInFlight = 2
)

// chunkCount is how many chunks a batch of n calls is sent in.
func chunkCount(n int) int {
	return min(max(n/chunkCalls, 1), maxChunks)
}

// runBatch sends the round's batch, whole or in chunks, and stores the
// replies in r.replies. roundTrips counts the round trips.
func (r *round) runBatch(ctx context.Context, svc sdk.Service, roundTrips *atomic.Int64) error {
	n := len(r.batch.Calls)
	k := chunkCount(n)
	roundTrips.Add(int64(k))
	if k == 1 {
		out, err := svc.RunBatch(ctx, &r.batch, r.replies)
		if err == nil {
			r.replies = out
		}
		return err
	}
	if cap(r.chunks) < k {
		r.chunks, r.chunkE = make([]sdk.Batch, k), make([]error, k)
	}
	r.chunks, r.chunkE = r.chunks[:k], r.chunkE[:k]
	clear(r.chunkE)
	sem := make(chan struct{}, chunksInFlight)
	var wg sync.WaitGroup
	var failed atomic.Bool
	for c := range k {
		lo, hi := c*n/k, (c+1)*n/k
		r.chunks[c] = sdk.Batch{Sites: r.batch.Sites, Calls: r.batch.Calls[lo:hi:hi]}
		sem <- struct{}{}
		if failed.Load() { // the round fails anyway: send no more
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			// The chunk's replies are decoded into their places (the
			// three-index slice keeps a plugin that answers too many
			// from writing over the next chunk's).
			at := r.replies[lo:hi:hi]
			out, err := svc.RunBatch(ctx, &r.chunks[c], at)
			if err == nil && len(out) > 0 && &out[0] != &at[0] {
				copy(at, out)
			}
			r.chunkE[c] = err
			if err != nil {
				failed.Store(true)
			}
		}()
	}
	wg.Wait()
	for c := range r.chunks {
		r.chunks[c] = sdk.Batch{} // let go of the calls
	}
	for _, err := range r.chunkE {
		if err != nil {
			return err
		}
	}
	return nil
}
