package natsnet

import (
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/internal/model"
)

// TestNATS_shardsWriteTheirParts: over NATS, each shard writes its agents'
// part of a checkpoint into the run's store on its own connection (a
// part of more than 1 MB, past the server's 1 MB message limit, in chunks) and
// replies with its name and size only: the conductor's link carries a
// few hundred bytes, not the agents. A new cluster of another number of
// shards restores from the parts and holds the same agents.
func TestNATS_shardsWriteTheirParts(t *testing.T) {
	s := startServer(t)
	const agents = 700_000
	store := storeOf(t, s.URL(), "ckpt")
	o := Options{URL: s.URL(), Run: "ckpt-link-1", Version: "v1"}
	c, ends := joinAll(t, o, 2)
	a := model.Start(&model.World{N: agents}, c, ends) // at its start: the model's steps are long with so many agents
	before := c.Traffic()
	parts, err := a.C.WriteParts(0, 1, "ckpt")
	if err != nil {
		t.Fatal(err)
	}
	after := c.Traffic()
	if len(parts) != 2 || parts[0].Size < 1<<20 || parts[1].Size < 1<<20 {
		t.Fatalf("parts %+v: want 2 of more than 1 MB each", parts)
	}
	if crossed := after.SentBytes + after.ReceivedBytes - before.SentBytes - before.ReceivedBytes; crossed > 1000 {
		t.Errorf("the checkpoint's messages carried %d bytes: the agents crossed the link", crossed)
	}
	want := a.States()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(cluster.Checkpoint{Seq: 1, Parts: []string{parts[0].Name, parts[1].Name}}); err != nil {
		t.Fatal(err)
	}

	o.Run = "ckpt-link-2"
	c, ends = joinAll(t, o, 3)
	b := model.Start(&model.World{N: agents}, c, ends)
	if err := b.C.RestoreParts(0, 1, "ckpt", parts, nil); err != nil {
		t.Fatal(err)
	}
	if got := b.States(); got != want {
		t.Errorf("3 shards restored from 2 shards' parts hold other agents")
	}
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
}
