package host

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
)

// round is the calls of one plugin in one round: queued until Flush, then
// in flight until every agent has been resumed. Two rounds per plugin
// alternate, so that agents resumed from one round can queue calls for the
// next without disturbing the replies still to be read. Everything in a
// round is kept for its next use: a round allocates nothing once the
// batches stop growing.
type round struct {
	batch   sdk.Batch
	sites   []*site // host side of batch.Sites
	fields  []sdk.Value
	stimuli []sdk.Stimulus // the calls' stimuli (data.go)
	replies []sdk.Reply
	errs    []error     // per call: the round trip failed
	chunks  []sdk.Batch // a large batch's chunks (pipeline.go)
	chunkE  []error     // and how each one's round trip ended

	// Chunks sent while the round is queued (stream.go): the next goes
	// when the queue holds nextChunk calls (0: not yet worked out).
	nextChunk int
	streamed  int     // calls [0, streamed) are handed over
	st        *stream // nil until the first chunk goes
	handed    []chunk // the chunks handed over, in order
}

func (r *round) reset() {
	r.batch.Reset()
	clear(r.sites)
	r.sites = r.sites[:0]
	r.fields = r.fields[:0]
	clear(r.stimuli)
	r.stimuli = r.stimuli[:0]
	r.nextChunk = 0
}

// enqueue adds the agent's call to its plugin's queue and returns
// runtime.ErrPending, which pauses the agent's step until Resume.
func (s *site) enqueue(a *runtime.Agent, kind sdk.CallKind) error {
	if s.p.set.concurrent {
		return s.enqueueConcurrent(a, kind)
	}
	return s.queue(a, kind, nil, nil)
}

// enqueueConcurrent is enqueue for a set shared by workers. The agent's
// fields are read before the set's lock is taken: the reads walk the
// agent's tables (its own, on this goroutine), and workers that queued
// calls at once waited for each other's reads. (Apart from enqueue: its
// buffer on the stack was cleared for every call of a set on one
// goroutine too.)
func (s *site) enqueueConcurrent(a *runtime.Agent, kind sdk.CallKind) error {
	var early [8]sdk.Value
	read := s.readFields(a, early[:0])
	var stimuli []sdk.Stimulus
	if len(s.stimuli) > 0 && kind == sdk.KindAction {
		stimuli = s.readStimuli(a, nil)
	}
	set := s.p.set
	set.mu.Lock()
	defer set.mu.Unlock()
	return s.queue(a, kind, read, stimuli)
}

// queue adds the call to the queue; read and stimuli are the agent's
// fields and stimuli when already read (with workers), else nil.
func (s *site) queue(a *runtime.Agent, kind sdk.CallKind, read []sdk.Value, stimuli []sdk.Stimulus) error {
	p, set := s.p, s.p.set
	q := &p.queue
	if s.epoch != set.flushes+1 {
		s.epoch = set.flushes + 1
		s.idx = uint32(len(q.batch.Sites))
		q.batch.Sites = append(q.batch.Sites, s.info)
		q.sites = append(q.sites, s)
	}
	start := len(q.fields)
	if read != nil {
		q.fields = append(q.fields, read...)
	} else {
		q.fields = s.readFields(a, q.fields)
	}
	req := sdk.Request{Kind: kind, Site: s.idx, Agent: a.ID(), FirstRun: a.FirstRun(), Time: a.Time(), Dt: a.Dt(),
		Fields: q.fields[start:len(q.fields):len(q.fields)]}
	if kind == sdk.KindAction {
		// The agent's bytes stay untouched until its reply is applied, after
		// the batch has been sent: no copy needed.
		req.State = a.RuleBytes()
		if len(s.stimuli) > 0 {
			at := len(q.stimuli)
			if set.concurrent {
				q.stimuli = append(q.stimuli, stimuli...)
			} else {
				q.stimuli = s.readStimuli(a, q.stimuli)
			}
			if len(q.stimuli) > at {
				req.Stimuli = q.stimuli[at:len(q.stimuli):len(q.stimuli)]
			}
		}
	}
	q.batch.Calls = append(q.batch.Calls, req)
	set.queued = append(set.queued, ticket{a: a, p: p, i: int32(len(q.batch.Calls) - 1)})
	if len(q.batch.Calls) >= q.nextChunk {
		q.streamReady(p) // stream.go
	}
	return runtime.ErrPending
}

// Stats counts the traffic of a Set since Start.
type Stats struct {
	RoundTrips int64 // batches (each chunk of a large one, pipeline.go) and single calls sent (cancel calls included)
	Calls      int64 // calls sent, batched or not
}

// Stats returns the traffic counters. Safe for concurrent use.
func (s *Set) Stats() Stats {
	return Stats{RoundTrips: s.roundTrips.Load(), Calls: s.calls.Load()}
}

// Pending is the number of agents whose calls are queued or whose replies
// have not been resumed yet.
func (s *Set) Pending() int { return len(s.queued) + s.unresumed }

