package sdk

import (
	"context"
	"slices"
	"sync"

	"google.golang.org/grpc"

	pb "github.com/btrun/btrun/plugins/proto"
)

// grpcServer adapts a Service to the generated gRPC server interface.
type grpcServer struct {
	pb.UnimplementedPluginServer
	impl Service

	mu    sync.Mutex
	spare []*batchIn // the storage of batches done, for the next (one per batch in flight)
	made  int        // batchIns made (maxBatchIns)
	takes uint64     // takeBatch calls so far (batchIn.taken)
}

func (s *grpcServer) Describe(ctx context.Context, _ *pb.DescribeRequest) (*pb.DescribeReply, error) {
	d, err := s.impl.Describe(ctx)
	if err != nil {
		return nil, err
	}
	out := &pb.DescribeReply{Plugin: d.Plugin, SdkVersion: d.SDKVersion}
	for _, a := range d.Actions {
		out.Actions = append(out.Actions, &pb.ActionDecl{Name: a.Name, Reads: a.Reads, Writes: a.Writes, HasStart: a.HasStart, HasCancel: a.HasCancel,
			Doc: a.Doc, Params: paramsToPB(a.Params), ParamsDeclared: a.Params != nil, Stimuli: a.Stimuli})
	}
	for _, c := range d.Conditions {
		out.Conditions = append(out.Conditions, &pb.ConditionDecl{Name: c.Name, Reads: c.Reads, Doc: c.Doc,
			Params: paramsToPB(c.Params), ParamsDeclared: c.Params != nil})
	}
	for _, c := range d.Scorers {
		out.Scorers = append(out.Scorers, &pb.ScorerDecl{Name: c.Name, Reads: c.Reads})
	}
	return out, nil
}

func paramsToPB(ps []ParamInfo) []*pb.ParamDecl {
	out := make([]*pb.ParamDecl, 0, len(ps))
	for _, p := range ps {
		out = append(out, &pb.ParamDecl{Name: p.Name, Type: p.Type, Required: p.Required, DefaultValue: p.Default, Doc: p.Doc})
	}
	return out
}

func (s *grpcServer) RunAction(ctx context.Context, in *pb.Single) (*pb.Reply, error) {
	return s.single(ctx, in, KindAction)
}

func (s *grpcServer) TestCondition(ctx context.Context, in *pb.Single) (*pb.Reply, error) {
	return s.single(ctx, in, KindCondition)
}

func (s *grpcServer) Score(ctx context.Context, in *pb.Single) (*pb.Reply, error) {
	return s.single(ctx, in, KindScorer)
}

func (s *grpcServer) CancelAction(ctx context.Context, in *pb.Single) (*pb.Reply, error) {
	return s.single(ctx, in, KindCancel)
}

func (s *grpcServer) single(ctx context.Context, in *pb.Single, kind CallKind) (*pb.Reply, error) {
	site := siteFromPB(in.GetSite())
	var req Request
	requestFromPB(in.GetCall(), &req, nil)
	req.Kind = kind
	r, err := s.impl.Call(ctx, &site, &req)
	if err != nil {
		return nil, err
	}
	out := &pb.Reply{}
	replyToPB(r, out)
	return out, nil
}

// RunBatch is served by runBatch (registered by registerServer) where the
// server speaks wireCodec; this generated-code path serves gRPC servers
// that do not (go-plugin's test connections, servers made elsewhere).
func (s *grpcServer) RunBatch(ctx context.Context, in *pb.Batch) (*pb.BatchReply, error) {
	b := Batch{Sites: make([]Site, len(in.Sites)), Calls: make([]Request, len(in.Calls))}
	for i, st := range in.Sites {
		b.Sites[i] = siteFromPB(st)
	}
	// One slab for every call's fields: one allocation instead of one per call.
	n := 0
	for _, c := range in.Calls {
		n += len(c.Fields)
	}
	slab := make([]Value, 0, n)
	for i, c := range in.Calls {
		slab = requestFromPB(c, &b.Calls[i], slab)
	}
	replies, err := s.impl.RunBatch(ctx, &b, nil)
	if err != nil {
		return nil, err
	}
	msgs := make([]pb.Reply, len(replies))
	out := &pb.BatchReply{Replies: make([]*pb.Reply, len(replies))}
	for i := range replies {
		replyToPB(&replies[i], &msgs[i])
		out.Replies[i] = &msgs[i]
	}
	return out, nil
}

// runBatch serves RunBatch with the hand-written codec: the request is
// decoded into a batchIn kept from the last batch, the replies are encoded
// at once (gRPC writes the bytes after the handler returns, and the batchIn
// is free for the next batch by then).
func (s *grpcServer) runBatch(ctx context.Context, in *batchIn) (any, error) {
	replies, err := s.impl.RunBatch(ctx, &in.b, in.replies)
	if err != nil {
		return nil, err
	}
	in.replies = replies
	data, err := encodeReplies(replies, in.size)
	if err != nil {
		return nil, err
	}
	in.size = len(data)
	// Let go of what the plugin's replies hold (state bytes, strings) until
	// the slots are used again, but keep each one's writes array: the next
	// call at that place writes into it.
	for i := range replies {
		w := replies[i].Writes
		clearValues(w)
		replies[i].reset(w[:0])
	}
	return wireBytes(data), nil
}

// maxBatchIns bounds the batchIns a server makes while none of those
// kept held the batch's first agent: one per chunk of the host's largest
// batches, which it sends in at most 5 (a small first chunk and 4).
const maxBatchIns = 5

