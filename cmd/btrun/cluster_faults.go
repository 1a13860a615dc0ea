package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/btrun/btrun/cluster"
)

// Faults at chosen points, for the tests of recovery (tests/recover_test.go):
// BTRUN_TEST_FAULT="WHO:WHAT:STEP" makes a process kill itself with SIGKILL
// (or stop itself with SIGSTOP) when it reaches the point, as a machine
// that dies there would. WHO is "conductor" or "shardK"; for a shard, WHAT
// is the name of a message kind ("round", "save", ...: killed as it
// receives that message of step STEP; "checkpoint": killed once it wrote
// its part of the checkpoint of step STEP, before it replies) or "stop"
// (SIGSTOP as it receives step STEP's start); for the conductor, "step"
// (before step STEP), "commit" (at the checkpoint of step STEP, its parts
// stored and not yet committed), "reload" (a reload after step STEP
// journaled and applied, the checkpoint after it not taken) or "stop"
// (SIGSTOP before step STEP). Replacement shards are started without it.
const faultEnv = "BTRUN_TEST_FAULT"

type fault struct {
	who, what string
	step      uint64
}

// faultFor is the fault set for who, if any.
func faultFor(who string) (fault, bool) {
	f := strings.SplitN(os.Getenv(faultEnv), ":", 3)
	if len(f) != 3 || f[0] != who {
		return fault{}, false
	}
	step, err := strconv.ParseUint(f[2], 10, 64)
	return fault{who: f[0], what: f[1], step: step}, err == nil
}

// at kills (or stops) this process if the fault is what at step.
func (f fault) at(what string, step uint64) {
	if f.who == "" || f.what != what || f.step != step {
		return
	}
	raise(what == "stop")
}

// envWithoutFault is this process's environment without the fault: a
// replacement does not die again at the same point.
func envWithoutFault() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, faultEnv+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// faultyLink is a shard's link that meets its fault as it receives.
type faultyLink struct {
	cluster.ShardLink
	f fault
}

func (l faultyLink) Recv() (cluster.Message, error) {
	m, err := l.ShardLink.Recv()
	if err == nil && m.Kind != cluster.CheckpointParts { // its "checkpoint" is met as it replies
		l.f.at(m.Kind.String(), m.Step)
		if m.Kind == cluster.StepStart {
			l.f.at("stop", m.Step)
		}
	}
	return m, err
}

// Reply meets a "checkpoint" fault once the shard wrote its part of the
// checkpoint of step STEP, before it replies: the conductor never commits.
func (l faultyLink) Reply(m *cluster.Message) error {
	if m.Kind == cluster.CheckpointParts && m.Round == cluster.CheckpointWrite {
		l.f.at("checkpoint", m.Step)
	}
	return l.ShardLink.Reply(m)
}

// CheckpointStore is the shard link's store (cluster.StoreLink).
func (l faultyLink) CheckpointStore(run string) (cluster.CheckpointStore, error) {
	sl, ok := l.ShardLink.(cluster.StoreLink)
	if !ok {
		return nil, fmt.Errorf("btrun shard: the link opens no checkpoint store")
	}
	return sl.CheckpointStore(run)
}
