package sdk

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"path/filepath"
	"reflect"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/btrun/btrun/plugins/proto"
)

// fillRandom sets every field of m, at every depth, to random values: the
// messages of plugin.proto as any protobuf encoder could send them. Enums
// take their declared values (the SDK keeps them in a byte).
func fillRandom(m protoreflect.Message, r *rand.Rand, depth int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if r.IntN(4) == 0 {
			continue // left at its zero value, which proto3 does not send
		}
		if fd.IsList() {
			l := m.Mutable(fd).List()
			for range r.IntN(4) {
				if fd.Kind() == protoreflect.MessageKind {
					e := l.NewElement()
					fillRandom(e.Message(), r, depth+1)
					l.Append(e)
				} else {
					l.Append(randomScalar(fd, r))
				}
			}
			continue
		}
		if fd.Kind() == protoreflect.MessageKind {
			if depth < 3 {
				fillRandom(m.Mutable(fd).Message(), r, depth+1)
			}
			continue
		}
		m.Set(fd, randomScalar(fd, r))
	}
}

// dropEmptyData clears every Data message of m that holds nothing: the
// SDK's Data has no "present but empty" (an empty Data is no data), so the
// hand-written codec, like the converters of the generated code, writes
// none for it.
func dropEmptyData(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		if fd.IsList() {
			for i := range v.List().Len() {
				dropEmptyData(v.List().Get(i).Message())
			}
			return true
		}
		dropEmptyData(v.Message())
		if fd.Message().Name() == "Data" && proto.Size(v.Message().Interface()) == 0 {
			m.Clear(fd)
		}
		return true
	})
}

var wireTexts = []string{"", "a1", "root.count", "ünï", "with \"quotes\"", "a much longer string than the others, past a hundred and twenty-seven bytes so that its message needs a two-byte length..............."}

func randomScalar(fd protoreflect.FieldDescriptor, r *rand.Rand) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(r.IntN(2) == 0)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		return protoreflect.ValueOfEnum(vals.Get(r.IntN(vals.Len())).Number())
	case protoreflect.Uint32Kind:
		return protoreflect.ValueOfUint32([]uint32{0, 1, 127, 128, 300, math.MaxUint32}[r.IntN(6)])
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64([]float64{0, 1.5, -0.0, math.Inf(1), 1e300, -3}[r.IntN(6)])
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(wireTexts[r.IntN(len(wireTexts))])
	case protoreflect.BytesKind:
		b := make([]byte, r.IntN(200))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return protoreflect.ValueOfBytes(b)
	}
	panic("randomScalar: a field kind plugin.proto did not use: " + fd.Kind().String())
}

// TestWire_batchesRoundTripEveryField: a Batch with every field set (as
// any protobuf encoder writes it) read by the plugin's hand-written decoder
// and written again by the host's encoder is the same message; so is a
// BatchReply through the host's decoder and the plugin's encoder. A field
// added to plugin.proto that the codec does not know makes this fail.
func TestWire_batchesRoundTripEveryField(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		in := &pb.Batch{}
		fillRandom(in.ProtoReflect(), r, 0)
		dropEmptyData(in.ProtoReflect())
		data, err := proto.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var dec batchIn
		if err := dec.unmarshal(data); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		again, err := (&batchRequest{b: &dec.b}).marshal()
		if err != nil {
			t.Fatal(err)
		}
		back := &pb.Batch{}
		if err := proto.Unmarshal(again, back); err != nil || !proto.Equal(in, back) {
			t.Fatalf("batch %d changed on the way (%v):\n%v\n%v", i, err, in, back)
		}

		rep := &pb.BatchReply{}
		fillRandom(rep.ProtoReflect(), r, 0)
		dropEmptyData(rep.ProtoReflect())
		data, err = proto.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		var reps batchReplies
		if err := reps.unmarshal(data); err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		again, err = encodeReplies(reps.out, 0)
		if err != nil {
			t.Fatal(err)
		}
		backRep := &pb.BatchReply{}
		if err := proto.Unmarshal(again, backRep); err != nil || !proto.Equal(rep, backRep) {
			t.Fatalf("reply %d changed on the way (%v):\n%v\n%v", i, err, rep, backRep)
		}
	}
}