// takeBatch returns a kept batchIn, or a new one while all are in use: a
// host sends a large batch as a few chunks in flight at once, and each
// keeps its storage from round to round. Of those kept, it takes the one
// whose last batch began with agent first (batchPick), else the one taken
// longest ago: the last one given back, as it took before, is the one
// most likely to hold a chunk still to come this round, and storage that
// held a chunk no longer sent (the first round's chunks are smaller) was
// never taken again, so the chunks of every later round displaced each
// other and most agent ids were decoded into new strings.
func (s *grpcServer) takeBatch(first []byte) *batchIn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.takes++
	n := len(s.spare)
	k := -1
	for i, in := range s.spare {
		if c := in.b.Calls; len(c) > 0 && c[0].Agent == string(first) {
			k = i
			break
		}
	}
	if k < 0 {
		// None held this chunk: a new one, up to maxBatchIns (a host
		// sends at most 5 chunks), so that each chunk gets its own.
		if n == 0 || s.made < maxBatchIns {
			s.made++
			return &batchIn{taken: s.takes}
		}
		k = 0
		for i, in := range s.spare {
			if in.taken < s.spare[k].taken {
				k = i
			}
		}
	}
	in := s.spare[k]
	in.taken = s.takes
	s.spare[k] = s.spare[n-1]
	s.spare[n-1] = nil
	s.spare = s.spare[:n-1]
	return in
}

func (s *grpcServer) putBatch(in *batchIn) {
	s.mu.Lock()
	s.spare = append(s.spare, in)
	s.mu.Unlock()
}

// runBatchStream serves RunBatch as a stream handler of one request and
// one reply: on the wire an RPC is the same either way (a unary client
// calls it as it always did), but gRPC gives a stream's received messages
// back to the server's buffer pool once they are decoded, and a unary
// method's never (grpc-go 1.61): each chunk of a batch, some 45 bytes a
// call, was a fresh buffer, the plugin's largest garbage. The decoder copies
// whatever it keeps (wire.go).
func runBatchStream(srv any, stream grpc.ServerStream) error {
	s := srv.(*grpcServer)
	pick := batchPick{s: s}
	err := stream.RecvMsg(&pick)
	in := pick.in
	if in == nil { // the codec did not run
		in = s.takeBatch(nil)
	}
	defer s.putBatch(in)
	if err != nil {
		return err
	}
	reply, err := s.runBatch(stream.Context(), in)
	if err != nil {
		return err
	}
	return stream.SendMsg(reply)
}

// wireServiceDesc is the generated service with RunBatch served by
// runBatchStream.
var wireServiceDesc = func() grpc.ServiceDesc {
	d := pb.Plugin_ServiceDesc
	d.Methods = slices.DeleteFunc(slices.Clone(d.Methods), func(m grpc.MethodDesc) bool { return m.MethodName == "RunBatch" })
	d.Streams = append(slices.Clone(d.Streams), grpc.StreamDesc{StreamName: "RunBatch", Handler: runBatchStream})
	return d
}()

// wireServers are the gRPC servers made by newGRPCServer, which speak
// wireCodec.
var wireServers sync.Map

// registerServer registers srv on s: with the hand-written batch codec when
// s speaks it, else as generated.
func registerServer(s *grpc.Server, srv *grpcServer) {
	if _, ok := wireServers.Load(s); ok {
		s.RegisterService(&wireServiceDesc, srv)
		return
	}
	pb.RegisterPluginServer(s, srv)
}

func (s *grpcServer) Ping(ctx context.Context, _ *pb.PingRequest) (*pb.PingReply, error) {
	return &pb.PingReply{}, s.impl.Ping(ctx)
}

func siteFromPB(s *pb.Site) Site {
	out := Site{Name: s.GetName(), Rule: s.GetRule()}
	if ps := s.GetParams(); len(ps) > 0 {
		out.Params = make([]Param, len(ps))
		for i, p := range ps {
			out.Params[i] = Param{Name: p.Name, Value: p.Value}
		}
	}
	return out
}

// requestFromPB fills r from c; the fields go into slab (appended) when
// slab has room, so a batch shares one allocation.
func requestFromPB(c *pb.Call, r *Request, slab []Value) []Value {
	*r = Request{Kind: CallKind(c.GetKind()), Site: c.GetSite(), Agent: c.GetAgent(), FirstRun: c.GetFirstRun(),
		Time: c.GetTime(), Dt: c.GetDt(), State: c.GetState(), Stimuli: stimuliFromPB(c.GetStimuli())}
	if fs := c.GetFields(); len(fs) > 0 {
		start := len(slab)
		for _, f := range fs {
			slab = append(slab, Value{Kind: ValueKind(f.Kind), Num: f.Number, Str: f.Text, Bool: f.Flag})
		}
		r.Fields = slab[start:len(slab):len(slab)]
	}
	return slab
}

func replyToPB(r *Reply, out *pb.Reply) {
	out.Status = pb.Status(r.Status)
	out.Ok = r.OK
	out.Score = r.Score
	out.StateSet = r.StateSet
	out.State = r.State
	out.Jump = r.Jump
	out.Error = r.Err
	if len(r.Writes) > 0 {
		vals := make([]pb.Value, len(r.Writes))
		out.Writes = make([]*pb.Value, len(r.Writes))
		for i, w := range r.Writes {
			vals[i] = pb.Value{Kind: pb.ValueKind(w.Kind), Number: w.Num, Text: w.Str, Flag: w.Bool}
			out.Writes[i] = &vals[i]
		}
	}
	if len(r.Effects) > 0 {
		out.Effects = make([]*pb.Effect, len(r.Effects))
		for i, e := range r.Effects {
			out.Effects[i] = &pb.Effect{Kind: pb.EffectKind(e.Kind), Name: e.Name, To: e.To, Flag: e.Flag, Data: dataToPB(&e.Data)}
		}
	}
}
