package model

import "github.com/btrun/btrun/cluster"

// The model's shards write their agents into checkpoints as their saves
// (cluster.CheckpointHost).

func (s *Shard) CheckpointRange() (int32, int32) { return s.Lo, s.Lo + int32(len(s.Agents)) }

func (s *Shard) CheckpointSaves(out *cluster.Out) error { return s.Save(out) }
