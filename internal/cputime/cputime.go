// Package cputime reads the CPU time processes have used, for benchmarks
// on a machine shared with other work: unlike wall time, a process's CPU
// time does not grow while it waits for a core.
package cputime

import "time"

// Self is the CPU time (user and system, every thread) this process has
// used; ok is false where it cannot be read.
func Self() (d time.Duration, ok bool) { return Of(0) }

// Of is the CPU time (user and system, every thread) process pid has used,
// 0 for this process; ok is false where it cannot be read (the process is
// gone, or the system has no /proc).
func Of(pid int) (time.Duration, bool) { return of(pid) }
