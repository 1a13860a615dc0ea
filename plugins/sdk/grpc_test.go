package sdk

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/btrun/btrun/plugins/proto"
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

// TestDescribe_carriesDeclaredParams: parameter declarations cross the
// wire, and "declares none" stays apart from "does not say".
func TestDescribe_carriesDeclaredParams(t *testing.T) {
	p := &Plugin{Name: "p",
		Actions: []Action{
			{Name: "a", Run: func(*Call) (Status, error) { return Success, nil }, Doc: "does a",
				Params: []ParamInfo{{Name: "a.speed", Type: "number", Default: "3", Doc: "how fast"}}},
			{Name: "none", Run: func(*Call) (Status, error) { return Success, nil }, Params: NoParams},
			{Name: "quiet", Run: func(*Call) (Status, error) { return Success, nil }},
		},
		Conditions: []Condition{{Name: "c", Test: func(*Call) (bool, error) { return true, nil }, Params: []ParamInfo{{Name: "c.range", Required: true}}}},
	}
	disp, err := newDispatcher(p)
	if err != nil {
		t.Fatal(err)
	}
	srv := &grpcServer{impl: disp}
	reply, err := srv.Describe(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&grpcClient{client: fakeDescribe{reply}}).Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	a, none, quiet, c := d.Actions[0], d.Actions[1], d.Actions[2], d.Conditions[0]
	if a.Doc != "does a" || len(a.Params) != 1 || a.Params[0] != (ParamInfo{Name: "a.speed", Type: "number", Default: "3", Doc: "how fast"}) {
		t.Errorf("a: %+v", a)
	}
	if none.Params == nil || len(none.Params) != 0 || quiet.Params != nil {
		t.Errorf("none %#v, quiet %#v", none.Params, quiet.Params)
	}
	if len(c.Params) != 1 || !c.Params[0].Required {
		t.Errorf("c: %+v", c)
	}
}

// fakeDescribe is a gRPC client whose Describe returns a fixed reply.
type fakeDescribe struct{ reply *pb.DescribeReply }

func (f fakeDescribe) Describe(context.Context, *pb.DescribeRequest, ...grpc.CallOption) (*pb.DescribeReply, error) {
	return f.reply, nil
}
func (fakeDescribe) RunAction(context.Context, *pb.Single, ...grpc.CallOption) (*pb.Reply, error) {
	return nil, nil
}
func (fakeDescribe) TestCondition(context.Context, *pb.Single, ...grpc.CallOption) (*pb.Reply, error) {
	return nil, nil
}
func (fakeDescribe) Score(context.Context, *pb.Single, ...grpc.CallOption) (*pb.Reply, error) {
	return nil, nil
}
func (fakeDescribe) CancelAction(context.Context, *pb.Single, ...grpc.CallOption) (*pb.Reply, error) {
	return nil, nil
}
func (fakeDescribe) RunBatch(context.Context, *pb.Batch, ...grpc.CallOption) (*pb.BatchReply, error) {
	return nil, nil
}
func (fakeDescribe) Ping(context.Context, *pb.PingRequest, ...grpc.CallOption) (*pb.PingReply, error) {
	return nil, nil
}
