package sdk

import pb "github.com/btrun/btrun/plugins/proto"

// Signal data and stimuli between the SDK's types and the generated
// protobuf messages, for calls that go one at a time (Describe, cancel
// calls, unbatched calls); batches use the hand-written codec (wire.go).

// maxWireDataDepth bounds how deep a received Data may nest: the host
// refuses data deeper than 16 tables anyway; this only keeps a damaged
// message from exhausting the stack.
const maxWireDataDepth = 64

func dataToPB(d *Data) *pb.Data {
	if d.Kind == DataNil {
		return nil
	}
	out := &pb.Data{Kind: pb.DataKind(d.Kind), Flag: d.Bool, Number: d.Num}
	if d.Kind == DataString {
		out.Text = []byte(d.Str)
	}
	for i := range d.Table {
		e := &d.Table[i]
		out.Entries = append(out.Entries, &pb.DataEntry{Key: dataToPB(&e.Key), Value: dataToPB(&e.Value)})
	}
	return out
}

// dataFromPB converts a received Data; deeper than maxWireDataDepth, the
// rest is cut (and the host refuses what is deeper than 16 anyway).
func dataFromPB(d *pb.Data, depth int) Data {
	if d == nil || depth > maxWireDataDepth {
		return Data{}
	}
	out := Data{Kind: DataKind(d.GetKind()), Bool: d.GetFlag(), Num: d.GetNumber(), Str: string(d.GetText())}
	if es := d.GetEntries(); len(es) > 0 {
		out.Table = make([]DataEntry, len(es))
		for i, e := range es {
			out.Table[i] = DataEntry{Key: dataFromPB(e.GetKey(), depth+1), Value: dataFromPB(e.GetValue(), depth+1)}
		}
	}
	return out
}

func stimuliToPB(in []Stimulus) []*pb.Stimulus {
	if len(in) == 0 {
		return nil
	}
	out := make([]*pb.Stimulus, len(in))
	for i := range in {
		out[i] = &pb.Stimulus{Signal: in[i].Signal, Data: dataToPB(&in[i].Data), Age: in[i].Age}
	}
	return out
}

func stimuliFromPB(in []*pb.Stimulus) []Stimulus {
	if len(in) == 0 {
		return nil
	}
	out := make([]Stimulus, len(in))
	for i, s := range in {
		out[i] = Stimulus{Signal: s.GetSignal(), Data: dataFromPB(s.GetData(), 0), Age: s.GetAge()}
	}
	return out
}
