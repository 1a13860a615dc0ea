package game

// stepMark is called once as each step starts, in one process (runStep),
// on a shard (shardHost.Begin) and on the conductor (BeginStep), so that
// internal/clusterbench/callgrind.sh can dump valgrind's counts step by
// step (--dump-before=...game.stepMark). It must be a leaf: Go gives a leaf
// with a small frame no stack check, so it is never preempted nor entered
// again, where callgrind takes every resumption of a goroutine inside a
// function that calls others (a wait at a barrier, a preemption at a
// function's start) for a new entry, and dumped many times a step at
// those (runStep, Conductor.Step), which mixed the steps' counts. It costs
// a call a step.
//
//go:noinline
func stepMark(step uint64) uint64 { return step }
