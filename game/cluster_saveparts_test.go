package game

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestJoinSave_partsOfOneTwoThreeShards: a game's agents written as 1, 2
// and 3 parts (each a shard's range: the strings of the trees, the rules
// and the Lua keys shared by every part, each agent's id and its own
// values in one part only), joined with the conductor's head and gates,
// are the save file one process writes, byte for byte; in the gates
// fixture (holders named by id) and the example game.
func TestJoinSave_partsOfOneTwoThreeShards(t *testing.T) {
	for _, name := range []string{"gates", "example"} {
		cfg := movingConfig(t, name, 0)
		g, err := Open(cfg, Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		if err := g.Start(); err != nil {
			t.Fatal(err)
		}
		if err := g.Run(40); err != nil {
			t.Fatal(err)
		}
		want, err := g.encodeSave()
		if err != nil {
			t.Fatal(err)
		}
		for _, shards := range []int{1, 2, 3} {
			layout := cluster.Cut(len(g.agents), shards)
			var items []cluster.Item
			for k := range shards {
				lo, hi := layout.Range(k)
				b, err := g.savePart(lo, hi)
				if err != nil {
					t.Fatal(err)
				}
				items = append(items, cluster.Item{Kind: cluster.AgentSave, Agent: lo, Peer: hi, Data: b})
			}
			got, err := g.joinSave(items)
			if err != nil {
				t.Fatalf("%s, %d parts: %v", name, shards, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, %d parts: the joined save (%d bytes) differs from one process's (%d)", name, shards, len(got), len(want))
			}
		}
		if name == "gates" && (g.gates == nil || !bytes.Contains(want, []byte(fmt.Sprint(g.agents[0].a.ID())))) {
			t.Fatalf("the gates fixture has no gates, or its save names no agent")
		}
	}
}
