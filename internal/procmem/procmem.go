// Package procmem reads the peak memory of processes, for benchmarks
// (btrun bench -shards reports each shard process's): where the system
// does not tell, it says so rather than guess.
package procmem

// Peak is the most resident memory, in bytes, process pid (0: this one)
// has held so far (Linux's VmHWM), or ok false where it cannot be read.
func Peak(pid int) (bytes uint64, ok bool) { return peak(pid) }
