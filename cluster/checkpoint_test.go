package cluster

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestCheckpoint_recordRoundTrips: a record reads back as written, and a
// cut or padded record is an error naming what is wrong.
func TestCheckpoint_recordRoundTrips(t *testing.T) {
	cp := Checkpoint{Seq: 7, Step: 700, Until: 1000, Trace: 123456789, Out: 42, Parts: []string{"game", "agents/0"}}
	b := cp.Append(nil)
	got, err := DecodeCheckpoint(b)
	if err != nil || !reflect.DeepEqual(got, cp) {
		t.Fatalf("%+v %v", got, err)
	}
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{b[:len(b)-3], "a part's name of 8 bytes"},
		{append(b[:len(b):len(b)], 0), "1 bytes after its end"},
		{[]byte("BTRUNCP0"), "does not start with BTRUNCP1"},
		{[]byte("BTRUNCP1\x01"), "step at byte 9"},
	} {
		if _, err := DecodeCheckpoint(c.b); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.b, err, c.want)
		}
	}
}

// TestTakeCheckpoint_commitsAfterItsParts: a checkpoint is the store's
// once committed, with its parts; the parts of those before are pruned;
// a commit over a record that changed since this store read it is fenced.
func TestTakeCheckpoint_commitsAfterItsParts(t *testing.T) {
	var s MemStore
	for seq := uint64(1); seq <= 2; seq++ {
		if err := TakeCheckpoint(&s, Checkpoint{Seq: seq, Step: seq * 100, Parts: []string{"game"}}, [][]byte{{byte(seq)}}); err != nil {
			t.Fatal(err)
		}
	}
	cp, ok, err := s.Latest()
	if !ok || err != nil || cp.Step != 200 {
		t.Fatalf("%+v %v %v", cp, ok, err)
	}
	if b, err := s.Part(2, "game"); err != nil || b[0] != 2 {
		t.Errorf("part: %v %v", b, err)
	}
	if _, err := s.Part(1, "game"); err == nil {
		t.Error("checkpoint 1's part is not pruned")
	}
	if err := TakeCheckpoint(&s, Checkpoint{Seq: 3, Parts: []string{"a", "b"}}, [][]byte{{1}}); err == nil {
		t.Error("2 names and 1 part are taken")
	}
	s.rev++ // another process committed since
	if err := TakeCheckpoint(&s, Checkpoint{Seq: 3, Step: 300, Parts: []string{"game"}}, [][]byte{{3}}); !errors.Is(err, ErrFenced) {
		t.Errorf("a stale commit: %v", err)
	}
}

// FuzzDecodeCheckpoint: no record makes the reader panic or keep more
// than its bytes allow; what it reads writes back the same.
func FuzzDecodeCheckpoint(f *testing.F) {
	f.Add((&Checkpoint{Seq: 1, Step: 2, Parts: []string{"game"}}).Append(nil))
	f.Add([]byte("BTRUNCP1\x01\x02\x03\x04\x05\xff\xff\x03"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cp, err := DecodeCheckpoint(b)
		if err != nil {
			return
		}
		if again := cp.Append(nil); string(again) != string(b) {
			// Varints have one shortest form; a longer one reads the same.
			if cp2, err := DecodeCheckpoint(again); err != nil || !reflect.DeepEqual(cp2, cp) {
				t.Fatalf("%+v does not write back: %v", cp, err)
			}
		}
	})
}

// TestAgentsPart_badBytesAreAnError: a shard's part reads back its range's
// saves; cut, padded, lying about its size or its count, it is an error,
// never a panic or a large allocation.
func TestAgentsPart_badBytesAreAnError(t *testing.T) {
	saves := []Item{{Kind: AgentSave, Agent: 4, Data: []byte("four")}, {Kind: AgentSave, Agent: 5, Data: []byte("five")}, {Kind: AgentSave, Agent: 6, Data: []byte("six")}}
	b, err := encodeAgentsPart(4, 7, saves)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeAgentsPart(b, 5, 7, nil)
	if err != nil || len(got) != 2 || got[0].Agent != 5 || string(got[1].Data) != "six" || got[0].Order != Place(PhaseSave, 5) {
		t.Fatalf("agents 5..6 of the part: %+v, %v", got, err)
	}
	for i := range len(b) {
		if _, err := decodeAgentsPart(b[:i], 4, 7, nil); !errors.Is(err, ErrCheckpoint) {
			t.Errorf("cut at %d: %v", i, err)
		}
	}
	// What the part holds, deflated as encodeAgentsPart does, with a
	// size, its bytes padded, or a count past them.
	pack := func(size int, raw []byte) []byte {
		var w bytes.Buffer
		w.WriteString(partsMagic)
		w.Write(binary.AppendUvarint(nil, uint64(size)))
		fw, _ := flate.NewWriter(&w, flate.BestSpeed)
		fw.Write(raw)
		fw.Close()
		return w.Bytes()
	}
	raw := []byte{8, 14, 1, 8, 1, 'x'}
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{pack(len(raw), raw), ""},
		{pack(len(raw)+1, append(raw, 0)), "1 bytes after the part"},
		{pack(len(raw)+5, raw), "6 bytes unpacked, where it says 11"},
		{pack(len(raw)-1, raw), "6 bytes unpacked, where it says 5"},
		{pack(MaxPartSize+1, raw), "more than"},
		{pack(7, []byte{0, 2, 0xff, 0xff, 0xff, 0xff, 0x0f}), "agents"},
	} {
		_, err := decodeAgentsPart(c.b, 0, 9, nil)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("want %q: %v", c.want, err)
		}
	}
}

// FuzzDecodeAgentsPart: no bytes make a part's decoder panic, hang or
// allocate past what its size bound allows; a part that decodes holds
// saves of the range asked, in order of the part.
func FuzzDecodeAgentsPart(f *testing.F) {
	b, _ := encodeAgentsPart(4, 7, []Item{{Kind: AgentSave, Agent: 4, Data: []byte("four")}, {Kind: AgentSave, Agent: 5, Data: []byte("five")}})
	f.Add(b)
	f.Add([]byte(partsMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeAgentsPart(b, 5, 9, nil)
		if err != nil {
			return
		}
		for _, it := range got {
			if it.Agent < 5 || it.Agent >= 9 || it.Kind != AgentSave {
				t.Fatalf("a save of agent %d (%s) out of the range asked", it.Agent, it.Kind)
			}
		}
	})
}
