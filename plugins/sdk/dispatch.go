package sdk

import (
	"context"
	"fmt"
	goruntime "runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// dispatcher implements Service on the plugin side: it finds the declared
// action or condition for each call and runs it, turning errors and panics
// into replies so that one bad call never takes the plugin down.
type dispatcher struct {
	p          *Plugin
	desc       *Description
	actions    map[string]*Action
	conditions map[string]*Condition
	scorers    map[string]*Scorer
	callNs     atomic.Int64     // perCall
	clock      func() time.Time // time.Now; a test's own clock gives the calls a known cost
}

func newDispatcher(p *Plugin) (*dispatcher, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	d := &dispatcher{p: p, desc: p.describe(), actions: map[string]*Action{}, conditions: map[string]*Condition{}, scorers: map[string]*Scorer{},
		clock: time.Now}
	for i := range p.Actions {
		d.actions[p.Actions[i].Name] = &p.Actions[i]
	}
	for i := range p.Conditions {
		d.conditions[p.Conditions[i].Name] = &p.Conditions[i]
	}
	for i := range p.Scorers {
		d.scorers[p.Scorers[i].Name] = &p.Scorers[i]
	}
	return d, nil
}

func (d *dispatcher) Describe(context.Context) (*Description, error) { return d.desc, nil }

func (d *dispatcher) Ping(context.Context) error { return nil }

func (d *dispatcher) Call(_ context.Context, site *Site, req *Request) (*Reply, error) {
	r := &Reply{}
	c := new(Call)
	func() {
		defer func() {
			if p := recover(); p != nil {
				d.panicked(site, req, r, p)
			}
		}()
		d.run(c, site, req, r, d.find(req.Kind, site.Name))
	}()
	return r, nil
}

// target is what a call runs: the declaration its site names for its kind
// (nil when the plugin declares none).
type target struct {
	action    *Action // actions and cancels
	condition *Condition
	scorer    *Scorer
}

// find looks the site's name up for a call of the given kind.
func (d *dispatcher) find(kind CallKind, name string) target {
	switch kind {
	case KindAction, KindCancel:
		return target{action: d.actions[name]}
	case KindCondition:
		return target{condition: d.conditions[name]}
	case KindScorer:
		return target{scorer: d.scorers[name]}
	}
	return target{}
}

// panicked makes a call's panic its reply.
func (d *dispatcher) panicked(site *Site, req *Request, r *Reply, p any) {
	what := (&Call{kind: req.Kind}).kindWord()
	*r = Reply{Err: fmt.Sprintf("%s %q panicked: %v", what, site.Name, p)}
	logf("error", "%s %q panicked for agent %s at %s: %v\n%s", what, site.Name, req.Agent, site.Rule, p, debug.Stack())
}

// A batch runs on several goroutines when it is large (parallelMin calls)
// or when its calls, at the time a call took in the batches so far, add up
// to parallelWork: the host waits for the reply anyway, so the plugin may
// use every core. A game's batches are often a hundred calls of path
// finding or sensing, microseconds each: on one goroutine that was most of
// a millisecond of every step in which nothing else ran.
const (
	parallelMin  = 512
	parallelWork = 100 * time.Microsecond
)

func (d *dispatcher) RunBatch(_ context.Context, b *Batch, out []Reply) ([]Reply, error) {
	n := len(b.Calls)
	if cap(out) < n {
		out = make([]Reply, n)
	}
	out = out[:n]
	for i := range b.Calls {
		if int(b.Calls[i].Site) >= len(b.Sites) {
			return out[:0], fmt.Errorf("sdk: call %d names site %d of %d", i, b.Calls[i].Site, len(b.Sites))
		}
	}
	workers := min(goruntime.GOMAXPROCS(0), n/2)
	if workers < 2 || (n < parallelMin && time.Duration(n)*d.perCall() < parallelWork) {
		d.timedRange(b, out, 0, n)
		return out, nil
	}
	// The last part runs on this goroutine, whose stack has grown to what
	// a call needs (a new goroutine grows its own each batch).
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	lo := 0
	for ; lo+chunk < n; lo += chunk {
		wg.Add(1)
		go func(lo int) {
			defer wg.Done()
			d.timedRange(b, out, lo, lo+chunk)
		}(lo)
	}
	d.timedRange(b, out, lo, n)
	wg.Wait()
	return out, nil
}

// perCall is the time a call took, as last measured (0 before any).
func (d *dispatcher) perCall() time.Duration { return time.Duration(d.callNs.Load()) }

// timedRange is runRange, measuring the time a call takes for perCall.
func (d *dispatcher) timedRange(b *Batch, out []Reply, lo, hi int) {
	start := d.clock()
	d.runRange(b, out, lo, hi)
	if hi > lo {
		d.callNs.Store(int64(d.clock().Sub(start)) / int64(hi-lo))
	}
}

// runRange runs calls lo to hi into out with one Call, and with each
// reply's writes in the array the reply at that place had (out is reused
// from batch to batch): no allocation per call of its own. A call that
// panics gets the panic as its error, and the range goes on after it.
func (d *dispatcher) runRange(b *Batch, out []Reply, lo, hi int) {
	c := new(Call)
	var m memo
	for lo < hi {
		lo = d.runUntilPanic(c, &m, b, out, lo, hi)
	}
}

// memo is the target of the site and kind of the call before: a batch's
// calls come in runs of the same site, and the name is looked up once a
// run instead of once a call.
type memo struct {
	site *Site
	kind CallKind
	t    target
}

// runUntilPanic runs calls lo to hi, or up to one that panics; it returns
// the call to go on from. One recover for the range, not one per call.
func (d *dispatcher) runUntilPanic(c *Call, m *memo, b *Batch, out []Reply, lo, hi int) (next int) {
	i := lo
	defer func() {
		if p := recover(); p != nil {
			req := &b.Calls[i]
			d.panicked(&b.Sites[req.Site], req, &out[i], p)
			next = i + 1
		}
	}()
	for ; i < hi; i++ {
		req := &b.Calls[i]
		site := &b.Sites[req.Site]
		if site != m.site || req.Kind != m.kind {
			m.site, m.kind, m.t = site, req.Kind, d.find(req.Kind, site.Name)
		}
		c.outBuf = out[i].Writes[:0]
		out[i].reset(nil)
		d.run(c, site, req, &out[i], m.t)
	}
	return hi
}

// reset makes r the zero Reply with writes as its Writes, field by field:
// assigned whole, a Reply (it holds pointers) was cleared through the
// runtime's typed memory functions, some 60 instructions each time.
func (r *Reply) reset(writes []Value) {
	r.Status, r.OK, r.Score, r.StateSet = 0, false, 0, false
	r.State, r.Writes, r.Effects, r.Jump, r.Err = nil, writes, nil, "", ""
}

// run performs one call into r, of t (found for the call's kind and
// site); c is reset and filled for it. Its caller recovers from a panic.
func (d *dispatcher) run(c *Call, site *Site, req *Request, r *Reply, t target) {
	c.reset(req, site)
	switch req.Kind {
	case KindAction, KindCancel:
		a := t.action
		if a == nil {
			r.Err = fmt.Sprintf("%v: plugin %q has no action %q", ErrUnknownName, d.p.Name, site.Name)
			return
		}
		c.reads, c.writes = a.Reads, a.Writes
		if req.Kind == KindCancel {
			d.cancel(a, c, r)
			return
		}
		d.action(a, c, r)
	case KindCondition:
		cd := t.condition
		if cd == nil {
			r.Err = fmt.Sprintf("%v: plugin %q has no condition %q", ErrUnknownName, d.p.Name, site.Name)
			return
		}
		c.reads = cd.Reads
		v, err := cd.Test(c)
		switch {
		case err != nil:
			r.Err = err.Error()
		case c.changes():
			r.Err = fmt.Sprintf("sdk: condition %q tried to change the agent (state, fields, signals or a jump); only actions can", site.Name)
		default:
			r.OK = v
		}
	case KindScorer:
		sc := t.scorer
		if sc == nil {
			r.Err = fmt.Sprintf("%v: plugin %q has no scorer %q", ErrUnknownName, d.p.Name, site.Name)
			return
		}
		c.reads = sc.Reads
		v, err := sc.Score(c)
		switch {
		case err != nil:
			r.Err = err.Error()
		case c.changes():
			r.Err = fmt.Sprintf("sdk: scorer %q tried to change the agent (state, fields, signals or a jump); only actions can", site.Name)
		default:
			r.Score = v
		}
	default:
		r.Err = fmt.Sprintf("sdk: unknown call kind %d", req.Kind)
	}
}

func (d *dispatcher) action(a *Action, c *Call, r *Reply) {
	if c.FirstRun && a.Start != nil {
		if err := a.Start(c); err != nil {
			r.Err = "start: " + err.Error()
			return
		}
	}
	st, err := a.Run(c)
	if err != nil {
		r.Err = err.Error()
		return
	}
	if st != Success && st != Failure && st != Running {
		r.Err = fmt.Sprintf("sdk: action %q returned status %d; an action returns sdk.Success, sdk.Failure or sdk.Running", a.Name, st)
		return
	}
	r.Status = st
	c.fill(r)
}

func (d *dispatcher) cancel(a *Action, c *Call, r *Reply) {
	if a.Cancel == nil {
		return
	}
	if err := a.Cancel(c); err != nil {
		r.Err = "cancel: " + err.Error()
		return
	}
	if c.jump != "" {
		r.Err = fmt.Sprintf("sdk: cancel of action %q tried to jump; a cancel hook cannot", a.Name)
		return
	}
	c.fill(r)
}

// fill copies what the call changed into the reply.
func (c *Call) fill(r *Reply) {
	r.StateSet, r.State = c.stateSet, c.newState
	r.Writes = c.out
	r.Effects = c.effects
	r.Jump = c.jump
}
