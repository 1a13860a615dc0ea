package game

import (
	"bytes"

	"github.com/btrun/btrun/cluster"
)

// The lines of a load on a conductor that holds no agents
// (cluster_nocopy_load.go): one process's load closes the running actions
// of every agent it restores, whose cancel hooks may write. A conductor
// with copies writes those lines from its own restores, and the shards'
// restores are silent; without copies the shards' restores are the only
// ones, so the conductor asks each shard (a loadLinesItem among the load's
// common items) to keep what each agent's restore writes, at its place,
// and to give it back with the load's reply (cluster.LoadLinesHost).

// loadLinesItem names the common item of a load that asks the shards for
// what their restores write.
const loadLinesItem = "lines"

// wantsLines reports whether a load's items ask for its lines.
func wantsLines(saves []cluster.Item) bool {
	for _, it := range saves {
		if it.Agent == -1 && it.Name == loadLinesItem {
			return true
		}
	}
	return false
}

// keepLoadLines keeps what agent i's restore wrote, at its place.
func (g *Game) keepLoadLines(i int32) error {
	if err := g.flushTrace(); err != nil {
		return err
	}
	r := g.cl
	order := cluster.Place(cluster.PhaseSave, int64(i))
	if r.trace.Len() > 0 {
		r.loaded.Add(order, uint64(i), cluster.Item{Kind: cluster.Record, Text: "trace", Data: bytes.Clone(r.trace.Bytes())})
		r.trace.Reset()
	}
	if r.out.Len() > 0 {
		r.loaded.Add(order, uint64(i), cluster.Item{Kind: cluster.Record, Text: "out", Data: bytes.Clone(r.out.Bytes())})
		r.out.Reset()
	}
	return nil
}

// LoadLines gives what the shard's last load kept (cluster.LoadLinesHost).
func (h *shardHost) LoadLines(out *cluster.Out) error {
	r := h.g.cl
	out.Items = append(out.Items, r.loaded.Items...)
	r.loaded = cluster.Out{}
	return nil
}

var _ cluster.LoadLinesHost = (*shardHost)(nil)
