package cluster

// A load into a running cluster cancels the actions its agents were
// running: their cancel hooks run on the shards as the agents are
// restored, and what they write and send is the run's, as in one process
// (whose Load restores its agents in config order, the hooks' lines
// written then and their signals queued ahead of the next step's own). So
// a shard whose host is a LoadOutHost restores into its reply: each
// agent's lines and signals at Place(PhaseSave, its place), which the
// conductor merges into one process's order; LoadRange writes the lines
// and carries the signals into the next step's first deliveries
// (CarryIn), where a reload's cancel hooks' signals go too.

// LoadOutHost is a shard host whose load replies what its restores wrote
// and sent.
type LoadOutHost interface {
	// LoadOut is ShardHost.Load, adding each restored agent's lines (Record
	// items) and the signals it sent (Signal items) to out at
	// Place(PhaseSave, its place).
	LoadOut(saves []Item, out *Out) error
}

// load serves a Load message's saves.
func (s *Shard) load(saves []Item) error {
	if h, ok := s.Host.(LoadOutHost); ok {
		return h.LoadOut(saves, &s.out)
	}
	return s.Host.Load(saves)
}