// TestWire_readsAsTheGeneratedCodeDoes: the hand-written decoders give the
// SDK values the generated code and its converters give.
func TestWire_readsAsTheGeneratedCodeDoes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var dec batchIn
	var reps batchReplies
	for i := range 300 {
		in := &pb.Batch{}
		fillRandom(in.ProtoReflect(), r, 0)
		data, _ := proto.Marshal(in)
		if err := dec.unmarshal(data); err != nil { // reused, as the plugin does
			t.Fatal(err)
		}
		want := Batch{Sites: make([]Site, len(in.Sites)), Calls: make([]Request, len(in.Calls))}
		for j, s := range in.Sites {
			want.Sites[j] = siteFromPB(s)
		}
		for j, c := range in.Calls {
			requestFromPB(c, &want.Calls[j], nil)
		}
		if !equalBatches(&dec.b, &want) {
			t.Fatalf("batch %d:\n got %+v\nwant %+v", i, dec.b, want)
		}

		rep := &pb.BatchReply{}
		fillRandom(rep.ProtoReflect(), r, 0)
		data, _ = proto.Marshal(rep)
		if err := reps.unmarshal(data); err != nil {
			t.Fatal(err)
		}
		wantR := make([]Reply, len(rep.Replies))
		for j, x := range rep.Replies {
			replyFromPB(x, &wantR[j])
		}
		if !reflect.DeepEqual(normReplies(reps.out), normReplies(wantR)) {
			t.Fatalf("replies %d:\n got %+v\nwant %+v", i, reps.out, wantR)
		}
	}
}

func equalBatches(a, b *Batch) bool {
	if len(a.Sites) != len(b.Sites) || len(a.Calls) != len(b.Calls) {
		return false
	}
	for i := range a.Sites {
		x, y := a.Sites[i], b.Sites[i]
		if x.Name != y.Name || x.Rule != y.Rule || !reflect.DeepEqual(x.Params, y.Params) {
			return false
		}
	}
	for i := range a.Calls {
		x, y := a.Calls[i], b.Calls[i]
		if len(x.State) == 0 && len(y.State) == 0 {
			x.State, y.State = nil, nil
		}
		if len(x.Fields) == 0 && len(y.Fields) == 0 {
			x.Fields, y.Fields = nil, nil
		}
		if math.Float64bits(x.Time) != math.Float64bits(y.Time) || math.Float64bits(x.Dt) != math.Float64bits(y.Dt) {
			return false
		}
		x.Time, y.Time, x.Dt, y.Dt = 0, 0, 0, 0
		// A NaN (a stimulus's age, a number in its data) is never equal to
		// itself for DeepEqual; printed, it is (and every other float
		// prints as the value it is).
		if !reflect.DeepEqual(x, y) && fmt.Sprintf("%+v", x) != fmt.Sprintf("%+v", y) {
			return false
		}
	}
	return true
}

func normReplies(rs []Reply) []Reply {
	out := make([]Reply, len(rs))
	for i, r := range rs {
		if len(r.State) == 0 {
			r.State = nil
		}
		if len(r.Writes) == 0 {
			r.Writes = nil
		}
		if len(r.Effects) == 0 {
			r.Effects = nil
		}
		out[i] = r
	}
	return out
}

// TestWire_refusesWhatProtobufRefuses: strings that are not UTF-8 fail to
// encode, as they do in the generated code; truncated data fails to decode.
func TestWire_refusesWhatProtobufRefuses(t *testing.T) {
	b := &Batch{Sites: []Site{{Name: "x"}}, Calls: []Request{{Agent: "a\xff"}}}
	if _, err := (&batchRequest{b: b}).marshal(); err == nil {
		t.Error("an agent id that is not UTF-8 was encoded")
	}
	if _, err := encodeReplies([]Reply{{Jump: "\xfe"}}, 0); err == nil {
		t.Error("a jump that is not UTF-8 was encoded")
	}
	good, _ := encodeReplies([]Reply{{Status: Success, Writes: []Value{{Kind: ValueNumber, Num: 2}}}}, 0)
	var reps batchReplies
	if err := reps.unmarshal(good[:len(good)-3]); err == nil {
		t.Error("truncated replies were read")
	}
	bad := append([]byte(nil), good...)
	bad = append(bad, 0x0a, 2, 0x3a, 0xff) // a reply whose jump is "\xff"... truncated, then not UTF-8
	if err := reps.unmarshal(bad); err == nil {
		t.Error("a bad reply was read")
	}
}

