//go:build !linux

package runtime

// yieldCore lets other work run; on systems without sched_yield the Go
// scheduler's Gosched (called beside it) is all there is.
func yieldCore() {}
