package sdk

import (
	"context"
	"fmt"
	"sync"

	"google.golang.org/grpc"

	pb "github.com/btrun/btrun/plugins/proto"
)

// grpcClient adapts the generated gRPC client to Service (the host's side).
// Batches go through the hand-written codec (wire.go).
type grpcClient struct {
	client pb.PluginClient
	conn   grpc.ClientConnInterface

	mu     sync.Mutex
	codecs []*batchCodec // free codecs: one per RunBatch in flight, kept for the next
}

// batchCodec is what one RunBatch in flight encodes and decodes with. The
// host sends a large batch as several RunBatch calls at once (chunks
// pipelined with the plugin's work), so each call takes a codec of its own
// and gives it back when done; the codecs and their storage are kept.
type batchCodec struct {
	req     batchRequest // kept for its size guess
	replies batchReplies // the arrays replies' Writes and Effects are cut from
}

func (c *grpcClient) takeCodec() *batchCodec {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.codecs); n > 0 {
		bc := c.codecs[n-1]
		c.codecs = c.codecs[:n-1]
		return bc
	}
	return &batchCodec{}
}

func (c *grpcClient) putCodec(bc *batchCodec) {
	c.mu.Lock()
	c.codecs = append(c.codecs, bc)
	c.mu.Unlock()
}

func (c *grpcClient) Describe(ctx context.Context) (*Description, error) {
	r, err := c.client.Describe(ctx, &pb.DescribeRequest{})
	if err != nil {
		return nil, err
	}
	d := &Description{Plugin: r.Plugin, SDKVersion: r.SdkVersion}
	for _, a := range r.Actions {
		d.Actions = append(d.Actions, ActionInfo{Name: a.Name, Reads: a.Reads, Writes: a.Writes, HasStart: a.HasStart, HasCancel: a.HasCancel,
			Doc: a.Doc, Params: paramsFromPB(a.Params, a.ParamsDeclared), Stimuli: a.Stimuli})
	}
	for _, x := range r.Conditions {
		d.Conditions = append(d.Conditions, ConditionInfo{Name: x.Name, Reads: x.Reads, Doc: x.Doc, Params: paramsFromPB(x.Params, x.ParamsDeclared)})
	}
	for _, x := range r.Scorers {
		d.Scorers = append(d.Scorers, ScorerInfo{Name: x.Name, Reads: x.Reads})
	}
	return d, nil
}

// paramsFromPB keeps "declares none" (an empty, non-nil list) apart from
// "does not say" (nil).
func paramsFromPB(ps []*pb.ParamDecl, declared bool) []ParamInfo {
	if !declared {
		return nil
	}
	out := make([]ParamInfo, 0, len(ps))
	for _, p := range ps {
		out = append(out, ParamInfo{Name: p.Name, Type: p.Type, Required: p.Required, Default: p.DefaultValue, Doc: p.Doc})
	}
	return out
}

func (c *grpcClient) Call(ctx context.Context, site *Site, req *Request) (*Reply, error) {
	in := &pb.Single{Site: siteToPB(site), Call: &pb.Call{}}
	requestToPB(req, in.Call, nil)
	var (
		r   *pb.Reply
		err error
	)
	switch req.Kind {
	case KindAction:
		r, err = c.client.RunAction(ctx, in)
	case KindCondition:
		r, err = c.client.TestCondition(ctx, in)
	case KindCancel:
		r, err = c.client.CancelAction(ctx, in)
	case KindScorer:
		r, err = c.client.Score(ctx, in)
	default:
		return nil, fmt.Errorf("sdk: unknown call kind %d", req.Kind)
	}
	if err != nil {
		return nil, err
	}
	out := &Reply{}
	replyFromPB(r, out)
	return out, nil
}

// RunBatch sends the batch in one round trip. The replies' Writes and
// Effects are valid until the next RunBatch that starts after this one
// returned (their storage is reused); calls in flight at once each use
// storage of their own.
func (c *grpcClient) RunBatch(ctx context.Context, b *Batch, out []Reply) ([]Reply, error) {
	bc := c.takeCodec()
	defer c.putCodec(bc)
	bc.req.b = b
	bc.replies.out = out[:0]
	err := c.conn.Invoke(ctx, pb.Plugin_RunBatch_FullMethodName, &bc.req, &bc.replies, grpc.ForceCodec(wireCodec{}))
	bc.req.b = nil
	out = bc.replies.out
	bc.replies.out = nil
	if err != nil {
		return out[:0], err
	}
	bc.req.keep()
	if len(out) != len(b.Calls) {
		return out[:0], fmt.Errorf("sdk: the plugin answered %d calls with %d replies", len(b.Calls), len(out))
	}
	return out, nil
}

func (c *grpcClient) Ping(ctx context.Context) error {
	_, err := c.client.Ping(ctx, &pb.PingRequest{})
	return err
}

func siteToPB(s *Site) *pb.Site {
	out := &pb.Site{Name: s.Name, Rule: s.Rule}
	if len(s.Params) > 0 {
		ps := make([]pb.Param, len(s.Params))
		out.Params = make([]*pb.Param, len(s.Params))
		for i, p := range s.Params {
			ps[i] = pb.Param{Name: p.Name, Value: p.Value}
			out.Params[i] = &ps[i]
		}
	}
	return out
}

// requestToPB fills c from r; field values are appended to vals so that a
// batch shares one allocation.
func requestToPB(r *Request, c *pb.Call, vals []pb.Value) []pb.Value {
	c.Kind = pb.CallKind(r.Kind)
	c.Site = r.Site
	c.Agent = r.Agent
	c.FirstRun = r.FirstRun
	c.Time = r.Time
	c.Dt = r.Dt
	c.State = r.State
	c.Stimuli = stimuliToPB(r.Stimuli)
	if len(r.Fields) > 0 {
		if vals == nil {
			vals = make([]pb.Value, 0, len(r.Fields))
		}
		start := len(vals)
		for _, f := range r.Fields {
			vals = append(vals, pb.Value{Kind: pb.ValueKind(f.Kind), Number: f.Num, Text: f.Str, Flag: f.Bool})
		}
		c.Fields = make([]*pb.Value, len(r.Fields))
		for i := range r.Fields {
			c.Fields[i] = &vals[start+i]
		}
	}
	return vals
}

func replyFromPB(r *pb.Reply, out *Reply) {
	*out = Reply{Status: Status(r.Status), OK: r.Ok, Score: r.Score, StateSet: r.StateSet, State: r.State, Jump: r.Jump, Err: r.Error}
	if len(r.Writes) > 0 {
		out.Writes = make([]Value, len(r.Writes))
		for i, w := range r.Writes {
			out.Writes[i] = Value{Kind: ValueKind(w.Kind), Num: w.Number, Str: w.Text, Bool: w.Flag}
		}
	}
	if len(r.Effects) > 0 {
		out.Effects = make([]Effect, len(r.Effects))
		for i, e := range r.Effects {
			out.Effects[i] = Effect{Kind: EffectKind(e.Kind), Name: e.Name, To: e.To, Flag: e.Flag, Data: dataFromPB(e.Data, 0)}
		}
	}
}
