package natsnet

import (
	"bytes"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/nats-io/nats.go"
)

// TestParts_eachMessageItsOwnBuffer: a message put together from parts is
// a buffer of its own, which the next message's parts do not write into
// (cluster.Decode's slices are parts of it, kept by the receiver).
func TestParts_eachMessageItsOwnBuffer(t *testing.T) {
	part := func(h, data string) *nats.Msg {
		m := nats.NewMsg("x")
		m.Header.Set(hdrPart, h)
		m.Data = []byte(data)
		return m
	}
	var p parts
	var kept [][]byte
	for _, fill := range []string{"aaaa", "bbbb", "cccc"} {
		if _, _, err := p.add(part("1/2", fill)); err != nil {
			t.Fatal(err)
		}
		b, whole, err := p.add(part("2/2", fill))
		if err != nil || !whole {
			t.Fatal(whole, err)
		}
		kept = append(kept, b)
	}
	for i, fill := range []string{"aaaa", "bbbb", "cccc"} {
		if string(kept[i]) != fill+fill {
			t.Errorf("message %d is %q after the next ones, want %q", i, kept[i], fill+fill)
		}
	}
}

// TestNATS_eachMessageOwnsItsBytes: what a shard and the conductor keep of
// the messages they were given, whole or in parts, is unchanged by the
// messages that cross after them, both ways.
func TestNATS_eachMessageOwnsItsBytes(t *testing.T) {
	s := startServer(t)
	c, ends := joinAll(t, Options{URL: s.URL(), Run: "owned", Version: "v1"}, 1)
	defer c.Close()
	large := 2*int(c.nc.MaxPayload()) + 5
	type kept struct{ data, was []byte }
	var all []kept
	replies := make([]cluster.Message, 1)
	for i, size := range []int{100, large, 100, large, 100} {
		fill := byte(i*2 + 1)
		m := cluster.Message{Kind: cluster.Load, Step: uint64(i), Items: []cluster.Item{{Kind: cluster.AgentSave, Data: bytes.Repeat([]byte{fill}, size)}}}
		if err := c.Send(0, &m); err != nil {
			t.Fatal(err)
		}
		got, err := ends[0].Recv()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, kept{got.Items[0].Data, bytes.Clone(got.Items[0].Data)})
		r := cluster.Message{Kind: cluster.Load, Step: uint64(i), Items: []cluster.Item{{Kind: cluster.Record, Data: bytes.Repeat([]byte{fill + 1}, size)}}}
		if err := ends[0].Reply(&r); err != nil {
			t.Fatal(err)
		}
		if err := c.Gather(replies); err != nil {
			t.Fatal(err)
		}
		all = append(all, kept{replies[0].Items[0].Data, bytes.Clone(replies[0].Items[0].Data)})
	}
	for i, k := range all {
		if !bytes.Equal(k.data, k.was) {
			t.Errorf("message %d: the bytes kept of it changed as later messages crossed", i)
		}
	}
}
