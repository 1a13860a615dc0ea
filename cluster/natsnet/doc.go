// Package natsnet carries the cluster protocol (package cluster) over NATS:
// core subjects for the messages of each step, a join handshake in which
// the conductor numbers its shards and refuses one of another btrun
// version, and an embedded server with JetStream for `btrun run -shards N`
// on one machine.
//
// Subjects, for a run named RUN:
//
//	btrun.RUN.join      a shard's request to join; the reply numbers it or refuses it
//	btrun.RUN.down.ID   the conductor's messages to the shard that joined as ID
//	btrun.RUN.up.LINK.K shard K's replies on the link LINK (an id the join's answer gives)
//	btrun.RUN.bye       the conductor ended the link (the data: its id)
//	btrun.RUN.input     the run's journal of inputs from outside (the stream btrun-input-RUN)
//
// Core NATS keeps the order of one publisher's messages to a subscriber;
// the protocol's sequence numbers (cluster.Sequence) turn anything else (a
// lost or repeated message) into an error rather than a wrong result. A
// message larger than the server's payload limit crosses in parts.
//
// This package is imported only where a cluster runs: a game that runs in
// one process starts nothing of NATS.
package natsnet
