package game

import "github.com/btrun/btrun/cluster"

// A shard whose start fails (its Lua error in the world's init or in a
// spawn) still answers its conductor: every message gets the start's error
// as its reply, so that the conductor ends the run with it, naming the
// shard, at its first exchange. A shard that only closed its link would
// look lost, and a conductor that recovers lost shards would start it
// again and again for the same error.

// startFailed is a ShardHost whose every call is the start's error.
type startFailed struct{ err error }

func (s startFailed) Begin(uint64, float64, []byte) error                     { return s.err }
func (s startFailed) Deliver(*cluster.Item, *cluster.Out) error               { return s.err }
func (s startFailed) Round(uint32, []cluster.Item, *cluster.Out) (int, error) { return 0, s.err }
func (s startFailed) Report([]cluster.Item, *cluster.Out) error               { return s.err }
func (s startFailed) Save(*cluster.Out) error                                 { return s.err }
func (s startFailed) Load([]cluster.Item) error                               { return s.err }
func (s startFailed) Finish(uint32, *cluster.Out) error                       { return s.err }
func (s startFailed) StartLines(*cluster.Out) error                           { return s.err }
