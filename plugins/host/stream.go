package host

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btrun/btrun/plugins/sdk"
)

// A round's batch goes out in chunks while the agents are still being
// stepped: once a chunk's worth of calls is queued, they are sent, and the
// plugin runs them while the host steps the agents after them (pipeline.go
// only overlapped the host's encoding and decoding with the plugin's work;
// stepping each agent to its call was a fifth of the host's time, with the
// plugin idle). Flush sends the rest and waits for every chunk, so the
// agents resume as before: in the round's order, each with its own reply,
// after the whole batch is answered, which keeps runs deterministic and a
// failure the whole round's (the first chunk's error fails every call, as
// in pipeline.go).
//
// Only a set stepped on one goroutine streams: with workers, the calls are
// queued in any order and put in config order at the round's end.

// stream is a round's chunks on their way: the stepping goroutine hands
// each chunk to the sender through chunks, Flush hands the last one and
// closes it, and the sender says how the round ended on done.
type stream struct {
	chunks chan chunk
	done   chan error
	start  time.Time // the first chunk's hand-over, for CallTimes
}

// chunk is calls [lo, hi) of the round, with the sites known when it went,
// and the replies they are decoded into.
type chunk struct {
	lo, hi int
	batch  sdk.Batch
	at     []sdk.Reply
}

// maxStreamChunks bounds the chunks a round hands over before Flush; the
// channel keeps a place for the last one, so that no hand-over blocks.
const maxStreamChunks = 63

// streamReady is called on the stepping goroutine when the queue holds
// r.nextChunk calls: it hands the calls not yet sent to the plugin's
// sender, starting the round's stream with the first chunk.
func (r *round) streamReady(p *plugin) {
	set := p.set
	if r.nextChunk == 0 { // the round's first call: its first chunk is small
		r.nextChunk = min(firstChunkCalls, p.streamSize())
		if len(r.batch.Calls) < r.nextChunk {
			return
		}
	}
	// A Flush about to fail (agents of the last one not resumed) must not
	// find calls already sent; with workers the queue is not in order yet.
	if set.opts.Unbatched || set.concurrent || p.relayed || set.unresumed > 0 || len(r.handed) == maxStreamChunks {
		r.nextChunk = math.MaxInt
		return
	}
	if r.st == nil {
		r.st = &stream{chunks: make(chan chunk, maxStreamChunks+1), done: make(chan error, 1), start: time.Now()}
		go p.sendStream(r.st)
	}
	r.handOver()
	r.nextChunk = len(r.batch.Calls) + p.streamSize()
}

// handOver gives the sender the queued calls not yet sent as one chunk.
func (r *round) handOver() {
	lo, hi := r.streamed, len(r.batch.Calls)
	if hi > cap(r.replies) {
		// Chunks in flight keep decoding into the old array, which is
		// therefore not read here; Flush copies their replies over
		// (finishStream).
		r.replies = make([]sdk.Reply, 2*hi)
	}
	r.replies = r.replies[:cap(r.replies)]
	c := chunk{lo: lo, hi: hi, at: r.replies[lo:hi:hi],
		batch: sdk.Batch{Sites: r.batch.Sites[:len(r.batch.Sites):len(r.batch.Sites)], Calls: r.batch.Calls[lo:hi:hi]}}
	r.handed = append(r.handed, c)
	r.streamed = hi
	r.st.chunks <- c // never blocks: see maxStreamChunks
}

// finishStream hands over the rest of the round's calls, waits for every
// chunk's replies and puts them at their calls' places in r.replies.
func (r *round) finishStream() error {
	if r.streamed < len(r.batch.Calls) {
		r.handOver()
	}
	close(r.st.chunks)
	err := <-r.st.done
	n := len(r.batch.Calls)
	r.replies = r.replies[:n]
	for i := range r.handed {
		c := &r.handed[i]
		if err == nil && &c.at[0] != &r.replies[c.lo] {
			copy(r.replies[c.lo:c.hi], c.at)
		}
		*c = chunk{} // let go of the calls
	}
	r.handed, r.st, r.streamed = r.handed[:0], nil, 0
	return err
}

// firstChunkCalls bounds a round's first chunk: the plugin waits for it
// (it has nothing else to do since the last round's replies), so it goes
// after fewer calls than the chunks after it, which go while the plugin
// runs the ones before. A quarter of a round of 10,000 calls kept the
// plugin idle while the host stepped 2,500 agents; 512 is still enough for
// the plugin to split a chunk over its cores (sdk's parallelMin).
var firstChunkCalls = 512 // a variable for the tests

// streamSize is how many calls a chunk after the first holds: a quarter
// of the plugin's last round, so that a round like it goes in at most 5
// chunks, the small first one included (the plugin keeps storage for as
// many: sdk's maxBatchIns), and at least chunkCalls, so that the plugin
// can still split a chunk over its cores.
func (p *plugin) streamSize() int {
	return max(chunkCalls, (p.lastCalls+maxChunks-1)/maxChunks)
}

// sendStream runs a round's chunks as they are handed over, chunksInFlight
// at a time, and reports the round's outcome. The watchdog's clock runs
// while a chunk is in flight: a plugin that stops answering is caught, and
// the host's own time stepping agents between chunks does not count.
func (p *plugin) sendStream(st *stream) {
	inst, err := p.current()
	if err == nil {
		err = p.doOn(inst, func(ctx context.Context, svc sdk.Service) error {
			return runStream(ctx, svc, st.chunks, &inst.callStart, &inst.pace, &p.set.roundTrips)
		})
	}
	st.done <- err
}

// runStream sends the chunks in order, at most chunksInFlight at once, and
// returns the first error. After an error it sends no more.
func runStream(ctx context.Context, svc sdk.Service, chunks <-chan chunk, clock *atomic.Int64, pace *watchPace, roundTrips *atomic.Int64) error {
	var (
		mu       sync.Mutex
		inFlight int
		first    error
		wg       sync.WaitGroup
	)
	clock.Store(0) // nothing in flight yet
	sem := make(chan struct{}, chunksInFlight)
	for {
		var c chunk
		var ok bool
		select {
		case c, ok = <-chunks:
		case <-ctx.Done(): // the plugin was stopped or killed: Flush gets the error
			wg.Wait()
			return ctx.Err()
		}
		if !ok {
			break
		}
		sem <- struct{}{}
		mu.Lock()
		failed := first != nil
		if !failed {
			if inFlight == 0 {
				clock.Store(time.Now().UnixNano())
				pace.busy() // the host stepped between chunks for a while, maybe (watch_pace.go)
			}
			inFlight++
		}
		mu.Unlock()
		if failed {
			<-sem
			continue // drain: the round fails anyway
		}
		roundTrips.Add(1)
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			out, err := svc.RunBatch(ctx, &c.batch, c.at)
			if err == nil && len(out) > 0 && &out[0] != &c.at[0] {
				copy(c.at, out)
			}
			mu.Lock()
			if err != nil && first == nil {
				first = err
			}
			inFlight--
			if inFlight == 0 {
				clock.Store(0)
			} else {
				clock.Store(time.Now().UnixNano()) // the next in flight is timed from here
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return first
}
