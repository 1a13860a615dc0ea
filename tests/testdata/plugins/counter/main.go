// Command counter is a test plugin whose replies depend on every agent's
// calls, and on how they are batched: one counter across all calls, in
// the order of the batches and of the calls in each, and the number of
// batches so far (game/cluster_plugins_test.go). Run once per shard, each
// instance would count only its shard's calls; sent a round's calls in
// two batches, it would number them otherwise. So a cluster gives one
// process's results only when it sends this plugin what one process sends.
//
// With counter.hangAt = K, the call that takes ticket K never answers: its
// batch times out, and a new process counts from 0 again.
//
// It serves sdk.Service itself rather than an sdk.Plugin: the SDK runs a
// large or slow batch's calls on several goroutines, in no fixed order,
// and this plugin must see them in the batch's order.
package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/btrun/btrun/plugins/sdk"
)

type counter struct {
	mu      sync.Mutex
	calls   int // calls so far
	batches int // batches so far
}

func (*counter) Describe(context.Context) (*sdk.Description, error) {
	return &sdk.Description{Plugin: "counter", SDKVersion: sdk.Version,
		Actions: []sdk.ActionInfo{{Name: "counter.take", HasStart: true,
			Doc: "takes the next ticket: logs it with its batch, fails on every fifth, runs on for one more step on every third, and on every seventh signals the agent counter.to names",
		}},
		Conditions: []sdk.ConditionInfo{{Name: "counter.even", Doc: "the next ticket is even"}},
	}, nil
}

func (c *counter) Call(_ context.Context, site *sdk.Site, req *sdk.Request) (*sdk.Reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var r sdk.Reply
	c.run(site, req, &r)
	return &r, nil
}

func (c *counter) RunBatch(_ context.Context, b *sdk.Batch, out []sdk.Reply) ([]sdk.Reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batches++
	out = out[:0]
	for i := range b.Calls {
		if int(b.Calls[i].Site) >= len(b.Sites) {
			return out[:0], fmt.Errorf("counter: call %d names site %d of %d", i, b.Calls[i].Site, len(b.Sites))
		}
		out = append(out, sdk.Reply{})
		c.run(&b.Sites[b.Calls[i].Site], &b.Calls[i], &out[i])
	}
	return out, nil
}

func (*counter) Ping(context.Context) error { return nil }

// run answers one call.
func (c *counter) run(site *sdk.Site, req *sdk.Request, r *sdk.Reply) {
	switch req.Kind {
	case sdk.KindCondition:
		c.calls++
		r.OK = c.calls%2 == 0
		return
	case sdk.KindAction:
	default:
		r.Err = fmt.Sprintf("counter: a call of kind %d", req.Kind)
		return
	}
	r.Status = sdk.Success
	if !req.FirstRun {
		return
	}
	c.calls++
	k := c.calls
	for _, p := range site.Params {
		if p.Name == "counter.hangAt" && p.Value == fmt.Sprint(k) {
			select {} // never answers: the call times out, and the process is killed
		}
	}
	r.Effects = append(r.Effects, sdk.Effect{Kind: sdk.EffectLog, Name: fmt.Sprintf("ticket %d of batch %d", k, c.batches)})
	if k%7 == 0 {
		for _, p := range site.Params {
			if p.Name == "counter.to" {
				r.Effects = append(r.Effects, sdk.Effect{Kind: sdk.EffectSignal, Name: "Ticket", To: p.Value})
			}
		}
	}
	switch {
	case k%5 == 0:
		r.Status = sdk.Failure
	case k%3 == 0:
		r.Status = sdk.Running
	}
}

func main() { sdk.ServeService(&counter{}, "counter") }