// FuzzWireReplies feeds arbitrary bytes as a plugin's BatchReply to the
// host's decoder: no panic, and it reads what the generated code reads
// (refusing what that refuses).
func FuzzWireReplies(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 5 {
		rep := &pb.BatchReply{}
		fillRandom(rep.ProtoReflect(), r, 0)
		data, _ := proto.Marshal(rep)
		f.Add(data)
	}
	var reps batchReplies
	f.Fuzz(func(t *testing.T, data []byte) {
		rep := &pb.BatchReply{}
		perr := proto.Unmarshal(data, rep)
		err := reps.unmarshal(data)
		if (perr == nil) != (err == nil) {
			t.Fatalf("protobuf: %v; hand-written: %v", perr, err)
		}
		if err != nil {
			return
		}
		want := make([]Reply, len(rep.Replies))
		for j, x := range rep.Replies {
			replyFromPB(x, &want[j])
		}
		if !reflect.DeepEqual(normReplies(reps.out), normReplies(want)) {
			t.Fatalf("got %+v\nwant %+v", reps.out, want)
		}
	})
}

// FuzzWireBatch feeds arbitrary bytes as a host's Batch to the plugin's
// decoder, likewise.
func FuzzWireBatch(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 5 {
		in := &pb.Batch{}
		fillRandom(in.ProtoReflect(), r, 0)
		data, _ := proto.Marshal(in)
		f.Add(data)
	}
	var dec batchIn
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &pb.Batch{}
		perr := proto.Unmarshal(data, in)
		err := dec.unmarshal(data)
		if (perr == nil) != (err == nil) {
			t.Fatalf("protobuf: %v; hand-written: %v", perr, err)
		}
		if err != nil {
			return
		}
		want := Batch{Sites: make([]Site, len(in.Sites)), Calls: make([]Request, len(in.Calls))}
		for j, s := range in.Sites {
			want.Sites[j] = siteFromPB(s)
		}
		for j, c := range in.Calls {
			requestFromPB(c, &want.Calls[j], nil)
		}
		if !equalBatches(&dec.b, &want) {
			t.Fatalf("got %+v\nwant %+v", dec.b, want)
		}
	})
}

