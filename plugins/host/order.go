package host

import (
	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
)

// Agents stepped on several goroutines (SetConcurrent) queue their calls
// in whatever order the workers reach them. Before a round's calls are
// sent, they are put back in the order of the round's agents, which is the
// config order, so that every plugin receives the same batch (calls and
// sites in the same order) for any number of workers: a plugin whose
// replies depend on the order of its calls (first come, first served)
// gives the same answers whatever the thread count.

// orderScratch is what inConfigOrder reuses from round to round.
type orderScratch struct {
	at      map[*runtime.Agent]int32 // an agent's ticket in queued
	tickets []ticket
}

// inConfigOrder reorders the queued calls of each plugin to follow round
// (every waiting agent is in it, once). Called between the parallel parts
// of a round, on one goroutine.
func (s *Set) inConfigOrder(round []*runtime.Agent) {
	if len(s.queued) < 2 {
		return
	}
	o := &s.order
	if o.at == nil {
		o.at = map[*runtime.Agent]int32{}
	}
	clear(o.at)
	for k, t := range s.queued {
		o.at[t.a] = int32(k)
	}
	o.tickets = o.tickets[:0]
	for _, a := range round {
		if k, ok := o.at[a]; ok {
			o.tickets = append(o.tickets, s.queued[k])
			delete(o.at, a)
		}
	}
	if len(o.tickets) != len(s.queued) {
		return // an agent outside the round (a caller's own rounds): leave the order as queued
	}
	for _, p := range s.plugins {
		if len(p.queue.batch.Calls) > 0 {
			p.reorder.take(&p.queue)
		}
	}
	for k := range o.tickets {
		t := &o.tickets[k]
		t.i = t.p.reorder.put(&t.p.queue, t.i)
	}
	s.queued = append(s.queued[:0], o.tickets...)
}

// reorder holds a plugin's queued calls and sites while they are put back
// in a new order.
type reorder struct {
	calls   []callCopy
	sites   []*site
	newSite []int32 // old site index -> new, -1 while not yet placed
}

// callCopy is a queued call as it was before reordering.
type callCopy struct {
	req  sdk.Request
	site int32
}

// take moves the queue's calls and sites aside, leaving it empty of them
// (the fields stay where they are: each call's Fields points into them).
func (r *reorder) take(q *round) {
	r.calls = r.calls[:0]
	for _, c := range q.batch.Calls {
		r.calls = append(r.calls, callCopy{c, int32(c.Site)})
	}
	r.sites = append(r.sites[:0], q.sites...)
	r.newSite = r.newSite[:0]
	for range r.sites {
		r.newSite = append(r.newSite, -1)
	}
	infos := q.batch.Sites
	q.batch.Calls = q.batch.Calls[:0]
	q.batch.Sites = infos[:0]
	q.sites = q.sites[:0]
}

// put appends the call that was at index i to the queue, its site placed
// on first use, and returns its new index.
func (r *reorder) put(q *round, i int32) int32 {
	c := r.calls[i]
	ns := r.newSite[c.site]
	if ns < 0 {
		ns = int32(len(q.sites))
		r.newSite[c.site] = ns
		st := r.sites[c.site]
		st.idx = uint32(ns)
		q.sites = append(q.sites, st)
		q.batch.Sites = append(q.batch.Sites, st.info)
	}
	c.req.Site = uint32(ns)
	q.batch.Calls = append(q.batch.Calls, c.req)
	return int32(len(q.batch.Calls) - 1)
}
