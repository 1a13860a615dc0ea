package sdk

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	pb "github.com/btrun/btrun/plugins/proto"
)

// fastEdgeBatch is calls and replies on both sides of what the straight-line
// encoders and readers handle themselves (wire_fast.go): one-byte and
// two-byte lengths and varints, text in values, stimuli and effects, -0,
// NaN, text that is not UTF-8 is left to TestWire_refusesWhatProtobufRefuses.
func fastEdgeBatch() (*Batch, []Reply) {
	b := &Batch{Sites: []Site{{Name: "a"}, {Name: "b", Rule: "r"}}}
	reps := []Reply{}
	states := [][]byte{nil, {1}, bytes.Repeat([]byte{2}, 112), bytes.Repeat([]byte{3}, 127), bytes.Repeat([]byte{4}, 128), bytes.Repeat([]byte{5}, 300)}
	values := []Value{{}, {Kind: ValueNumber, Num: 1.5}, {Kind: ValueNumber, Num: math.Copysign(0, -1)}, {Kind: ValueNumber, Num: math.NaN()},
		{Kind: ValueString, Str: "text"}, {Kind: ValueString, Str: "é"}, {Kind: ValueBool, Bool: true}, {Kind: ValueKind(200)},
		{Kind: ValueString, Str: strings.Repeat("x", 130)}}
	agents := []string{"", "agent-1", "é-2", strings.Repeat("a", 127), strings.Repeat("b", 128)}
	for i := range 120 {
		c := Request{Kind: CallKind(i % 4), Site: uint32(i % 2), Agent: agents[i%len(agents)], FirstRun: i%3 == 0,
			Time: float64(i) / 7, Dt: float64(i%5) * 0.1, State: states[i%len(states)]}
		for j := range i % 4 {
			c.Fields = append(c.Fields, values[(i+j)%len(values)])
		}
		if i%11 == 0 {
			c.Stimuli = []Stimulus{{Signal: "s", Age: 1, Data: Data{Kind: DataNumber, Num: 2}}}
		}
		if i == 7 {
			c.Kind = CallKind(130) // a two-byte varint
		}
		b.Calls = append(b.Calls, c)
		r := Reply{Status: Status(i % 4), OK: i%2 == 0, StateSet: i%3 == 1, State: states[(i+1)%len(states)], Score: float64(i) - 60}
		for j := range (i + 1) % 3 {
			r.Writes = append(r.Writes, values[(i*3+j)%len(values)])
		}
		switch i % 13 {
		case 0:
			r.Effects = []Effect{{Kind: EffectSignal, Name: "hit", To: "self"}}
		case 1:
			r.Jump = "j"
		case 2:
			r.Err = "e"
		}
		reps = append(reps, r)
	}
	return b, reps
}

// TestWireFast_sameBytesAndValuesAsProtobuf: the straight-line encoders
// write what protobuf writes for the same messages, and the batch and
// reply readers (fast where they can, the general decoder where not) read
// back what was sent, also into storage that held the batch before.
func TestWireFast_sameBytesAndValuesAsProtobuf(t *testing.T) {
	b, reps := fastEdgeBatch()
	got, err := (&batchRequest{b: b}).marshal()
	if err != nil {
		t.Fatal(err)
	}
	pbb := &pb.Batch{}
	for i := range b.Sites {
		pbb.Sites = append(pbb.Sites, siteToPB(&b.Sites[i]))
	}
	for i := range b.Calls {
		c := &pb.Call{}
		requestToPB(&b.Calls[i], c, nil)
		pbb.Calls = append(pbb.Calls, c)
	}
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(pbb)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("batch bytes differ from protobuf's:\n got % x\nwant % x", got, want)
	}
	var in batchIn
	for round := range 2 { // the second round reads into the first one's storage
		if err := in.unmarshal(got); err != nil {
			t.Fatal(err)
		}
		if !equalBatches(&in.b, b) {
			t.Fatalf("round %d: read %+v\nwant %+v", round, in.b, *b)
		}
	}

	gotR, err := encodeReplies(reps, 0)
	if err != nil {
		t.Fatal(err)
	}
	pbr := &pb.BatchReply{}
	for i := range reps {
		r := &pb.Reply{}
		replyToPB(&reps[i], r)
		pbr.Replies = append(pbr.Replies, r)
	}
	wantR, err := proto.MarshalOptions{Deterministic: true}.Marshal(pbr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotR, wantR) {
		t.Fatalf("reply bytes differ from protobuf's:\n got % x\nwant % x", gotR, wantR)
	}
	var out batchReplies
	for round := range 2 {
		if err := out.unmarshal(gotR); err != nil {
			t.Fatal(err)
		}
		if g, w := fmt.Sprintf("%+v", normReplies(out.out)), fmt.Sprintf("%+v", normReplies(reps)); g != w {
			t.Fatalf("round %d: read %s\nwant %s", round, g, w)
		}
	}
	if !reflect.DeepEqual(normReplies(out.out[:1]), normReplies(reps[:1])) {
		t.Fatalf("reply 0: %+v, want %+v", out.out[0], reps[0])
	}
}

// TestValidString_asUTF8Does: the ASCII fast path agrees with
// utf8.ValidString at every length and position of a non-ASCII byte.
func TestValidString_asUTF8Does(t *testing.T) {
	for n := range 20 {
		for at := -1; at < n; at++ {
			for _, bad := range []string{"\xff", "é", "\xc3"} {
				b := []byte(strings.Repeat("a", n))
				s := string(b)
				if at >= 0 {
					s = s[:at] + bad + s[at:]
				}
				if got, want := validString(s), utf8.ValidString(s); got != want {
					t.Fatalf("%q: %v, want %v", s, got, want)
				}
			}
		}
	}
}