// TestWire_generatedClientTalksToTheSDKServer: a host built with the
// generated client (an older btrun) gets from the SDK's server, which
// decodes batches by hand, the replies the dispatcher gives.
func TestWire_generatedClientTalksToTheSDKServer(t *testing.T) {
	d, err := newDispatcher(counter())
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := newGRPCServer(nil)
	registerServer(srv, &grpcServer{impl: d})
	go srv.Serve(ln)
	defer srv.Stop()
	conn, err := grpc.Dial("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	b := &Batch{Sites: []Site{{Name: "count", Rule: "root.count", Params: []Param{{"a", "1"}}}, {Name: "big", Rule: "root", Params: []Param{{"big.limit", "3"}}}}}
	for i := range 700 { // past parallelMin: the plugin's workers share the batch
		b.Calls = append(b.Calls, Request{Kind: KindCondition, Site: 1, Agent: "a", Fields: []Value{{Kind: ValueNumber, Num: float64(i % 7)}}})
		b.Calls = append(b.Calls, Request{Kind: KindAction, Site: 0, Agent: "b", State: []byte(`{"Runs":1}`), Time: float64(i)})
	}
	want, _ := d.RunBatch(context.Background(), b, nil)
	in := &pb.Batch{}
	for i := range b.Sites {
		in.Sites = append(in.Sites, siteToPB(&b.Sites[i]))
	}
	for i := range b.Calls {
		c := &pb.Call{}
		requestToPB(&b.Calls[i], c, nil)
		in.Calls = append(in.Calls, c)
	}
	for round := range 3 { // the server's storage is reused from round to round
		out, err := pb.NewPluginClient(conn).RunBatch(context.Background(), in)
		if err != nil || len(out.Replies) != len(want) {
			t.Fatalf("round %d: %v", round, err)
		}
		for i, x := range out.Replies {
			var got Reply
			replyFromPB(x, &got)
			if !reflect.DeepEqual(normReplies([]Reply{got}), normReplies([]Reply{want[i]})) {
				t.Fatalf("round %d, reply %d:\n got %+v\nwant %+v", round, i, got, want[i])
			}
		}
	}
}

// chunkBatch is a batch of n calls of agents from first on, at one site,
// each with one field, as a host sends a chunk of its round.
func chunkBatch(first, n int) *Batch {
	b := &Batch{Sites: []Site{{Name: "test.move", Rule: "root"}}}
	for i := range n {
		b.Calls = append(b.Calls, Request{Kind: KindAction, Agent: fmt.Sprintf("grunt-%d", first+i),
			Time: 1, Dt: 0.1, Fields: []Value{{Kind: ValueNumber, Num: float64(i)}}})
	}
	return b
}

// TestBatchPick_chunksReadIntoTheirLastStorage: a host sends a round's
// batch as 4 chunks, 2 in flight at once, and the server keeps the storage
// of those done for the next. Each round, each chunk is decoded into the
// storage that held it the round before, whose agent ids are the same
// strings, so decoding allocates nothing. Taken as they came back, the
// chunks swapped storage and every agent id was allocated.
func TestBatchPick_chunksReadIntoTheirLastStorage(t *testing.T) {
	var chunks [4][]byte
	for i := range chunks {
		data, err := (&batchRequest{b: chunkBatch(i*100, 100)}).marshal()
		if err != nil {
			t.Fatal(err)
		}
		chunks[i] = data
	}
	s := &grpcServer{}
	var picks [4]batchPick
	take := func(i int) {
		picks[i] = batchPick{s: s}
		if err := picks[i].unmarshal(chunks[i]); err != nil {
			t.Fatal(err)
		}
	}
	round := func() {
		take(0)
		take(1)
		s.putBatch(picks[0].in) // the first chunk answered, the third sent
		take(2)
		s.putBatch(picks[1].in)
		take(3)
		s.putBatch(picks[3].in) // the last answered before the third
		s.putBatch(picks[2].in)
	}
	round()
	if allocs := testing.AllocsPerRun(20, round); allocs != 0 {
		t.Errorf("%v allocations per round of four chunks, want 0", allocs)
	}
	if len(s.spare) != 4 || s.made != 4 {
		t.Errorf("%d batches kept, %d made; want 4 and 4", len(s.spare), s.made)
	}
	for i := range picks {
		if got, want := picks[i].in.b.Calls[99].Agent, fmt.Sprintf("grunt-%d", i*100+99); got != want {
			t.Errorf("chunk %d: last agent %q, want %q", i, got, want)
		}
	}
	if got := firstAgent(chunks[1]); string(got) != "grunt-100" {
		t.Errorf("firstAgent = %q, want grunt-100", got)
	}
	for _, bad := range [][]byte{nil, {0xff}, chunks[0][:3]} {
		if got := firstAgent(bad); got != nil {
			t.Errorf("firstAgent(% x) = %q, want nil", bad, got)
		}
	}
}

// TestBatchRequest_encodesIntoTheBufferGivenBack: a request's encoding goes
// into the last one's buffer when the client gave it back (the call was
// answered), with the same bytes as a fresh encoding, and into a new one
// when it did not (gRPC may still hold it).
func TestBatchRequest_encodesIntoTheBufferGivenBack(t *testing.T) {
	b := chunkBatch(0, 50)
	want, _ := (&batchRequest{b: b}).marshal()
	r := batchRequest{b: b}
	first, _ := r.marshal()
	r.keep()
	second, err := r.marshal()
	if err != nil || !bytes.Equal(second, want) {
		t.Fatalf("encoding into a kept buffer: %v, bytes differ: %v", err, !bytes.Equal(second, want))
	}
	if &first[0] != &second[0] {
		t.Error("the buffer given back was not used")
	}
	third, _ := r.marshal() // second not given back
	if &third[0] == &second[0] {
		t.Error("a buffer not given back was written over")
	}
}

// TestBatchPick_storageOfChunksNoLongerSentIsReused: a host's first round
// goes in chunks of another size than the rounds after it (the first
// chunks' size is a minimum, the later ones a quarter of the last round),
// and the chunks in flight arrive in either order. The storage that held
// the first round's chunks is taken for the new chunks; kept aside for
// good, as it was, the later rounds' chunks displaced each other and their
// agent ids were new strings round after round.
func TestBatchPick_storageOfChunksNoLongerSentIsReused(t *testing.T) {
	encode := func(first, n int) []byte {
		data, err := (&batchRequest{b: chunkBatch(first, n)}).marshal()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	s := &grpcServer{}
	// The first round: 5 chunks of 80, two in flight at once.
	var first [5]batchPick
	for i := range first {
		first[i] = batchPick{s: s}
		if err := first[i].unmarshal(encode(i*80, 80)); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			s.putBatch(first[i-1].in)
		}
	}
	s.putBatch(first[4].in)
	// The rounds after: 4 chunks of 100, the two in flight answered in
	// either order, as the plugin's goroutines finish them.
	var chunks [4][]byte
	for i := range chunks {
		chunks[i] = encode(i*100, 100)
	}
	var picks [4]batchPick
	take := func(i int) {
		picks[i] = batchPick{s: s}
		if err := picks[i].unmarshal(chunks[i]); err != nil {
			t.Fatal(err)
		}
	}
	swap := false
	round := func() {
		take(0)
		take(1)
		if swap {
			s.putBatch(picks[1].in)
			take(2)
			s.putBatch(picks[0].in)
		} else {
			s.putBatch(picks[0].in)
			take(2)
			s.putBatch(picks[1].in)
		}
		take(3)
		s.putBatch(picks[2].in)
		s.putBatch(picks[3].in)
		swap = !swap
	}
	for range 3 { // the storage settles
		round()
	}
	if allocs := testing.AllocsPerRun(20, round); allocs != 0 {
		t.Errorf("%v allocations per round of four chunks, want 0", allocs)
	}
	if s.made != maxBatchIns {
		t.Errorf("%d batches made, want %d", s.made, maxBatchIns)
	}
}

// TestWire_oneByteCasesReadAsProtobufDoes: the decoders read one-byte tags,
// varints and lengths inline; at the edges (field number 0, a length past
// the end, a varint or a length that goes on) they accept and refuse what
// protobuf does.
func TestWire_oneByteCasesReadAsProtobufDoes(t *testing.T) {
	for _, data := range [][]byte{
		{0x12, 0x00},                         // an empty call
		{0x02, 0x00},                         // field 0
		{0x07},                               // field 0, an invalid type
		{0x12, 0x05, 0x08, 0x01},             // a call's length past the end
		{0x12, 0x02, 0x08, 0x81},             // a varint that goes on past the call
		{0x12, 0x03, 0x08, 0x81, 0x01},       // a two-byte varint
		{0x12, 0x7f},                         // the longest one-byte length, past the end
		{0x12, 0x80, 0x01},                   // a two-byte length, past the end
		{0x12, 0x04, 0x1a, 0x02, 0x61, 0x62}, // agent "ab"
		{0x12, 0x04, 0x1a, 0x03, 0x61, 0x62}, // agent's length past the call
		{0x0f, 0x01},                         // field 1, type 7 (invalid)
	} {
		perr := proto.Unmarshal(data, &pb.Batch{})
		var in batchIn
		if err := in.unmarshal(data); (perr == nil) != (err == nil) {
			t.Errorf("batch % x: protobuf: %v; hand-written: %v", data, perr, err)
		}
		perr = proto.Unmarshal(data, &pb.BatchReply{})
		var reps batchReplies
		if err := reps.unmarshal(data); (perr == nil) != (err == nil) {
			t.Errorf("replies % x: protobuf: %v; hand-written: %v", data, perr, err)
		}
	}
}
