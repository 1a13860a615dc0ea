package runtime

import "github.com/btrun/btrun/runtime/savecodec"

// SavedAgent is an agent as a save holds it: its id and the tree it runs
// (the tree's display path, Tree.File, and its fingerprint).
type SavedAgent struct {
	ID, Tree, Fingerprint string
}

// PeekAgents reads the agents of an EncodeAgents block, ids and trees,
// restoring nothing: a game that adds and removes agents reads which ones
// a save holds before it plans the restore (PlanAgents) with those agents.
// Give it a copy of the Decoder the plan will read.
func PeekAgents(d *savecodec.Decoder) ([]SavedAgent, error) {
	n := d.Count(8)
	if d.Err() != nil {
		return nil, d.Err()
	}
	out := make([]SavedAgent, 0, n)
	var s Snapshot
	var keep []byte
	for range n {
		decodeSnapshotHead(d, &s, &keep)
		d.SkipValue()
		if d.Err() != nil {
			return nil, d.Err()
		}
		out = append(out, SavedAgent{ID: s.ID, Tree: s.Tree, Fingerprint: s.Fingerprint})
	}
	return out, nil
}