// Flush sends every queued call: one batch per plugin (or one round trip
// per call with Options.Unbatched), plugins concurrently, and waits for all
// replies. A plugin that fails (crash, timeout, down) fails its calls; the
// error reaches each agent through Resume. Flush itself fails only when
// agents from the previous Flush have not all been resumed (their replies
// would be lost).
func (s *Set) Flush() error {
	if s.unresumed > 0 {
		return newErr(fmt.Sprintf("host: Flush: %d agents from the previous Flush were not resumed; Resume every waiting agent first", s.unresumed), ErrUsage)
	}
	var busy []*plugin
	for _, p := range s.plugins {
		if len(p.queue.batch.Calls) == 0 {
			continue
		}
		p.lastCalls = len(p.queue.batch.Calls)
		p.queue, p.inflight = p.inflight, p.queue
		p.queue.reset()
		if p.relayed {
			p.hold(&p.inflight) // sent by the one who relays it (relay.go)
			continue
		}
		busy = append(busy, p)
	}
	clear(s.sent) // let go of the agents
	s.sent, s.queued = s.queued, s.sent[:0]
	s.next, s.unresumed = 0, len(s.sent)
	s.flushes++
	if s.concurrent {
		clear(s.sentAt)
		for k, t := range s.sent {
			s.sentAt[t.a] = int32(k)
		}
	}
	switch len(busy) {
	case 0:
	case 1:
		busy[0].send(&busy[0].inflight)
	default:
		var wg sync.WaitGroup
		for _, p := range busy {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.send(&p.inflight)
			}()
		}
		wg.Wait()
	}
	s.flushNotes() // what failed in this round is said before the agents resume
	return nil
}

// send performs a round's round trips and stores replies and errors.
func (p *plugin) send(r *round) {
	n := len(r.batch.Calls)
	if cap(r.errs) < n {
		r.errs = make([]error, n)
	}
	r.errs = r.errs[:n]
	clear(r.errs)
	if cap(r.replies) < n {
		r.replies = make([]sdk.Reply, n)
	}
	r.replies = r.replies[:n]
	set := p.set
	set.calls.Add(int64(n))
	if set.opts.Unbatched {
		set.roundTrips.Add(int64(n))
		for i := range r.batch.Calls {
			c := &r.batch.Calls[i]
			start := time.Now()
			r.errs[i] = p.do(func(ctx context.Context, svc sdk.Service) error {
				rep, err := svc.Call(ctx, &r.batch.Sites[c.Site], c)
				if err == nil {
					r.replies[i] = *rep
				}
				return err
			})
			r.sites[c.Site].times.add(c.Kind, 1, time.Since(start))
		}
		return
	}
	start := time.Now()
	var err error
	if r.st != nil { // sent in part already (stream.go)
		start = r.st.start
		err = r.finishStream()
	} else {
		err = p.do(func(ctx context.Context, svc sdk.Service) error {
			return r.runBatch(ctx, svc, &set.roundTrips)
		})
	}
	r.account(time.Since(start))
	if err != nil {
		for i := range r.errs {
			r.errs[i] = err
		}
	}
}

// Resume delivers an agent's reply after Flush: the reply's fields, state
// bytes, effects and jump are applied, then the step continues
// (Agent.CompleteAction, CompleteCondition or CompleteScore) until it ends
// or pauses at another call. Resume agents in the order they were stepped
// (StepAll does): runs are deterministic that way, and each agent is found
// at once (in any other order, Resume searches the waiting agents).
func (s *Set) Resume(a *runtime.Agent) (runtime.Status, error) {
	if s.concurrent {
		s.mu.Lock()
	}
	k := s.find(a)
	if k < 0 {
		queued := false
		for i := range s.queued {
			queued = queued || s.queued[i].a == a
		}
		if s.concurrent {
			s.mu.Unlock()
		}
		if queued {
			return runtime.Paused, newErr(fmt.Sprintf("host: Resume: the call of agent %s has not been sent yet; call Flush first", a.ID()), ErrUsage)
		}
		if p := a.PausedAt(); p != runtime.PauseNone { // do not leave it stuck: fail what it waits for
			return a.FailPaused(newErr(fmt.Sprintf("host: Resume: agent %s is paused at %s, not at a call of these plugins", a.ID(), p), ErrUsage))
		}
		return runtime.Errored, newErr(fmt.Sprintf("host: Resume: agent %s is not waiting for a call of these plugins", a.ID()), ErrUsage)
	}
	t := s.take(k)
	if s.concurrent {
		s.mu.Unlock()
	}
	return s.deliver(a, t)
}

// take marks the k-th sent call resumed and returns it; with workers, under
// the set's lock.
func (s *Set) take(k int) *ticket {
	t := &s.sent[k]
	t.resumed = true
	s.unresumed--
	for s.next < len(s.sent) && s.sent[s.next].resumed {
		s.next++
	}
	return t
}

// deliver applies the reply to t's call to a and continues a's step. The
// sent calls and their replies stay put until the next Flush, so it needs
// no lock.
func (s *Set) deliver(a *runtime.Agent, t *ticket) (runtime.Status, error) {
	p := t.p
	r := &p.inflight
	call := &r.batch.Calls[t.i]
	rep := &r.replies[t.i]
	err := r.errs[t.i]
	if p.held {
		err = newErr(fmt.Sprintf("host: plugin %s: the round's calls were relayed and no answer came", p.spec.Name), ErrUsage)
	}
	if err == nil && rep.Err != "" {
		err = p.callError(rep.Err)
	}
	switch call.Kind {
	case sdk.KindCondition:
		return a.CompleteCondition(rep.OK, err)
	case sdk.KindScorer:
		return a.CompleteScore(rep.Score, err)
	}
	if err == nil {
		err = r.sites[call.Site].apply(a, rep, true)
	}
	return a.CompleteAction(runtime.Status(rep.Status), err)
}

// find returns the index in sent of a's call not yet resumed, or -1.
func (s *Set) find(a *runtime.Agent) int {
	if s.next < len(s.sent) && s.sent[s.next].a == a {
		return s.next
	}
	if s.concurrent {
		if k, ok := s.sentAt[a]; ok && !s.sent[k].resumed {
			return int(k)
		}
		return -1
	}
	for k := s.next; k < len(s.sent); k++ {
		if t := &s.sent[k]; t.a == a && !t.resumed {
			return k
		}
	}
	return -1
}
