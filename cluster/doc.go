// Package cluster runs one game across processes: a conductor and N shards
// speaking the round protocol that workers speak inside one process, over a
// transport.
//
// A shard is a group of workers in another process. It holds a contiguous
// range of the agents in config order and steps them; the conductor holds
// what one process keeps on its one thread (the world, the schedule, the
// gates, the plugins, the directory of agents, the trace and the output).
// Everything that crosses is a Message, and every list the conductor takes
// from several shards is merged by Merge, by a key naming a place in the
// single run's order, never by which shard answered first: that is what
// makes a cluster's results those of one process (docs/cluster.md).
//
// The package knows nothing of the game's rules: a Conductor drives a
// ConductorHost (what the conductor's side of a game does) and a Shard
// drives a ShardHost (what a shard's agents do), over a ConductorLink and
// ShardLinks. NewLocal is the in-process transport (channels, one
// goroutine per shard), with which the protocol is tested in one process.
//
// Inputs from outside the run (a signal, an agent added or removed between
// two steps) are journaled in a Journal before they are applied, and
// applied again by a replay from a checkpoint (inputs.go,
// inputs_agents.go). A checkpoint's agents are written by the shards
// that hold them, in parallel, straight into the run's CheckpointStore,
// and read back by the shards whatever layout wrote them
// (checkpoint_shards.go); the conductor commits the record that names
// every part.
//
// Concurrency: a Conductor is used from one goroutine; each Shard runs on
// its own. Links are made for one conductor and its shards.
//
// The game's side is in package game (cluster.go): Game.Conduct and
// Game.ServeShard. There every process lists every agent (the directory);
// a shard makes and steps only its range, and keeps a copy of the gates
// that knows the other shards' agents by place
// (runtime.Gates.EndRoundParts); the conductor makes none (but for a live
// view, which draws a copy of each): the start's lines (StartLines) and a
// save's parts (SaveParts) come from the shards.
package cluster
