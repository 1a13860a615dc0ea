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
// Concurrency: a Conductor is used from one goroutine; each Shard runs on
// its own. Links are made for one conductor and its shards.
//
// # The game's side (not written yet)
//
// The game speaks this protocol through two hosts, each a thin adapter
// over what a Game already does on its one thread and on its workers:
//
//   - ConductorHost.BeginStep is RunStep's head: the plugins' restarts, the
//     world's tick (its game.shared, encoded as plain data, is Shared; its
//     game.signal calls and the schedule's due entries become Delivery
//     items, in the order one process delivers them) and the step's time.
//   - ConductorHost.Resolve is the end of a round: the gates apply the
//     round's releases and then its takes in config order, and each plugin
//     gets one batch. Both read agents today (runtime.Gates holds
//     *runtime.Agent holders; host.Set queues a ticket per agent); in a
//     cluster they take Request items instead: a gate release or take is
//     (place, gate, step, time), a plugin call is the call's site, its
//     parameters and the agent's fields, which shardable plugins keep on
//     the shard. Answers carry the grant or refusal, or the reply.
//   - ConductorHost.Route is checkRoute and the outbox (the directory of
//     ids knows every agent's place); Write feeds the one trace writer and
//     the one output printer, whose folding of repeated errors stays there,
//     so records are output events, not formatted lines.
//   - ShardHost.Round is stepAgents over the shard's range, with the gate
//     and plugin resolvers replaced by ones that turn a paused agent's call
//     into a Request and Continue it with its Answer; what roundEnd takes
//     from workers today (signals, log lines, prints tagged by place) is
//     what the shard adds to Out.
//   - ShardHost.Report is reportSteps and the owed handlers of
//     deliverSent; ShardHost.Deliver is deliver for one queue entry;
//     Save and Load are the per-agent part of a save file, which the
//     conductor writes in config order around its own part (the world,
//     the gates, the schedule).
//
// Tests then hold `btrun run` and the same config on 1, 2 and 3 shards (and
// workers inside them, and saves moved between layouts) to byte-identical
// traces, output and saves, as cluster_test.go does for the model game.
package cluster
