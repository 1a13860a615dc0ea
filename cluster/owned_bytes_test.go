package cluster_test

import (
	"bytes"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestDecode_bytesAreTheBuffers: a decoded message's bytes are parts of
// the buffer it was decoded from (a buffer written over changes them): a
// transport must give every message a buffer of its own (Decode's doc).
func TestDecode_bytesAreTheBuffers(t *testing.T) {
	m := cluster.Message{Kind: cluster.StepStart, Step: 1, Shared: []byte("world"), Items: []cluster.Item{{Kind: cluster.Delivery, Data: []byte("data")}}}
	b := m.Append(nil)
	got, err := cluster.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = 0xEE
	}
	if string(got.Shared) == "world" || string(got.Items[0].Data) == "data" {
		t.Errorf("Decode copied the bytes (%q, %q): its doc says they are the buffer's", got.Shared, got.Items[0].Data)
	}
}

// TestLocal_eachMessageOwnsItsBytes: what a shard and the conductor keep
// of a message they were given (its items' Data, its Shared) is unchanged
// by the messages that cross after it, both ways: the in-process
// transport decodes every message from a buffer of its own and never
// writes into one again.
func TestLocal_eachMessageOwnsItsBytes(t *testing.T) {
	link, ends := cluster.NewLocal(1)
	defer link.Close()
	msg := func(kind cluster.Kind, step uint64, fill byte) cluster.Message {
		return cluster.Message{Kind: kind, Step: step, Shared: bytes.Repeat([]byte{fill}, 64),
			Items: []cluster.Item{{Kind: cluster.Record, Text: "trace", Data: bytes.Repeat([]byte{fill + 1}, 300)}}}
	}
	type kept struct{ shared, data, sharedWas, dataWas []byte }
	keep := func(m *cluster.Message) kept {
		return kept{m.Shared, m.Items[0].Data, bytes.Clone(m.Shared), bytes.Clone(m.Items[0].Data)}
	}
	var down, up []kept
	replies := make([]cluster.Message, 1)
	for step := uint64(1); step <= 4; step++ {
		m := msg(cluster.Report, step, byte(step*16))
		if err := link.Send(0, &m); err != nil {
			t.Fatal(err)
		}
		got, err := ends[0].Recv()
		if err != nil {
			t.Fatal(err)
		}
		down = append(down, keep(&got))
		r := msg(cluster.Report, step, byte(step*16+8))
		if err := ends[0].Reply(&r); err != nil {
			t.Fatal(err)
		}
		if err := link.Gather(replies); err != nil {
			t.Fatal(err)
		}
		up = append(up, keep(&replies[0]))
	}
	for i, k := range append(down, up...) {
		if !bytes.Equal(k.shared, k.sharedWas) || !bytes.Equal(k.data, k.dataWas) {
			t.Errorf("message %d: the bytes kept of it changed as later messages crossed", i)
		}
	}
}
