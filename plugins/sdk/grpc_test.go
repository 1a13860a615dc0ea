package sdk

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/go-plugin"
)

// TestGRPC_adaptersCarryEverything sends calls through the gRPC adapters
// (in-process gRPC connection) and compares the replies with the
// dispatcher's own: nothing is lost or changed on the wire.
func TestGRPC_adaptersCarryEverything(t *testing.T) {
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
	ctx := context.Background()

	desc, err := svc.Describe(ctx)
	if err != nil || !reflect.DeepEqual(desc, d.desc) {
		t.Fatalf("describe:\n%+v\n%+v (%v)", desc, d.desc, err)
	}
	if err := svc.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	site := &Site{Name: "count", Rule: "root.count", Params: []Param{{"a", "1"}, {"b", "2"}}}
	req := &Request{Kind: KindAction, Agent: "a1", FirstRun: true, Time: 1.5, Dt: 0.1,
		State: []byte(`{"Runs":2}`), Fields: []Value{{Kind: ValueNumber, Num: 4}}}
	want, _ := d.Call(ctx, site, req)
	got, err := svc.Call(ctx, site, req)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("single call:\n got %+v\nwant %+v (%v)", got, want, err)
	}
	req.Kind = KindCancel
	if got, err := svc.Call(ctx, site, req); err != nil || got.Writes[0].Num != -1 {
		t.Fatalf("cancel: %+v %v", got, err)
	}
	scorer := &Site{Name: "urge", Rule: "root.kid", Params: []Param{{"urge.weight", "2.5"}}}
	scoreReq := &Request{Kind: KindScorer, Agent: "a1", Fields: []Value{{Kind: ValueNumber, Num: 3}}}
	if got, err := svc.Call(ctx, scorer, scoreReq); err != nil || got.Score != 7.5 || got.Err != "" {
		t.Fatalf("scorer: %+v %v", got, err)
	}
	b := &Batch{Sites: []Site{*site, {Name: "big", Rule: "root", Params: []Param{{"big.limit", "3"}}}, *scorer}}
	for i := range 5 {
		b.Calls = append(b.Calls, Request{Kind: KindCondition, Site: 1, Agent: "a", Fields: []Value{{Kind: ValueNumber, Num: float64(i)}}})
		b.Calls = append(b.Calls, Request{Kind: KindScorer, Site: 2, Agent: "c", Fields: []Value{{Kind: ValueNumber, Num: float64(i)}}})
		b.Calls = append(b.Calls, Request{Kind: KindAction, Site: 0, Agent: "b", State: []byte(`{"Runs":1}`),
			Fields: []Value{{Kind: ValueString, Str: "text"}}})
	}
	wantB, _ := d.RunBatch(ctx, b, nil)
	gotB, err := svc.RunBatch(ctx, b, nil)
	if err != nil || len(gotB) != len(wantB) {
		t.Fatal(len(gotB), err)
	}
	for i := range gotB {
		// protobuf leaves empty repeated fields nil; compare lengths there.
		g, w := gotB[i], wantB[i]
		if g.Status != w.Status || g.OK != w.OK || g.Score != w.Score || g.StateSet != w.StateSet || string(g.State) != string(w.State) ||
			!reflect.DeepEqual(g.Writes, w.Writes) || len(g.Effects) != len(w.Effects) || g.Jump != w.Jump || g.Err != w.Err {
			t.Errorf("reply %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}
