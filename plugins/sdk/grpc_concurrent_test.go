package sdk

import (
	"context"
	"sync"
	"testing"

	"github.com/hashicorp/go-plugin"
)

// TestGRPC_batchesInFlightKeepTheirReplies: the host sends a large batch as
// several RunBatch calls at once, each into its own part of one reply
// array. A batch's replies (their Writes) stay as they were while other
// batches, with other outs, are sent and answered, at once or after it.
func TestGRPC_batchesInFlightKeepTheirReplies(t *testing.T) {
	d, err := newDispatcher(counter())
	if err != nil {
		t.Fatal(err)
	}
	client, _ := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{PluginKey: &GRPCPlugin{Impl: d}})
	defer client.Close()
	raw, err := client.Dispense(PluginKey)
	if err != nil {
		t.Fatal(err)
	}
	svc := raw.(Service)
	site := Site{Name: "count", Rule: "root.count"}
	batch := func(base float64) *Batch {
		b := &Batch{Sites: []Site{site}}
		for i := range 20 {
			b.Calls = append(b.Calls, Request{Kind: KindAction, Agent: "a", Fields: []Value{{Kind: ValueNumber, Num: base + float64(i)}}})
		}
		return b
	}
	check := func(who string, out []Reply, base float64) {
		t.Helper()
		if len(out) != 20 {
			t.Fatalf("%s: %d replies", who, len(out))
		}
		for i := range out {
			if w := out[i].Writes; len(w) != 2 || w[0].Num != base+float64(i)+1 {
				t.Fatalf("%s: reply %d writes %+v, want n = %v first", who, i, w, base+float64(i)+1)
			}
		}
	}
	ctx := context.Background()
	// One after the other: the first batch's replies outlive the second.
	first, err := svc.RunBatch(ctx, batch(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := svc.RunBatch(ctx, batch(1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	check("first", first, 0)
	check("second", second, 1000)
	// At once, each into its part of one array, again and again (the
	// arrays reused).
	all := make([]Reply, 40)
	for round := range 5 {
		var wg sync.WaitGroup
		for part := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				at := all[20*part : 20*part+20 : 20*part+20]
				out, err := svc.RunBatch(ctx, batch(float64(100*round+1000*part)), at)
				if err != nil || &out[0] != &at[0] {
					t.Errorf("part %d: %v (or the replies not in place)", part, err)
				}
			}()
		}
		wg.Wait()
		check("part 0", all[:20], float64(100*round))
		check("part 1", all[20:], float64(100*round+1000))
	}
}
